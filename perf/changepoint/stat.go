package changepoint

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/daprperf/daprperf/perf/stats"
	"gonum.org/v1/gonum/stat"
)

// maxWeightRatio caps a run's weight at this many times the typical run's. A run's variance
// from 3 rounds has 2 degrees of freedom, s²/σ² ~ χ²₂/2, whose 5th percentile is 0.051: a
// variance ten times under the typical run's is more likely luck than a quiet run, and one
// run should not outweigh ten.
const maxWeightRatio = 10

// madToSigma turns a median absolute deviation into a standard deviation for normal data,
// 1/Φ⁻¹(3/4) (Rousseeuw & Croux, "Alternatives to the Median Absolute Deviation", JASA
// 88(424), 1993).
const madToSigma = 1.4826

// runWeights returns the inverse-variance weight of each run's median med[i]: 1/(v_i + τ²).
//
// v_i is the variance of run i's median over its n_i rounds: c(n_i)·s_i², with s_i² the
// rounds' sample variance and c(n) = π/(2n), the large-sample variance of a normal sample's
// median over σ² (Stuart & Ord, Kendall's Advanced Theory of Statistics, vol. 1, §10.10), or
// 1/n for n <= 2, where the median is the mean. A run of one value takes the median of the
// other runs' s². v_i is at least the median v over maxWeightRatio (or, when most runs have
// no spread, the smallest v above 0).
//
// τ² is the variance between runs that rounds cannot show (the machine, the build, the
// night). It is estimated from the differences of successive run medians, whose variance
// without change is v_i + v_{i+1} + 2τ²: by the median absolute deviation of the
// differences, which a few steps in the series do not move (the noise estimate of
// Fryzlewicz, "Wild Binary Segmentation for Multiple Change-Point Detection", Annals of
// Statistics 42(6), 2014), τ² = max(0, (1.4826·MAD)²/2 - median v).
//
// With no spread at all (every run's rounds equal, no differences), every weight is 1.
// Weights are in 1/unit²; only their ratios matter to the tests.
func runWeights(series []Point, med []float64) []float64 {
	n := len(series)
	s2 := make([]float64, n) // per-round variance; NaN for a run of one value
	var known []float64
	for i, p := range series {
		s2[i] = math.NaN()
		if len(p.Values) >= 2 {
			s2[i] = stat.Variance(p.Values, nil)
			known = append(known, s2[i])
		}
	}
	pooled := 0.0
	if len(known) > 0 {
		pooled = stats.Median(known)
	}
	v := make([]float64, n)
	for i, p := range series {
		k := len(p.Values)
		if math.IsNaN(s2[i]) {
			s2[i] = pooled
		}
		c := 1 / float64(k)
		if k > 2 {
			c = math.Pi / (2 * float64(k))
		}
		v[i] = c * s2[i]
	}
	typical := stats.Median(v)
	floor := typical / maxWeightRatio
	if floor == 0 { // most runs without spread: the quietest run with some sets the floor
		floor = math.Inf(1)
		for _, x := range v {
			if x > 0 {
				floor = min(floor, x)
			}
		}
	}
	for i := range v {
		v[i] = max(v[i], floor)
	}
	tau2 := 0.0
	if n >= 3 {
		d := make([]float64, n-1)
		for i := range d {
			d[i] = med[i+1] - med[i]
		}
		c := stats.Median(d)
		for i := range d {
			d[i] = math.Abs(d[i] - c)
		}
		sd := madToSigma * stats.Median(d)
		tau2 = max(0, sd*sd/2-typical)
	}
	w := make([]float64, n)
	for i := range w {
		w[i] = 1
		if !math.IsInf(v[i], 1) && v[i]+tau2 > 0 {
			w[i] = 1 / (v[i] + tau2)
		}
	}
	return w
}

// splitStat is the weighted mean-shift statistic of splitting m (weights w) before index k:
// (μR - μL)² / (1/WL + 1/WR), with μ the weighted means and W the weight sums of each side.
// It is the log-likelihood ratio (times 2) of one step at k in a Gaussian mean with variances
// 1/w (Hinkley 1970). 0 <= k <= len(m); an empty side gives 0.
func splitStat(m, w []float64, k int) float64 {
	var wl, sl, wr, sr float64
	for i := range m {
		if i < k {
			wl += w[i]
			sl += w[i] * m[i]
		} else {
			wr += w[i]
			sr += w[i] * m[i]
		}
	}
	return shiftStat(wl, sl, wr, sr)
}

// shiftStat is splitStat from the weight sums (wl, wr) and weighted sums (sl, sr) of the two sides.
func shiftStat(wl, sl, wr, sr float64) float64 {
	if wl <= 0 || wr <= 0 {
		return 0
	}
	diff := sr/wr - sl/wl
	return diff * diff * wl * wr / (wl + wr)
}

// bestSegment returns the segment [i, j) of m (weights w) whose mean differs most from the
// rest's: the largest shiftStat of the runs inside against the runs outside, the statistic of
// circular binary segmentation (Olshen, Venkatraman, Lucito & Wigler, "Circular binary
// segmentation for the analysis of array-based DNA copy number data", Biostatistics 5(4),
// 2004). With i = 0 or j = len(m) it is one split; otherwise a stretch that differs from the
// runs on both sides, such as a regression fixed later, which no single split shows well.
// The inside and each non-empty outside part hold at least minSeg runs; the earliest
// segment wins a tie. It needs len(m) >= 2·minSeg; t is 0 for a constant m.
func bestSegment(m, w []float64, minSeg int, pw, ps []float64) (i, j int, t float64) {
	n := len(m)
	for k := range n {
		pw[k+1] = pw[k] + w[k]
		ps[k+1] = ps[k] + w[k]*m[k]
	}
	wt, st := pw[n], ps[n]
	i, j, t = -1, -1, math.Inf(-1)
	for a := 0; a <= n-minSeg; a++ {
		if a > 0 && a < minSeg {
			continue
		}
		for b := a + minSeg; b <= n; b++ {
			if (b < n && n-b < minSeg) || (a == 0 && b == n) {
				continue
			}
			win, sin := pw[b]-pw[a], ps[b]-ps[a]
			if x := shiftStat(win, sin, wt-win, st-sin); x > t {
				i, j, t = a, b, x
			}
		}
	}
	return i, j, t
}

// bestSplit returns the split k of m (weights w), minSeg <= k <= len(m)-minSeg, with the
// largest splitStat, and that statistic; the earliest k on a tie, -1 when there is none.
func bestSplit(m, w []float64, minSeg int) (int, float64) {
	var wt, st float64
	for i := range m {
		wt += w[i]
		st += w[i] * m[i]
	}
	var wl, sl float64
	bestK, bestT := -1, math.Inf(-1)
	for k := 1; k <= len(m)-minSeg; k++ {
		wl += w[k-1]
		sl += w[k-1] * m[k-1]
		if k >= minSeg {
			if t := shiftStat(wl, sl, wt-wl, st-sl); t > bestT {
				bestK, bestT = k, t
			}
		}
	}
	return bestK, bestT
}

// permutationP is the permutation p-value of statistic t of runs [a, b): (1+c)/(R+1), c the
// permutations of the runs (each median with its weight) whose statistic is at least t
// (Phipson & Smyth 2010). The statistic, of the permuted medians and weights, is the maximum
// over the splits or segments that were searched (bestSplit's or bestSegment's), which
// accounts for the split having been chosen as the best one (Matteson & James 2014, §3.2).
// It stops once the p-value cannot reach level any more, so a p-value above level is a lower
// bound of the full test's. The permutations are drawn from a generator seeded by
// Options.Seed, a, b and kind, so a test does not depend on the tests before it.
func (d *detector) permutationP(a, b int, t, level float64, kind uint64, stat func(m, w []float64) float64) float64 {
	r := d.opts.Permutations
	stop := int(math.Floor(level * float64(r+1))) // c >= stop: p > level
	rng := rand.New(rand.NewPCG(d.opts.Seed, uint64(a)<<42^uint64(b)<<21^kind))
	m := slices.Clone(d.med[a:b])
	w := slices.Clone(d.w[a:b])
	tol := t * (1 - 1e-12) // a permutation that reproduces t counts, despite rounding
	c := 0
	for range r {
		rng.Shuffle(len(m), func(x, y int) {
			m[x], m[y] = m[y], m[x]
			w[x], w[y] = w[y], w[x]
		})
		if stat(m, w) >= tol {
			c++
			if c >= max(stop, 1) {
				return float64(1+c) / float64(r+1)
			}
		}
	}
	return float64(1+c) / float64(r+1)
}
