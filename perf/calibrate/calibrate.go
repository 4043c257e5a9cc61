// Package calibrate measures what a comparison's verdict does on data whose truth is known:
// how often it calls a change between two sides of one build (A/A: the false-alarm rate), and
// how often it catches a change of known size (a build slowed on purpose: its power).
//
//	runs := []calibrate.Run{...}                 // A/A runs' rounds of one figure
//	c := calibrate.Resample(runs, 6, 1000, report.DefaultChangeRule(), 1)
//	fmt.Println(c.FalseAlarms(), "of", c.N)
//
// The comparisons are real runs' rounds: Real judges each run as it ran; Resample draws rounds
// with replacement from the runs' pooled rounds to make many comparisons of a chosen size, the
// bootstrap of Efron and Tibshirani ("An Introduction to the Bootstrap", 1993, ch. 6), so that
// a rate near 1 % is measured with more than the handful of real runs a machine gives in a
// night. A round keeps its pair (A and B of one round): the drift the interleaving cancels
// stays cancelled in every resampled comparison.
package calibrate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/stats"
)

// Pair is one interleaved round of an A/B run: side A's and side B's value of one figure, in
// the figure's unit.
type Pair struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// Run is one A/B run's rounds of one figure. InjectedDelay is the slowdown build B was given
// (perf.Build.InjectedDelaySeconds, seconds; 0 for an A/A run).
type Run struct {
	ID            string  `json:"id"`
	Pairs         []Pair  `json:"pairs"`
	InjectedDelay float64 `json:"injectedDelaySeconds,omitempty"`
}

// Counts are how many comparisons got each verdict.
type Counts struct {
	N, Regressed, Improved, Same, Undecided int
}

// FalseAlarms is how many comparisons called a change either way: on A/A data, each is false.
func (c Counts) FalseAlarms() int { return c.Regressed + c.Improved }

// Rate is n / c.N; 0 when c.N is 0.
func (c Counts) Rate(n int) float64 {
	if c.N == 0 {
		return 0
	}
	return float64(n) / float64(c.N)
}

func (c *Counts) add(verdict string) {
	c.N++
	switch verdict {
	case perf.VerdictRegressed:
		c.Regressed++
	case perf.VerdictImproved:
		c.Improved++
	case perf.VerdictSame:
		c.Same++
	default:
		c.Undecided++
	}
}

// Comparison is how each resampled comparison is made and judged.
type Comparison struct {
	// Rounds is how many rounds a comparison draws first, >= 1.
	Rounds int
	// Budget, when above Rounds, makes the comparison adaptive as an A/B run is (perf/runner,
	// DAPR_PERF_AB_MAX_ROUNDS): while undecided it draws two more rounds and judges again, up
	// to Budget rounds, each look at report.ABRule(Rounds, Budget)'s Bonferroni-spread
	// confidences. Each figure is simulated as if it alone gated the run.
	Budget int
	// Unpaired judges the drawn rounds' A values and B values as two independent samples
	// (report.UnpairedDifference: Mann–Whitney), as a night is judged against earlier nights;
	// otherwise as paired rounds (report.PairedDifference: the sign test), as an A/B run is.
	Unpaired bool
	// Shift multiplies every drawn B value by 1 + Shift (0.1: B 10 % higher): a modelled change,
	// used only to find the smallest change detected (MDE); 0 for false alarms and for real
	// slowed runs.
	Shift float64
}

// String names c for a table: "paired, 6 rounds", "paired, 6 to 16 rounds", "unpaired, 6
// against 6".
func (c Comparison) String() string {
	switch {
	case c.Unpaired:
		return fmt.Sprintf("unpaired, %d against %d", c.Rounds, c.Rounds)
	case c.Budget > c.Rounds:
		return fmt.Sprintf("paired, %d to %d rounds", c.Rounds, c.Budget)
	}
	return fmt.Sprintf("paired, %d rounds", c.Rounds)
}

// judge is the verdict on pairs by rule, paired or not (lower is better).
func judge(pairs []Pair, unpaired bool, shift float64, rule perf.ChangeRule) string {
	a, b := make([]float64, len(pairs)), make([]float64, len(pairs))
	for i, p := range pairs {
		a[i], b[i] = p.A, p.B*(1+shift)
	}
	if unpaired {
		return report.UnpairedDifference("figure", "", a, b, false, rule).Verdict
	}
	return report.PairedDifference("figure", "", a, b, false, rule).Verdict
}

// decided says whether a verdict ends an adaptive comparison, by the test the A/B run's own
// stopping rule uses (report.Undecided: anything but undecided).
func decided(v string) bool { return perf.VerdictWord(v) != perf.VerdictUndecided }

// Shift is the change build B shows in runs: the median of every pair's B − A (the figure's
// unit) and that relative to the median of every A (0 when that median is 0). On slowed runs
// it is what the injected delay moved the figure by, the size of the change the detections are
// of; on A/A runs, the two builds' bias. Zero for no pair.
func Shift(runs []Run) (diff, rel float64) {
	var ds, as []float64
	for _, r := range runs {
		for _, p := range r.Pairs {
			ds = append(ds, p.B-p.A)
			as = append(as, p.A)
		}
	}
	if len(ds) == 0 {
		return 0, 0
	}
	diff = stats.Median(ds)
	if a := stats.Median(as); a != 0 {
		rel = diff / a
	}
	return diff, rel
}

// Real judges every run as it ran, all its rounds paired, by rule.
func Real(runs []Run, rule perf.ChangeRule) Counts {
	var c Counts
	for _, r := range runs {
		c.add(judge(r.Pairs, false, 0, rule))
	}
	return c
}

// Resample makes n comparisons as cmp says, every round drawn with replacement from the pooled
// rounds of runs (seeded by seed, so the same inputs give the same counts). A comparison judged
// once uses rule; an adaptive one (cmp.Budget > cmp.Rounds) report.ABRule's. It returns no
// comparison when runs hold no round, or cmp.Rounds or n is below 1.
func Resample(runs []Run, cmp Comparison, n int, rule perf.ChangeRule, seed uint64) Counts {
	var pool []Pair
	for _, r := range runs {
		pool = append(pool, r.Pairs...)
	}
	var c Counts
	if len(pool) == 0 || cmp.Rounds < 1 {
		return c
	}
	total := max(cmp.Rounds, cmp.Budget)
	if cmp.Budget > cmp.Rounds {
		rule = report.ABRule(cmp.Rounds, cmp.Budget)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	draw := make([]Pair, total)
	for range n {
		for i := range draw {
			draw[i] = pool[rng.IntN(len(pool))]
		}
		v := judge(draw[:cmp.Rounds], cmp.Unpaired, cmp.Shift, rule)
		for k := cmp.Rounds; !decided(v) && k < total; {
			k = min(k+2, total)
			v = judge(draw[:k], cmp.Unpaired, cmp.Shift, rule)
		}
		c.add(v)
	}
	return c
}

// MDE is the smallest change, relative and in whole percent from 1 % to 100 %, that cmp (its
// Shift ignored) calls regressed in at least power of n resampled comparisons of runs: the
// minimum detectable effect at that power, in the model of Comparison.Shift (a change that
// moves every round of B alike). It searches by bisection, the power growing with the change;
// ok is false when even 100 % is caught less often than power (as when the rounds are too few
// for an interval at the rule's confidence).
func MDE(runs []Run, cmp Comparison, n int, rule perf.ChangeRule, seed uint64, power float64) (change float64, ok bool) {
	caught := func(pct int) bool {
		cmp.Shift = float64(pct) / 100
		c := Resample(runs, cmp, n, rule, seed)
		return c.N > 0 && c.Rate(c.Regressed) >= power
	}
	if !caught(100) {
		return 0, false
	}
	lo, hi := 0, 100 // caught(hi), and lo is 0 or not caught
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if caught(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return float64(hi) / 100, true
}

// Interval is the Wilson score interval of a rate of x in n at the given confidence (Wilson,
// "Probable inference, the law of succession, and statistical inference", JASA 1927): unlike
// the normal one it stays inside [0, 1] and is fair for a rate near 0, as a false-alarm rate is.
func Interval(x, n int, confidence float64) (low, high float64, err error) {
	if n < 1 || x < 0 || x > n {
		return 0, 0, fmt.Errorf("calibrate: interval of %d in %d: want 0 <= x <= n and n >= 1", x, n)
	}
	if !(confidence > 0 && confidence < 1) {
		return 0, 0, errors.New("calibrate: confidence must lie between 0 and 1")
	}
	z := normalQuantile(1 - (1-confidence)/2)
	p, nn := float64(x)/float64(n), float64(n)
	den := 1 + z*z/nn
	mid := (p + z*z/(2*nn)) / den
	half := z * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn)) / den
	return math.Max(0, mid-half), math.Min(1, mid+half), nil
}

// normalQuantile is the standard normal's quantile at p (0 < p < 1), through the inverse error
// function.
func normalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// RunsOf returns the A/B run rep's rounds of every figure of report.ABFigures, by figure name:
// round i of build A (rep.Rounds) paired with round i of build B (rep.AB.Rounds). It is an
// error when rep is no A/B run.
func RunsOf(rep *perf.Report) (map[string]Run, error) {
	if rep.AB == nil {
		return nil, fmt.Errorf("calibrate: %s/%s run %s is no A/B run (no ab section)", rep.Test, rep.Transport, rep.RunID)
	}
	out := map[string]Run{}
	for _, f := range report.ABFigures() {
		as, bs := f.Pairs(rep.Rounds, rep.AB.Rounds)
		if len(as) == 0 {
			continue
		}
		r := Run{ID: rep.RunID, InjectedDelay: rep.AB.B.InjectedDelaySeconds}
		for i := range as {
			r.Pairs = append(r.Pairs, Pair{A: as[i], B: bs[i]})
		}
		out[f.Name] = r
	}
	return out, nil
}
