package charts

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/stats"
)

// comparison is side A against side B, scenario by scenario.
type comparison struct {
	A, B      string
	SideA     side
	SideB     side
	Opts      compareOptions
	Scenarios []scenarioComparison
	// OnlyA and OnlyB name the scenarios (Key) present on one side only.
	OnlyA, OnlyB []string
	// Regressions name each gating figure that regressed: "<scenario> <figure> (+10.2 %,
	// p=0.002 n=6+6)".
	Regressions []string
	// Undecided counts the figures left undecided.
	Undecided int
}

// scenarioComparison is one scenario present on both sides.
type scenarioComparison struct {
	Key  string
	A, B scenario
	Rows []compareRow
	// Profiles are the sidecars' profile differences, B − A, when both runs read profiles
	// (DAPR_PERF_PROFILES); ProfileWarnings what of them could not be read.
	Profiles        []perf.ProfileDiff
	ProfileWarnings []string
}

// compareRow is one line of a comparison table: the cells, formatted, and the verdict.
type compareRow struct {
	// Interval is the decision interval of the change, relative to A: "[+8.1 %, +12.0 %]".
	Figure, A, B, Change, Interval, Test, Verdict string
	// Gates is set when the figure's regressions fail the comparison.
	Gates bool
}

// compareFigure is a figure compared between two reports, round by round.
type compareFigure struct {
	Name string
	// Samples are the figure's per-round values, in its unit; empty when the report lacks it.
	Samples func(*perf.Report) []float64
	// HigherIsBetter is true for throughput, false for latency, CPU and memory.
	HigherIsBetter bool
	// Format writes a value for a cell; Signed a difference or an overhead.
	Format func(float64) string
}

// compareFigures lists the compared figures, in table order: main latency p50/p90/p99 and
// mean, overhead p50/p90/p99 (per round: main minus baseline), the sidecars' mean CPU and peak
// RSS per main phase, and the actual QPS of each main phase.
func compareFigures() []compareFigure {
	ms := func(s float64) string { return fmt.Sprintf("%.3f ms", s*1e3) }
	signedMs := func(s float64) string { return fmtSignedMs(s) + " ms" }
	var out []compareFigure
	for _, p := range []float64{50, 90, 99} {
		out = append(out, compareFigure{
			Name: "latency " + perf.PercentileName(p) + " (main)",
			Samples: func(r *perf.Report) []float64 {
				var xs []float64
				for _, rd := range r.Rounds {
					if d, err := rd.Main.Percentile(p); err == nil {
						xs = append(xs, d.Seconds())
					}
				}
				return xs
			},
			Format: ms,
		})
	}
	out = append(out, compareFigure{
		Name: "latency mean (main)",
		Samples: func(r *perf.Report) []float64 {
			var xs []float64
			for _, rd := range r.Rounds {
				xs = append(xs, rd.Main.Latency.AvgSeconds)
			}
			return xs
		},
		Format: ms,
	})
	for _, f := range summaryOverheads() {
		out = append(out, compareFigure{
			Name: "overhead " + f,
			Samples: func(r *perf.Report) []float64 {
				o, _ := r.OverheadOf(f)
				return o.PerRoundSeconds
			},
			Format: signedMs,
		})
	}
	for _, s := range []struct{ name, role string }{
		{"callee sidecar", roleCalleeSidecar},
		{"caller sidecar", roleCallerSidecar},
	} {
		out = append(out,
			compareFigure{
				Name:    s.name + " CPU",
				Samples: perRoundSeries(s.role, func(x perf.Series) float64 { return 1000 * x.MeanCPU() }),
				Format:  func(x float64) string { return fmt.Sprintf("%.0f mCPU", x) },
			},
			compareFigure{
				Name:    s.name + " CPU per request",
				Samples: cpuPerRequest(s.role),
				Format:  func(x float64) string { return fmt.Sprintf("%.0f µs", x) },
			},
			compareFigure{
				Name:    s.name + " memory",
				Samples: perRoundSeries(s.role, func(x perf.Series) float64 { return float64(x.PeakRSS()) / (1 << 20) }),
				Format:  func(x float64) string { return fmt.Sprintf("%.1f MiB", x) },
			})
	}
	return append(out, compareFigure{
		Name: "actual QPS (main)",
		Samples: func(r *perf.Report) []float64 {
			var xs []float64
			for _, rd := range r.Rounds {
				xs = append(xs, rd.Main.ActualQPS)
			}
			return xs
		},
		HigherIsBetter: true,
		Format:         fmtQPS,
	})
}

// perRoundSeries is a figure of each main phase's series of the process with role.
func perRoundSeries(role string, value func(perf.Series) float64) func(*perf.Report) []float64 {
	return func(r *perf.Report) []float64 {
		var xs []float64
		for _, rd := range r.Rounds {
			for _, s := range rd.Resources {
				if s.Role == role && len(s.Points) >= 2 {
					xs = append(xs, value(s))
					break
				}
			}
		}
		return xs
	}
}

// cpuPerRequest is, per round, the mean CPU of the process with role over its main phase
// divided by that phase's achieved rate, in µs of one core per request (report.ProcessCosts'
// figure, round by round).
func cpuPerRequest(role string) func(*perf.Report) []float64 {
	return func(r *perf.Report) []float64 {
		var xs []float64
		for _, rd := range r.Rounds {
			for _, s := range rd.Resources {
				if s.Role == role && len(s.Points) >= 2 && rd.Main.ActualQPS > 0 {
					xs = append(xs, 1e6*s.MeanCPU()/rd.Main.ActualQPS)
					break
				}
			}
		}
		return xs
	}
}

func sortedKeys(m map[string]scenario) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// paramDifferences names the load settings that differ between a and b, or "": the load's
// parameters, and the app's own work (Report.AppWork: what the target app does for each
// request, which the same load measures differently when it changes).
func paramDifferences(a, b *perf.Report) string {
	pa, pb := a.Params, b.Params
	var d []string
	add := func(name string, x, y any) {
		if x != y {
			d = append(d, fmt.Sprintf("%s %v vs %v", name, x, y))
		}
	}
	add("QPS", pa.QPS, pb.QPS)
	add("connections", pa.Connections, pb.Connections)
	add("duration", pa.Duration, pb.Duration)
	add("payload bytes", pa.PayloadBytes, pb.PayloadBytes)
	add("payload", len(pa.Payload), len(pb.Payload))
	if a.AppWork != b.AppWork {
		d = append(d, fmt.Sprintf("the app's work %q vs %q", orNone(a.AppWork), orNone(b.AppWork)))
	}
	return strings.Join(d, ", ")
}

// compareRows compares every figure of a with b: the medians, their change, the Mann-Whitney
// U test's p (benchmath.AssumeNothing, as benchstat), and the verdict of the two samples
// (report.UnpairedDifference by opts.rule) with its decision interval relative to A.
func compareRows(a, b *perf.Report, opts compareOptions) []compareRow {
	figs := compareFigures()
	out := make([]compareRow, 0, len(figs))
	for _, f := range figs {
		xa, xb := f.Samples(a), f.Samples(b)
		row := compareRow{Figure: f.Name, A: "n/a", B: "n/a", Change: "n/a", Interval: "n/a", Test: "n/a", Verdict: "n/a", Gates: gates(f.Name, opts.Gate)}
		if len(xa) > 0 {
			row.A = medianCell(xa, f.Format, opts.Confidence)
		}
		if len(xb) > 0 {
			row.B = medianCell(xb, f.Format, opts.Confidence)
		}
		if len(xa) == 0 || len(xb) == 0 {
			out = append(out, row)
			continue
		}
		ma, mb := median(xa), median(xb)
		row.Change = changePercent(ma, mb)
		sa := benchmath.NewSample(slices.Clone(xa), &benchmath.DefaultThresholds)
		sb := benchmath.NewSample(slices.Clone(xb), &benchmath.DefaultThresholds)
		cmp := benchmath.AssumeNothing.Compare(sa, sb)
		row.Test = fmt.Sprintf("p=%.3f n=%d+%d", cmp.P, len(xa), len(xb))
		d := report.UnpairedDifference(f.Name, "", xa, xb, f.HigherIsBetter, opts.rule())
		row.Verdict = d.Verdict
		row.Interval = relativeInterval(d)
		out = append(out, row)
	}
	return out
}

// relativeInterval is d's decision interval relative to |A| with its actual confidence:
// "[+8.1 %, +12.0 %] 99.8 %", "(widest) 87.5 %" marking an interval short of the one asked
// for; "n/a" when A is 0.
func relativeInterval(d perf.Difference) string {
	if d.A == 0 {
		return "n/a"
	}
	ref := math.Abs(d.A)
	s := fmt.Sprintf("[%+.1f %%, %+.1f %%] %s", 100*d.Low/ref, 100*d.High/ref, report.ConfidencePct(d.Confidence))
	if !d.HasInterval {
		s += " (widest)"
	}
	return s
}

// gates reports whether figure's regressions count: it starts with one of prefixes, or
// prefixes is empty.
func gates(figure string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(figure, p) {
			return true
		}
	}
	return false
}

// medianCell is the median of xs, with its order-statistics interval at confidence when the
// rounds give one: "1.200 ms [1.150 ms, 1.250 ms]".
func medianCell(xs []float64, format func(float64) string, confidence float64) string {
	iv := stats.MedianIntervalAt(xs, confidence)
	m, lo, hi, ok := iv.Median, iv.Low, iv.High, iv.Method == stats.MethodOrderStatistics
	if !ok {
		return format(m)
	}
	return fmt.Sprintf("%s [%s, %s]", format(m), format(lo), format(hi))
}

// changePercent is (b − a) / |a| as a signed percentage with one decimal: "+20.0 %".
func changePercent(a, b float64) string {
	if a == 0 {
		if b == 0 {
			return "0.0 %"
		}
		return "n/a (from 0)"
	}
	return fmt.Sprintf("%+.1f %%", (b-a)/math.Abs(a)*100)
}

// verdictLine sums a comparison up in one line, with its rule: the decision interval's
// confidence, the minimum change and the margin.
func verdictLine(regressions []string, undecided int, opts compareOptions) string {
	rule := fmt.Sprintf("%g %% interval, minimum change %g %%, margin ± %g %%", 100*(1-opts.Alpha), 100*opts.MinChange, 100*opts.Margin)
	var b strings.Builder
	if len(regressions) == 0 {
		fmt.Fprintf(&b, "No gating figure regressed (%s).", rule)
	} else {
		fmt.Fprintf(&b, "**%s regressed** (%s): %s.", plural(len(regressions), "figure"), rule, strings.Join(regressions, "; "))
	}
	if undecided > 0 {
		fmt.Fprintf(&b, " %s undecided: more rounds may decide.", plural(undecided, "figure"))
	}
	return b.String()
}

// fileSafe makes a name usable in a file name.
func fileSafe(s string) string {
	return strings.NewReplacer("/", "_", string(filepath.Separator), "_", " ", "_").Replace(s)
}
