// Package changepoint finds the runs after which a figure changed, in a history of runs in
// time order, each run a small sample of per-round values. It is hierarchical bisection in
// the manner of E-divisive (Matteson & James, "A Nonparametric Approach for Multiple Change
// Point Analysis of Multivariate Data", JASA 109(505), 2014), as MongoDB and Apache Otava
// use it over performance histories (Daly et al., "The Use of Change Point Detection to
// Identify Software Performance Regressions in a Continuous Integration System", ICPE 2020;
// Fleming et al., "Hunter: Using Change Point Detection to Hunt for Performance
// Regressions", arXiv 2301.03034): find the best split of a segment, test it, recurse into
// both sides; over sliding windows, with a last pass that drops the weak points.
//
// It differs from E-divisive in the statistic and in the weights:
//
//   - The split statistic is the weighted mean-shift statistic, the likelihood ratio of one
//     step in a Gaussian mean with known variances (Hinkley, "Inference about the
//     change-point in a sequence of random variables", Biometrika 57(1), 1970), instead of
//     the energy statistic. The figures are locations (latency, CPU per request, RSS, rate),
//     and a step in a location is what is to be found; the energy statistic also answers to
//     a change of spread, and a run of noisier nights is no regression.
//   - Each run is its median over rounds, weighted by the inverse of its variance: the
//     variance of its median from its rounds' spread, plus the variance between runs that
//     the rounds cannot show (a random-effects weight, as in DerSimonian & Laird,
//     "Meta-analysis in clinical trials", Controlled Clinical Trials 7(3), 1986). A run whose
//     rounds scatter widely says little about where the figure is, and weighs less.
//   - The significance of the best split is a permutation test of the maximum over all
//     splits, as Matteson & James's, permuting whole runs with their weights: it is exact
//     under the hypothesis that the runs of the segment are exchangeable, whatever their
//     distribution, and it accounts for the split having been chosen as the best one.
//     Otava's Student's t-test of the chosen split does not, which is one reason it needs
//     p <= 0.001.
//
// Per-round values are not pooled across runs for the test: rounds of one run share the
// run's machine, build and conditions, so rounds of different runs differ more than rounds
// of one run, and a test on pooled rounds would take that difference for a change.
package changepoint

import (
	"fmt"
	"math"
	"slices"

	"github.com/daprperf/daprperf/perf/stats"
)

// Point is one run of a series: the per-round values of one figure (at least one, each
// finite), in the figure's unit, and an optional label (a version, a commit, a run id) that
// is copied into the change point it starts.
type Point struct {
	Values []float64
	Label  string
}

// Options are the settings of Detect. DefaultOptions gives every field its default; Detect
// rejects a zero field.
type Options struct {
	// Alpha is the significance level of each test, in (0, 1). Default 0.001, Otava's
	// max_pvalue: a nightly job tests many series (one per scenario and figure), and a change
	// point, once reported, stays in the history; at 0.001 a hundred flat series give one
	// false change point every ten analyses.
	Alpha float64
	// Permutations is the number of random permutations of each permutation test, at least
	// 1/Alpha - 1 (the smallest p-value is 1/(Permutations+1), Phipson & Smyth, "Permutation
	// p-values should never be zero", SAGMB 9(1), 2010). Default 999, the fewest for 0.001.
	Permutations int
	// MinSegment is the fewest runs on each side of a change point, at least 1. Default 3:
	// one run apart is an outlier run, not a level, and a nightly job wants a regression
	// reported within a few nights (Chromium's dashboard waits for 6, MIN_SEGMENT_SIZE in
	// catapult's find_change_points.py).
	MinSegment int
	// Window is the length in runs of the sliding windows the search runs over (each the
	// next's half), at least 2 x MinSegment. Default 50, Otava's window_len: a change is
	// judged against the runs near it, not against a history that may have drifted since.
	Window int
	// MinRelativeChange is the floor under which a change point is not reported: the
	// absolute relative change of the segment medians, |after/before - 1|, at least 0.
	// Default 0.02, Perfherder's default alert threshold (2 %, Mozilla's "Sheriffing/Alert
	// FAQ").
	MinRelativeChange float64
	// Seed seeds the permutations; the same series, options and seed give the same result.
	Seed uint64
}

// DefaultOptions returns Alpha 0.001, Permutations 999, MinSegment 3, Window 50,
// MinRelativeChange 0.02 and Seed 1.
func DefaultOptions() Options {
	return Options{Alpha: 0.001, Permutations: 999, MinSegment: 3, Window: 50, MinRelativeChange: 0.02, Seed: 1}
}

func (o Options) validate() error {
	switch {
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("changepoint: Options.Alpha = %v: want a significance level in (0, 1)", o.Alpha)
	case float64(o.Permutations+1)*o.Alpha < 1:
		return fmt.Errorf("changepoint: Options.Permutations = %d: want at least %d, or no p-value can reach Alpha %v",
			o.Permutations, int(math.Ceil(1/o.Alpha))-1, o.Alpha)
	case o.MinSegment < 1:
		return fmt.Errorf("changepoint: Options.MinSegment = %d: want at least 1 run", o.MinSegment)
	case o.Window < 2*o.MinSegment:
		return fmt.Errorf("changepoint: Options.Window = %d: want at least 2 x MinSegment = %d runs", o.Window, 2*o.MinSegment)
	case !(o.MinRelativeChange >= 0) || math.IsInf(o.MinRelativeChange, 0):
		return fmt.Errorf("changepoint: Options.MinRelativeChange = %v: want a finite fraction >= 0 (0.02 is 2 %%)", o.MinRelativeChange)
	}
	return nil
}

// ChangePoint is a change in a series: the runs from Index on differ from the runs before.
type ChangePoint struct {
	// Index is the index in the series of the first run after the change; Label is its label.
	Index int
	Label string
	// PValue is the permutation p-value of the best single split of the runs between the
	// neighbouring change points (or the ends of the series), each side cut to Window/2 runs,
	// which is the split at Index: the share of permutations of those runs whose best split's
	// statistic is at least Statistic, Phipson & Smyth's (1+b)/(m+1). It is at most
	// Options.Alpha.
	PValue float64
	// Statistic is the weighted mean-shift statistic of that split, (mean after - mean
	// before)² / (1/W before + 1/W after), with inverse-variance weights (dimensionless; about
	// chi-squared with one degree of freedom for a fixed split without change).
	Statistic float64
	// Before and After are the medians of the run medians of the whole segments either side
	// (from the previous change point, to the next), with their distribution-free intervals
	// over runs (stats.MedianInterval), in the figure's unit.
	Before, After stats.Interval
	// RelativeChange is After.Median/Before.Median - 1 (0.1 is a 10 % rise; ±Inf when
	// Before.Median is 0). Its absolute value is at least Options.MinRelativeChange.
	RelativeChange float64
}

// Detect returns the change points of series (runs in time order), in index order, or none.
// An error names the first bad input: an empty series, a run with no values, a value that is
// NaN or infinite, or an option out of its range.
func Detect(series []Point, opts Options) ([]ChangePoint, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if len(series) == 0 {
		return nil, fmt.Errorf("changepoint: series is empty: want at least one run")
	}
	for i, p := range series {
		if len(p.Values) == 0 {
			return nil, fmt.Errorf("changepoint: series[%d].Values is empty: want at least one per-round value", i)
		}
		for j, v := range p.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("changepoint: series[%d].Values[%d] = %v: want a finite number", i, j, v)
			}
		}
	}
	d := newDetector(series, opts)
	return d.run(), nil
}

// detector holds one series reduced to its runs: med[i] is run i's median over rounds and
// w[i] its weight (runWeights).
type detector struct {
	series []Point
	opts   Options
	med, w []float64
}

func newDetector(series []Point, opts Options) *detector {
	d := &detector{series: series, opts: opts, med: make([]float64, len(series))}
	for i, p := range series {
		d.med[i] = stats.Median(p.Values)
	}
	d.w = runWeights(series, d.med)
	return d
}

// run searches each window by bisection, merges what the overlapping windows found, then
// drops the weakest point until each one left passes its test and the floor.
func (d *detector) run() []ChangePoint {
	n, win := len(d.med), d.opts.Window
	var found []int
	for start := 0; ; start += win / 2 {
		end := min(start+win, n)
		d.bisect(start, end, &found)
		if end == n {
			break
		}
	}
	return d.prune(d.merge(found))
}

// searchAlpha is the level at which the search proposes a change point: the conventional 5 %.
// The search tests segments that may hold several changes, whose permutations mix all their
// levels, so it needs a lenient level to see each change; what is reported is decided in
// prune, at Options.Alpha, between each point's neighbours, where one change is left.
const searchAlpha = 0.05

// bisect finds the segment of runs [a, b) that differs most from the rest (bestSegment),
// keeps its one or two ends inside [a, b) when its permutation test passes, and recurses into
// the two or three parts (Matteson & James's hierarchical procedure, with Olshen et al.'s
// circular split).
func (d *detector) bisect(a, b int, out *[]int) {
	if b-a < 2*d.opts.MinSegment {
		return
	}
	n := b - a
	pw, ps := make([]float64, n+1), make([]float64, n+1)
	i, j, t := bestSegment(d.med[a:b], d.w[a:b], d.opts.MinSegment, pw, ps)
	p := d.permutationP(a, b, t, searchAlpha, 1, func(m, w []float64) float64 {
		_, _, x := bestSegment(m, w, d.opts.MinSegment, pw, ps)
		return x
	})
	if p > searchAlpha {
		return
	}
	cuts := []int{a}
	for _, k := range []int{i, j} {
		if k > 0 && k < n {
			*out = append(*out, a+k)
			cuts = append(cuts, a+k)
		}
	}
	cuts = append(cuts, b)
	for c := 1; c < len(cuts); c++ {
		d.bisect(cuts[c-1], cuts[c], out)
	}
}

// merge keeps one of the candidates closer than MinSegment to each other (one change seen
// from two windows): the one with the largest statistic over the runs within Window/2 of
// the group.
func (d *detector) merge(found []int) []int {
	slices.Sort(found)
	found = slices.Compact(found)
	var out []int
	for i := 0; i < len(found); {
		j := i + 1
		for j < len(found) && found[j]-found[j-1] < d.opts.MinSegment {
			j++
		}
		best := found[i]
		if j-i > 1 {
			lo := max(0, found[i]-d.opts.Window/2)
			hi := min(len(d.med), found[j-1]+d.opts.Window/2)
			bestT := math.Inf(-1)
			for _, k := range found[i:j] {
				if t := splitStat(d.med[lo:hi], d.w[lo:hi], k-lo); t > bestT {
					best, bestT = k, t
				}
			}
		}
		out = append(out, best)
		i = j
	}
	return out
}

// prune tests each change point between its neighbours (the previous and next points, or the
// ends of the series, each side cut to Window/2 runs): the best single split there and the
// permutation test of its maximum. It removes the point that fails worst (largest p-value,
// then smallest change), until none fails; then it moves each point to its best split and
// tests again, until the points stay where they are.
func (d *detector) prune(idx []int) []ChangePoint {
	for range 4 * (len(idx) + 1) { // each round removes a point or moves one; bounded all the same
		cps := make([]ChangePoint, len(idx))
		worst, moved := -1, false
		for j, k := range idx {
			lo, hi := 0, len(d.med)
			if j > 0 {
				lo = idx[j-1]
			}
			if j+1 < len(idx) {
				hi = idx[j+1]
			}
			a, b := max(lo, k-d.opts.Window/2), min(hi, k+d.opts.Window/2)
			best, t := bestSplit(d.med[a:b], d.w[a:b], d.opts.MinSegment)
			if best < 0 { // too few runs between the neighbours for a split
				best, t = k-a, splitStat(d.med[a:b], d.w[a:b], k-a)
			}
			p := d.permutationP(a, b, t, d.opts.Alpha, 2, func(m, w []float64) float64 {
				_, x := bestSplit(m, w, d.opts.MinSegment)
				return x
			})
			moved = moved || a+best != k
			before, after := d.segmentInterval(lo, a+best), d.segmentInterval(a+best, hi)
			cps[j] = ChangePoint{
				Index: a + best, Label: d.series[a+best].Label,
				PValue: p, Statistic: t,
				Before: before, After: after,
				RelativeChange: relativeChange(before.Median, after.Median),
			}
			if d.fails(cps[j]) && (worst < 0 || weaker(cps[j], cps[worst])) {
				worst = j
			}
		}
		switch {
		case worst >= 0:
			idx = slices.Delete(idx, worst, worst+1)
		case !moved:
			return cps
		default:
			for j := range idx {
				idx[j] = cps[j].Index
			}
		}
	}
	return nil
}

func (d *detector) fails(c ChangePoint) bool {
	return c.PValue > d.opts.Alpha || math.Abs(c.RelativeChange) < d.opts.MinRelativeChange
}

// weaker orders failing change points: the larger p-value first, then the smaller change.
func weaker(x, y ChangePoint) bool {
	if x.PValue != y.PValue {
		return x.PValue > y.PValue
	}
	return math.Abs(x.RelativeChange) < math.Abs(y.RelativeChange)
}

// segmentInterval is the median of the run medians of runs [a, b) with its interval.
func (d *detector) segmentInterval(a, b int) stats.Interval {
	return stats.MedianInterval(d.med[a:b])
}

func relativeChange(before, after float64) float64 {
	if before == 0 {
		switch {
		case after > 0:
			return math.Inf(1)
		case after < 0:
			return math.Inf(-1)
		}
		return 0
	}
	return (after - before) / math.Abs(before)
}
