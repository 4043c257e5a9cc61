package report

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/daprperf/daprperf/perf"
)

// CompareWithEarlier is the comparison a nightly job makes of one run of a figure (current,
// its per-round values, in unit) with the earlier runs of the same scenario, figure, machine
// and load (earlier, one slice of per-round values per run; the caller leaves out the rest).
//
// The unit of comparison is the run, not the round. Rounds of one run share its machine's
// state that night, and runs differ by more than their rounds show: a machine that is 30 %
// faster one night moves all of that night's rounds together, and a test of pooled rounds
// (Mann–Whitney) takes that for a change of the build, with a false-alarm rate far above its
// nominal one. So each run is its median over rounds, and the night is one more draw of the
// earlier nights' medians m_1..m_n, whose spread holds both the noise of a median and the
// night-to-night drift:
//
//	change = median(current) − mean(m)
//	interval = change ± t(1 − (1 − c)/2; n − 1) · s · √(1 + 1/n)
//
// with s the standard deviation of m: the normal prediction interval for one future
// observation (G. J. Hahn and W. Q. Meeker, "Statistical Intervals: A Guide for
// Practitioners", Wiley, 1991, chapter 4). The decision interval takes c =
// rule.DecideConfidence() and the same interval rule.EquivalenceConfidence(); rule.Verdict
// decides, against A = mean(m), so Change is relative to it and rule.MinChange applies as in
// an A/B run. It assumes the earlier medians scatter about one level, roughly normally; a
// change point before the night is for the caller to cut the earlier runs at.
//
// Fewer than 2 earlier runs (no spread to judge by), or a current run with no values, give
// Verdict undecided with no interval. With few earlier runs the interval is wide (t at 99 %
// with 4 degrees of freedom is 4.6): a history must hold several nights before a night's
// change can be told from the machine's drift; an A/B run, whose builds share every round,
// decides from one night.
func CompareWithEarlier(figure, unit string, current []float64, earlier [][]float64, higherIsBetter bool, rule perf.ChangeRule) perf.Difference {
	var m []float64
	for _, r := range earlier {
		if len(r) > 0 {
			m = append(m, median(r))
		}
	}
	d := perf.Difference{Figure: figure, Unit: unit, HigherIsBetter: higherIsBetter, Margin: rule.Margin, Verdict: perf.VerdictUndecided}
	if len(current) == 0 || len(m) == 0 {
		return d
	}
	d.A, d.B = stat.Mean(m, nil), median(current)
	d.Median = d.B - d.A
	if d.A != 0 {
		d.Change = d.Median / math.Abs(d.A)
	}
	n := float64(len(m))
	if len(m) < 2 {
		return d
	}
	spread := stat.StdDev(m, nil) * math.Sqrt(1+1/n)
	half := func(c float64) float64 {
		return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1-(1-c)/2) * spread
	}
	h := half(rule.DecideConfidence())
	d.Low, d.High, d.Confidence, d.HasInterval = d.Median-h, d.Median+h, rule.DecideConfidence(), true
	h = half(rule.EquivalenceConfidence())
	d.SameLow, d.SameHigh, d.SameConfidence, d.HasSameInterval = d.Median-h, d.Median+h, rule.EquivalenceConfidence(), true
	d.Verdict = rule.Verdict(d)
	return d
}
