package charts

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/growth"
)

// versionMarkdown is the README.md of a version directory: one summary row per scenario, each
// linking to the scenario's README.
func versionMarkdown(g versionGroup) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Dapr %s: performance reports\n\n", g.Name)
	links := make([]string, len(g.Scenarios))
	var rows, growth [][]string
	for i, sc := range g.Scenarios {
		rel, err := filepath.Rel(g.Dir, filepath.Join(sc.Dir, "README.md"))
		if err != nil {
			rel = filepath.Join(sc.Dir, "README.md")
		}
		links[i] = fmt.Sprintf("[%s](%s)", sc.Key(), filepath.ToSlash(rel))
		if hasSummary(sc.Report) {
			rows = append(rows, append([]string{links[i]}, summaryCells(sc.Report)...))
		}
		if sc.Report.Growth != nil {
			for _, r := range growthSummaryRows(sc.Report.Growth) {
				growth = append(growth, append([]string{links[i]}, r...))
			}
		}
	}
	if len(rows) > 0 {
		writeTable(&b, append([]string{"scenario"}, summaryHeader()...), "l", rows)
		b.WriteString("\nLatency is the main phase (tester → its sidecar → the app's sidecar → app), median over\n")
		b.WriteString("rounds; overhead is main minus baseline per round, median over rounds; actual QPS is the\n")
		b.WriteString("lowest main phase; CPU is the mean under load, memory the peak RSS.\n")
		for _, sc := range g.Scenarios {
			if len(sc.Report.Rounds) == 0 && hasSummary(sc.Report) {
				b.WriteString("\n" + loadsSummaryNote)
				break
			}
		}
	}
	if len(growth) > 0 {
		if len(rows) > 0 {
			b.WriteString("\n")
		}
		b.WriteString("## Memory growth\n\n")
		writeTable(&b, []string{"scenario", "variant", "sidecar", "RSS first → last (MiB)",
			"slope (KiB per 1,000 requests)", "verdict"}, "llll", growth)
	}
	b.WriteString("\nEach scenario's README has the full tables, verdicts, environment and charts.\n")
	b.WriteString("\n| scenario | rounds | daprd | platform | CPU | date |\n|---|---:|---|---|---|---|\n")
	for i, sc := range g.Scenarios {
		env := sc.Report.Environment
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s |\n", links[i], len(sc.Report.Rounds),
			cell(orNone(env.DaprVersion)), cell(orNone(env.Platform)), cell(cpuText(env)), fmtTime(env.StartTime))
	}
	return b.String()
}

// writeGrowth writes the memory-growth tables: per variant and sidecar, RSS after each round
// and after the idle window, the /metrics series, the slope and the verdict.
func writeGrowth(b *strings.Builder, g *growth.Report) {
	fmt.Fprintf(b, "%s of %s requests, then %.0f s idle. Threshold: %.0f KiB of RSS per 1,000 requests (%s).\n\n",
		plural(g.Rounds, "round"), fmtCount(int64(g.RequestsPerRound)), g.IdleSeconds, g.ThresholdKiBPer1000, g.ThresholdSource)
	for _, v := range g.Variants {
		fmt.Fprintf(b, "- %s: %s (errors: %s)\n", v.Name, orNone(v.Description), fmtCount(v.Errors))
	}
	after := make([]string, 0, g.Rounds+1)
	for i := 0; i <= g.Rounds; i++ {
		after = append(after, fmtCount(int64(i*g.RequestsPerRound)))
	}
	var rows [][]string
	for _, v := range g.Variants {
		for _, sg := range v.Sidecars {
			var load []string
			idle := "n/a"
			for _, r := range sg.Readings {
				mib := fmt.Sprintf("%.1f", float64(r.RSSBytes)/(1<<20))
				if r.Label == "idle" {
					idle = mib
				} else {
					load = append(load, mib)
				}
			}
			series := "off"
			if n := len(sg.Readings); n > 0 && sg.Readings[0].Series >= 0 {
				series = fmt.Sprintf("%s → %s", fmtCount(int64(sg.Readings[0].Series)), fmtCount(int64(sg.Readings[n-1].Series)))
			}
			rows = append(rows, []string{
				cell(v.Name), cell(orNone(sg.Role)), strings.Join(load, " → "), idle, series,
				fmt.Sprintf("%.0f (R² %.2f)", sg.Growth.SlopeKiBPer1000, sg.Growth.R2),
				fmt.Sprintf("%.0f", sg.Growth.TailSlopeKiBPer1000),
				growthVerdict(sg.Growth),
			})
		}
	}
	b.WriteString("\n")
	writeTable(b, []string{"variant", "sidecar", "RSS (MiB) after " + strings.Join(after, ", ") + " requests",
		"RSS after idle (MiB)", "/metrics series", "slope (KiB per 1,000 requests)", "tail slope", "verdict"}, "lll", rows)
}

// growthSummaryRows are the version README's memory-growth cells of g: variant, sidecar,
// RSS first → last, slope and verdict.
func growthSummaryRows(g *growth.Report) [][]string {
	var out [][]string
	for _, v := range g.Variants {
		for _, sg := range v.Sidecars {
			rss := "n/a"
			if n := len(sg.Readings); n > 0 {
				rss = fmt.Sprintf("%.1f → %.1f", float64(sg.Readings[0].RSSBytes)/(1<<20), float64(sg.Readings[n-1].RSSBytes)/(1<<20))
			}
			out = append(out, []string{cell(v.Name), cell(orNone(sg.Role)), rss,
				fmt.Sprintf("%.0f", sg.Growth.SlopeKiBPer1000), growthVerdict(sg.Growth)})
		}
	}
	return out
}

func growthVerdict(g growth.Classification) string {
	if g.GrowsWhenIdle {
		return string(g.Verdict) + ", grows when idle"
	}
	return string(g.Verdict)
}

// summaryHeader names the summary columns, as in Dapr's published report plus the caller's
// sidecar, requests, success and the result.
func summaryHeader() []string {
	return []string{"result", "p50", "p90", "p99", "p99.9", "overhead p50 / p90 / p99",
		"callee sidecar CPU / memory", "caller sidecar CPU / memory",
		"requests", "success", "actual QPS"}
}

// overheadSummaryCell is rep's overhead at summaryOverheads, "+a / +b / +c ms".
func overheadSummaryCell(rep *perf.Report) string {
	ovs := make([]string, 0, 3)
	for _, f := range summaryOverheads() {
		if o, ok := rep.OverheadOf(f); ok {
			ovs = append(ovs, fmtSignedMs(o.MedianSeconds))
		} else {
			ovs = append(ovs, "n/a")
		}
	}
	return strings.Join(ovs, " / ") + " ms"
}

// summaryCells are the summary figures of rep, in summaryHeader's order.
func summaryCells(rep *perf.Report) []string {
	cells := summaryCellsResultLast(rep)
	// The result first, where a reader of a wide table looks first (summaryHeader).
	return append([]string{cells[len(cells)-1]}, cells[:len(cells)-1]...)
}

// summaryCellsResultLast are summaryCells with the result last, as they are derived.
func summaryCellsResultLast(rep *perf.Report) []string {
	if len(rep.Rounds) == 0 {
		return loadsSummaryCells(rep)
	}
	var out []string
	for _, p := range tablePercentiles() {
		out = append(out, latencyCell(phaseQuantile(rep, perf.PhaseMain, p)))
	}
	out = append(out, overheadSummaryCell(rep))
	out = append(out, sidecarCell(rep, roleCalleeSidecar), sidecarCell(rep, roleCallerSidecar))
	requests, errs := mainTotals(rep)
	out = append(out, fmtCount(requests), fmtSuccess(requests, errs))
	if q, ok := lowestActualQPS(rep); ok {
		out = append(out, fmtQPS(q))
	} else {
		out = append(out, "n/a")
	}
	return append(out, resultWord(rep))
}

// loadsSummaryNote says what the summary cells of a run without rounds are.
const loadsSummaryNote = "For a plan without baseline/main rounds (stages, workflow runs, fault phases, delivery, jobs,\n" +
	"reminders) the latency cells name what they are: the service time (iteration duration) over all its\n" +
	"loads merged, the delivery latency, or the trigger or fire lag; it has no overhead; actual QPS is its\n" +
	"lowest load against its target, the lowest closed-loop rate, or the jobs' trigger rate.\n"

func summaryNote(rounds int) string {
	return fmt.Sprintf("Latency is the main phase (tester → its sidecar → the app's sidecar → app), median over %s;\n"+
		"overhead is main minus baseline per round, median over rounds; requests and success are over\n"+
		"the main phases, actual QPS is the lowest main phase; CPU is the mean under load, memory the\n"+
		"peak RSS.\n", plural(rounds, "round"))
}
