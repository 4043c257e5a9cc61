package charts

import (
	"fmt"
	"slices"
	"strings"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// writeCurve writes a cost curve run's section: the highest rate within the bound first (the
// searches' answers and spread, and how a search steps), then a row per offered rate with the
// medians over its rounds and each process's CPU per request with its interval and peak RSS,
// then each search's steps. Nothing for a report without a curve.
func writeCurve(b *strings.Builder, rep *perf.Report) {
	c := rep.Curve
	if c == nil {
		return
	}
	b.WriteString("\n## Cost curve\n\n")
	invalidNote(b, rep)
	if rates, median, spread, ok := report.CurveHighest(c); ok {
		fmt.Fprintf(b, "**Highest rate within the bound: %.0f requests/s**, the median of %d searches (%s; spread %.1f %%). ",
			median, len(rates), joinInts(rates, " and "), 100*spread)
	}
	fmt.Fprintf(b, "A load keeps the bound when its response-time p99 is at most %.1f ms, it has no error and it kept %.0f %% of its rate (%s).",
		1e3*c.Bound.P99Seconds, 100*c.Bound.KeptRatio, c.Bound.Source)
	if c.Search != "" {
		fmt.Fprintf(b, " Each search steps %s.", c.Search)
	}
	b.WriteString("\n\n")
	pts := report.CurvePoints(rep)
	var procs []string
	for _, p := range pts {
		for _, cp := range p.CPU {
			if !slices.Contains(procs, cp.Role) {
				procs = append(procs, cp.Role)
			}
		}
	}
	header := []string{"offered", "achieved", "kept the bound", "p50", "p90", "p99", "response p99", "errors"}
	for _, role := range procs {
		header = append(header, role+" CPU per request, peak RSS")
	}
	var rows [][]string
	for _, p := range pts {
		row := []string{fmt.Sprintf("%d/s", p.OfferedQPS), fmtQPS(p.AchievedQPS) + "/s", fmt.Sprintf("%d of %d", p.Passed, p.Rounds),
			fmtMs(p.P50), fmtMs(p.P90), fmtMs(p.P99), fmtMs(p.ResponseP99), fmtCount(p.Errors)}
		for _, role := range procs {
			v := "-"
			for _, cp := range p.CPU {
				if cp.Role == role {
					v = fmt.Sprintf("%.0f µs [%.0f, %.0f], %.1f MiB", cp.Micros(), 1e6*cp.Low, 1e6*cp.High, float64(cp.PeakRSSBytes)/(1<<20))
				}
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	writeTable(b, header, "lrlrrrrr", rows)
	b.WriteString("\nLatency is through both sidecars (tester → its daprd → the app's daprd → app), the median over each rate's rounds; " +
		"CPU per request is a process's mean CPU over a round divided by the round's achieved rate, in µs of one core, the median over the rounds " +
		"with its order-statistics interval (the rounds' range below 6 of them).\n")
	if c.Stopped != "" {
		fmt.Fprintf(b, "\nStopped: %s.\n", c.Stopped)
	}
	for i, s := range c.Searches {
		var steps []string
		for _, st := range s.Steps {
			word := "kept"
			if !st.Pass {
				word = "missed (" + st.Why + ")"
			}
			steps = append(steps, fmt.Sprintf("%d/s %s", st.OfferedQPS, word))
		}
		fmt.Fprintf(b, "\nSearch %d: %s. %s.\n", i+1, cell(strings.Join(steps, ", ")), s.Reason)
	}
}

// fmtMs writes seconds as milliseconds with 3 decimals.
func fmtMs(s float64) string { return fmt.Sprintf("%.3f ms", 1e3*s) }

func joinInts(xs []int, sep string) string {
	var out []string
	for _, x := range xs {
		out = append(out, fmt.Sprint(x))
	}
	return strings.Join(out, sep)
}
