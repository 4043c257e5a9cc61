package report

import (
	"fmt"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/daprperf/daprperf/perf"

	"github.com/daprperf/daprperf/perf/stats"
)

// A/B runs: two daprd builds in one run. A platform that runs a second build (B) beside every
// sidecar, on the same apps and tester (package local with DAPR_PERF_DAPRD_B), exposes it as
// perf.SideB. The overhead plan then interleaves the builds round by round on the same machine,
//
//	round 1: baseline, main A, main B
//	round 2: baseline, main B, main A
//	...
//
// (A B, then B A, so that neither build always runs second), and reports each side's figures
// and the difference B − A per round: its median and an order-statistics interval of the
// median with its actual confidence (benchmath.AssumeNothing). Machine drift between rounds
// cancels out of a per-round difference, which comparing runs taken at different times cannot
// do.

// Defaults of a comparison: the confidence asked of intervals, and the smallest relative change
// of a median that counts as a regression or an improvement (benchstat shows any significant
// change; a gate needs a floor, and 5 % sits well inside this machine's ±20 % run-to-run drift
// but above what interleaved rounds resolve).
const (
	DefaultConfidence = 0.95
	DefaultMinChange  = 0.05
)

// FinishAB derives build B's figures and the differences once the rounds are in; the report's
// validity then covers both builds, and runner.planChecksPass B's verdicts. A nil ABReport
// does nothing.
func FinishAB(ab *perf.ABReport, rep *perf.Report, thresholds []perf.Threshold) {
	if ab == nil {
		return
	}
	side := &perf.Report{Rounds: ab.Rounds, Exits: rep.Exits}
	DeriveOverhead(side)
	Judge(side, thresholds)
	ab.Overhead, ab.Resources, ab.Verdicts = side.Overhead, side.Resources, side.Verdicts
	ab.Validity = perf.Validity{Valid: side.Validity.Valid}
	for _, r := range side.Validity.Reasons {
		if strings.Contains(r, " baseline: ") { // the shared baselines are A's rounds' too
			continue
		}
		ab.Validity.Reasons = append(ab.Validity.Reasons, "build B: "+r)
	}
	if !ab.Validity.Valid {
		rep.Validity.Valid = false
		rep.Validity.Reasons = append(rep.Validity.Reasons, ab.Validity.Reasons...)
	}
	ab.Differences = PairedDifferences(rep.Rounds, ab.Rounds, DefaultConfidence, DefaultMinChange)
}

// ABVerdictsPass is true when every one of build B's verdicts that is not WarnOnly passed.
func ABVerdictsPass(ab *perf.ABReport) bool {
	for _, v := range ab.Verdicts {
		if !v.Pass && !v.WarnOnly {
			return false
		}
	}
	return true
}

// PairedDifferences compares the main phases of rounds a and b pairwise (round i of a with
// round i of b; the shorter decides how many): latency at OverheadPercentiles and the mean
// (seconds), mean CPU (cores) and peak RSS (bytes) of the caller's and the callee's sidecar.
// Each gets its per-round B − A, the median with its interval at confidence, and a verdict
// (PairedVerdict with minChange). A figure missing from a round is left out.
func PairedDifferences(a, b []perf.Round, confidence, minChange float64) []perf.Difference {
	n := min(len(a), len(b))
	type figure struct {
		name, unit string
		value      func(perf.Round) (float64, bool)
	}
	var figs []figure
	for _, p := range perf.OverheadPercentiles {
		figs = append(figs, figure{"latency " + perf.PercentileName(p), "s", func(r perf.Round) (float64, bool) {
			d, err := r.Main.Percentile(p)
			return d.Seconds(), err == nil
		}})
	}
	figs = append(figs, figure{"latency mean", "s", func(r perf.Round) (float64, bool) { return r.Main.Latency.AvgSeconds, true }})
	for _, role := range []string{perf.RoleCallerSidecar, perf.RoleCalleeSidecar} {
		series := func(r perf.Round) (perf.Series, bool) {
			for _, s := range r.Resources {
				if s.Role == role && len(s.Points) >= 2 {
					return s, true
				}
			}
			return perf.Series{}, false
		}
		figs = append(figs,
			figure{role + " CPU", "cores", func(r perf.Round) (float64, bool) {
				s, ok := series(r)
				return s.MeanCPU(), ok
			}},
			figure{role + " memory", "bytes", func(r perf.Round) (float64, bool) {
				s, ok := series(r)
				return float64(s.PeakRSS()), ok
			}})
	}
	var out []perf.Difference
	for _, f := range figs {
		var as, bs, diffs []float64
		for i := range n {
			va, okA := f.value(a[i])
			vb, okB := f.value(b[i])
			if !okA || !okB {
				continue
			}
			as, bs, diffs = append(as, va), append(bs, vb), append(diffs, vb-va)
		}
		if len(diffs) == 0 {
			continue
		}
		d := perf.Difference{Figure: f.name, Unit: f.unit, A: median(as), B: median(bs), PerRound: diffs}
		iv := stats.MedianIntervalAt(diffs, confidence)
		d.Median, d.Low, d.High, d.Confidence, d.HasInterval = iv.Median, iv.Low, iv.High, iv.Confidence, iv.Method == stats.MethodOrderStatistics
		if d.A != 0 {
			d.Change = d.Median / math.Abs(d.A)
		}
		d.Verdict = perf.PairedVerdict(d, minChange)
		out = append(out, d)
	}
	return out
}

// FormatValue writes v, in base unit ("s", "cores" or "bytes"), for tables: seconds as ms with
// 3 decimals, cores as millicores with 0 and bytes as MiB with 1; signed adds a sign. The units
// of files written before the base units ("mCPU", "MiB") print as they are.
func FormatValue(v float64, unit string, signed bool) string {
	f := map[string]string{"s": "%.3f ms", "cores": "%.0f mCPU", "bytes": "%.1f MiB", "mCPU": "%.0f mCPU", "MiB": "%.1f MiB"}[unit]
	if f == "" {
		f = "%.4g " + unit
	}
	switch unit {
	case "s", "cores":
		v *= 1e3
	case "bytes":
		v /= 1 << 20
	}
	if signed {
		f = "%+" + f[1:]
	}
	return fmt.Sprintf(f, v)
}

// abTable renders the A/B part of a summary: per figure A, B, the median B − A with its
// interval and confidence, the change and the verdict.
func abTable(b *strings.Builder, r *perf.Report) {
	ab := r.AB
	fmt.Fprintf(b, "A/B: A = daprd %s (%s), B = daprd %s (%s); %d interleaved round(s), order %s\n",
		ab.A.Version, OrUnknown(ab.A.Daprd), ab.B.Version, OrUnknown(ab.B.Daprd), len(ab.Rounds), strings.Join(ab.Order, " "))
	b.WriteString(DifferenceTable(ab.Differences))
}

// DifferenceTable renders differences as an aligned text table.
func DifferenceTable(ds []perf.Difference) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "figure\tA (median)\tB (median)\tB − A (median)\tinterval\tconfidence\tchange\tverdict\t")
	for _, d := range ds {
		iv := fmt.Sprintf("[%s, %s]", FormatValue(d.Low, d.Unit, true), FormatValue(d.High, d.Unit, true))
		conf := fmt.Sprintf("%.1f %%", 100*d.Confidence)
		if !d.HasInterval {
			conf += " (< 95 %)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%+.1f %%\t%s\t\n", d.Figure, FormatValue(d.A, d.Unit, false), FormatValue(d.B, d.Unit, false),
			FormatValue(d.Median, d.Unit, true), iv, conf, 100*d.Change, d.Verdict)
	}
	_ = w.Flush()
	return b.String()
}

func OrUnknown(s string) string {
	if s == "" {
		return "path unknown"
	}
	return s
}
