package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/growth"
	"github.com/daprperf/daprperf/perf/report"
)

// referenceCPUs is the vCPU count of the nodes behind Dapr's published figures.
const referenceCPUs = 8

// image is a chart embedded in a README: File relative to the README, Title its alt text, PNG
// its bytes (embedded in the HTML report).
type image struct {
	File, Title string
	PNG         []byte
	// SVG is set instead of PNG for a drawing in SVG (a flame graph).
	SVG []byte
}

// scenarioMarkdown is the README.md of one scenario directory: the tables of rep and the
// images, linked relative to that directory.
func scenarioMarkdown(rep *perf.Report, images []image) string {
	return scenarioMarkdownWith(rep, images, "", nil)
}

// scenarioMarkdownWith is scenarioMarkdown with a section that sets it beside prev, the same
// scenario published for the version prevName before it (writeAgainstPrevious; none when prev
// is nil).
func scenarioMarkdownWith(rep *perf.Report, images []image, prevName string, prev *perf.Report) string {
	var b strings.Builder
	env := rep.Environment
	fmt.Fprintf(&b, "# %s over %s, Dapr %s\n\n", rep.Test, transportName(rep.Transport), orNone(env.DaprVersion))
	fmt.Fprintf(&b, "Result: **%s**. %s\n", resultWord(rep), resultSentence(rep))
	if f := report.Finding(rep); f != "" {
		fmt.Fprintf(&b, "\n**Finding:** %s\n", f)
	}
	if rep.Preflight != nil {
		fmt.Fprintf(&b, "\nLoad: %s.\n", rep.Preflight.Note)
	}

	if len(rep.Rounds) == 0 && hasSummary(rep) {
		b.WriteString("\n")
		writeTable(&b, append([]string{"transport"}, summaryHeader()...), "l",
			[][]string{append([]string{string(rep.Transport)}, summaryCells(rep)...)})
		fmt.Fprintf(&b, "\n%s", loadsSummaryNote)
		writeLoadsTables(&b, rep)
		b.WriteString("\n## Resources\n\n")
		invalidNote(&b, rep)
		writeResourcesTable(&b, rep)
	}

	if len(rep.Rounds) > 0 {
		b.WriteString("\n")
		writeTable(&b, append([]string{"transport"}, summaryHeader()...), "l",
			[][]string{append([]string{string(rep.Transport)}, summaryCells(rep)...)})
		fmt.Fprintf(&b, "\n%s", summaryNote(len(rep.Rounds)))

		b.WriteString("\n## Latency\n\n")
		invalidNote(&b, rep)
		writeLatencyTable(&b, rep)

		b.WriteString("\n## Load (main phase)\n\n")
		invalidNote(&b, rep)
		writeLoadTable(&b, rep)

		b.WriteString("\n## Rounds\n\n")
		invalidNote(&b, rep)
		writeRoundsTable(&b, rep)

		b.WriteString("\n## Resources (main phases)\n\n")
		invalidNote(&b, rep)
		writeResourcesTable(&b, rep)
	}

	if rep.Growth != nil {
		b.WriteString("\n## Memory growth\n\n")
		invalidNote(&b, rep)
		writeGrowth(&b, rep.Growth)
	}
	writeCurve(&b, rep)
	writeFaultAndHosts(&b, rep)
	writeProfiles(&b, rep)
	writeAgainstPrevious(&b, rep, prevName, prev)
	writeWarnings(&b, rep)

	b.WriteString("\n## Verdicts\n\n")
	if len(rep.Verdicts) == 0 {
		b.WriteString("No verdicts recorded.\n")
	}
	for _, v := range rep.Verdicts {
		fmt.Fprintf(&b, "- %s\n", v.String())
	}

	b.WriteString("\n## Validity\n\n")
	if rep.Validity.Valid {
		b.WriteString("Valid: the load kept to its schedule in every phase.\n")
	} else {
		b.WriteString("**Invalid**: the run cannot pass.\n")
		if len(rep.Validity.Reasons) == 0 {
			b.WriteString("\n- no reason recorded\n")
		} else {
			b.WriteString("\n")
		}
		for _, r := range rep.Validity.Reasons {
			fmt.Fprintf(&b, "- %s\n", r)
		}
	}

	b.WriteString("\n## Unexpected exits and restarts\n\n")
	if len(rep.Exits) == 0 {
		b.WriteString("None.\n")
	}
	for _, e := range rep.Exits {
		fmt.Fprintf(&b, "- %s at %s: %s (restarts: %d)\n", e.Process, fmtTime(e.At), e.Reason, e.Restarts)
	}

	b.WriteString("\n## Environment\n\n")
	writeEnvironment(&b, rep)

	if note := noTimelineNote(rep); len(images) > 0 || note != "" {
		b.WriteString("\n## Charts\n")
		if note != "" {
			fmt.Fprintf(&b, "\n%s\n", note)
		}
		for _, im := range images {
			fmt.Fprintf(&b, "\n![%s](%s)\n", im.Title, filepath.ToSlash(im.File))
		}
	}
	return b.String()
}

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

func writeLatencyTable(b *strings.Builder, rep *perf.Report) {
	ps := tablePercentiles()
	header := []string{""}
	for _, p := range ps {
		header = append(header, perf.PercentileName(p))
	}
	row := func(name, phase string) []string {
		r := []string{name}
		for _, p := range ps {
			r = append(r, latencyCell(phaseQuantile(rep, phase, p)))
		}
		return r
	}
	respRow := func(name, phase string) ([]string, bool) {
		r, any := []string{name}, false
		for _, p := range ps {
			d, ok := phaseResponseQuantile(rep, phase, p)
			r, any = append(r, latencyCell(d, ok)), any || ok
		}
		return r, any
	}
	interval := len(rep.Overhead) > 0
	for _, o := range rep.Overhead {
		interval = interval && o.HasInterval
	}
	ovName := "overhead (single run: no interval)"
	if interval {
		ovName = "overhead [" + rep.Overhead[0].IntervalLabel() + "]"
	} else if len(rep.Rounds) > 1 {
		ovName = "overhead (no interval recorded)"
	}
	ov := []string{ovName}
	for _, p := range ps {
		o, ok := rep.OverheadOf(perf.PercentileName(p))
		ov = append(ov, overheadCell(o, ok))
	}
	rows := [][]string{
		row("baseline (tester → app)", perf.PhaseBaseline),
		row("main (through both sidecars)", perf.PhaseMain),
		ov,
	}
	response := false
	for _, ph := range []struct{ name, phase string }{{"baseline, response time", perf.PhaseBaseline}, {"main, response time", perf.PhaseMain}} {
		if r, ok := respRow(ph.name, ph.phase); ok {
			rows, response = append(rows, r), true
		}
	}
	writeTable(b, header, "l", rows)
	fmt.Fprintf(b, "\nMedians over %s.", plural(len(rep.Rounds), "round"))
	if interval {
		b.WriteString(" The overhead interval is distribution-free: order statistics of the rounds, with the confidence it" +
			" actually has (" + rep.Overhead[0].IntervalLabel() + "; 6 rounds or more reach 95 %).")
	}
	if response {
		b.WriteString(" Latency is service time, timed from each request's send; the response-time rows time each request from its intended start on the schedule, so a load that fell behind shows it there (coordinated omission).")
	} else {
		b.WriteString(" Latency is service time, timed from each request's send (the loads have no response time: a closed loop, or an older file).")
	}
	b.WriteString("\n")
}

func writeLoadTable(b *strings.Builder, rep *perf.Report) {
	p := rep.Params
	requests, errs := mainTotals(rep)
	payload := fmt.Sprintf("%s bytes", fmtCount(int64(p.PayloadBytes)))
	if p.Payload != "" {
		payload = "literal payload"
	}
	pacing := "fixed rate; a late request is sent when its connection is free, timed from its slot"
	rows := [][]string{
		{"target QPS", fmtCount(int64(p.QPS))},
		{"connections", fmtCount(int64(p.Connections))},
		{"payload", payload},
		{"duration per phase", p.Duration.String()},
		{"pacing", pacing},
		{"latency recording", latencyRecording(rep)},
		{"rounds (baseline and main interleaved)", strconv.Itoa(len(rep.Rounds))},
		{"requests (main phases)", fmtCount(requests)},
		{"errors (main phases)", fmtCount(errs)},
		{"success", fmtSuccess(requests, errs)},
	}
	if q, ok := lowestActualQPS(rep); ok {
		rows = append(rows, []string{"actual QPS (lowest main phase)", fmtQPS(q)})
	}
	writeTable(b, []string{"", "value"}, "ll", rows)
}

// latencyRecording says how the run's latencies were recorded.
func latencyRecording(rep *perf.Report) string {
	for _, rd := range rep.Rounds {
		if d := rd.Main.Latency.SignificantDigits; d > 0 {
			return fmt.Sprintf("every request, HDR histogram, %d significant digits", d)
		}
	}
	return "fortio histogram, percentiles interpolated in its buckets (older result file)"
}

func writeRoundsTable(b *strings.Builder, rep *perf.Report) {
	short := []float64{50, 90, 99}
	triple := func(r perf.Result) string {
		var parts []string
		for _, p := range short {
			d, err := r.Percentile(p)
			if err != nil {
				parts = append(parts, "n/a")
				continue
			}
			parts = append(parts, fmt.Sprintf("%.3f", d.Seconds()*1e3))
		}
		return strings.Join(parts, " / ") + " ms"
	}
	rows := make([][]string, 0, len(rep.Rounds))
	for i := range rep.Rounds {
		rd := &rep.Rounds[i]
		rows = append(rows, []string{
			strconv.Itoa(i + 1),
			triple(rd.Baseline),
			triple(rd.Main),
			fmtCount(rd.Main.Requests),
			fmtCount(rd.Main.Errors()),
			fmtQPS(rd.Baseline.ActualQPS) + " / " + fmtQPS(rd.Main.ActualQPS),
			fmt.Sprintf("%.2f %%", rd.Main.Schedule.BehindFraction()*100),
			roundValidity(rep, i+1),
		})
	}
	writeTable(b, []string{"round", "baseline p50 / p90 / p99", "main p50 / p90 / p99",
		"main requests", "main errors", "actual QPS baseline / main", "main behind schedule", "validity"}, "l", rows)
}

// roundValidity is "valid", or "INVALID (baseline, main)" naming the phases of round n that
// the report's validity reasons name ("round 2 main: ...").
func roundValidity(rep *perf.Report, n int) string {
	var phases []string
	for _, r := range rep.Validity.Reasons {
		for _, ph := range []string{"baseline", "main"} {
			if strings.HasPrefix(r, fmt.Sprintf("round %d %s:", n, ph)) && !slices.Contains(phases, ph) {
				phases = append(phases, ph)
			}
		}
	}
	if len(phases) == 0 {
		return "valid"
	}
	return "INVALID (" + strings.Join(phases, ", ") + ")"
}

// invalidNote starts every table section of an invalid run, so that no table of it is read
// as a valid measurement.
func invalidNote(b *strings.Builder, rep *perf.Report) {
	if !rep.Validity.Valid {
		b.WriteString("**INVALID RUN**: not measured on schedule (see Validity); these figures cannot pass.\n\n")
	}
}

func writeResourcesTable(b *strings.Builder, rep *perf.Report) {
	if len(rep.Resources) == 0 {
		b.WriteString("No resources recorded.\n")
		return
	}
	rows := make([][]string, 0, len(rep.Resources))
	for _, r := range rep.Resources {
		if r.NoReadings() {
			rows = append(rows, []string{cell(r.Process), cell(orNone(r.Role)), "no readings", "no readings", "n/a", "n/a"})
			continue
		}
		rows = append(rows, []string{
			cell(r.Process), cell(orNone(r.Role)),
			fmt.Sprintf("%.0f", 1e3*r.MeanCPUCores),
			fmt.Sprintf("%.1f", float64(r.PeakRSSBytes)/(1<<20)),
			fmt.Sprintf("%+.1f KiB/s (R² %.2f)", r.RSSSlopeBytesPerSecond/1024, r.RSSSlopeR2),
			cell(memoryVerdict(r)),
		})
	}
	writeTable(b, []string{"process", "role", "mean CPU (mCPU)", "peak RSS (MiB)", "RSS slope, last main phase", "memory"}, "ll", rows)
	writeCostTable(b, rep)
}

// memoryVerdict is a process's memory classification over the run (growth.Classification):
// its verdict with its slope per 1,000 requests, or why there is none (GrowthNote).
func memoryVerdict(r perf.ResourceSummary) string {
	if r.Growth.Verdict == "" {
		return orNone(r.GrowthNote)
	}
	return fmt.Sprintf("%s (%+.0f KiB per 1,000 requests)", r.Growth.Verdict, r.Growth.SlopeKiBPer1000)
}

// writeCostTable writes the sidecar cost per request (perf.Figures.Cost): each sidecar's and
// the app's CPU µs per request, which is also its mCPU per 1,000 requests/s, and peak RSS, with
// their ratio to the app's. Nothing when the run has no cost (no main-phase rate, no readings).
func writeCostTable(b *strings.Builder, rep *perf.Report) {
	figures := rep.Figures
	if figures == nil {
		f := report.DeriveFigures(rep)
		figures = &f
	}
	if len(figures.Cost) == 0 {
		return
	}
	ratio := func(x *float64) string {
		if x == nil {
			return "–"
		}
		return fmt.Sprintf("%.2f×", *x)
	}
	rows := make([][]string, 0, len(figures.Cost))
	for _, c := range figures.Cost {
		rows = append(rows, []string{cell(c.Process), cell(orNone(c.Role)),
			fmt.Sprintf("%.1f", c.CPUMicrosPerRequest()), ratio(c.CPURatioToApp),
			fmt.Sprintf("%.1f", float64(c.PeakRSSBytes)/(1<<20)), ratio(c.RSSRatioToApp)})
	}
	fmt.Fprintf(b, "\nCost per request at %.2f requests/s (the main phases' achieved rate, median over rounds): mean CPU\n"+
		"divided by that rate, our own derivation from the measured means. CPU µs per request is also the mCPU the\n"+
		"process needs per 1,000 requests/s.\n\n", figures.Cost[0].RequestsPerSecond)
	writeTable(b, []string{"process", "role", "CPU µs per request (= mCPU per 1,000 req/s)", "CPU vs app", "peak RSS (MiB)", "RSS vs app"}, "ll", rows)
}

func writeEnvironment(b *strings.Builder, rep *perf.Report) {
	env := rep.Environment
	rows := [][]string{{"daprd", cell(orNone(env.DaprVersion))}}
	if m := report.ChangedModulesText(env.Daprd); m != "" {
		rows = append(rows, []string{"daprd's dependencies at other versions than its go.mod's", cell(m)})
	}
	if rep.AppWork != "" {
		rows = append(rows, []string{"the app's own work per request", cell(rep.AppWork)})
	}
	if rep.Load != nil {
		rows = append(rows, []string{"load", cell(strings.TrimPrefix(rep.Load.String(), "load: "))})
	}
	if env.MTLS != nil {
		rows = append(rows, []string{"mTLS", map[bool]string{true: "on (sentry)", false: "off"}[*env.MTLS]})
	}
	for _, bk := range env.Backends {
		rows = append(rows, []string{"backend " + string(bk.Backend), cell(orNone(bk.Version))})
	}
	rows = append(rows, [][]string{
		{"platform", cell(orNone(env.Platform))},
		{"CPU", cell(cpuText(env))},
		{"host memory, kernel", cell(hostText(env))},
		{"Go", cell(orNone(env.GoVersion))},
		{"daprperf commit", cell(orNone(env.DaprperfCommit))},
		{"date", fmtTime(env.StartTime)},
		{"run", cell(orNone(rep.RunID))},
	}...)
	writeTable(b, []string{"", ""}, "ll", rows)
	if env.CPUs > 0 && env.CPUs < referenceCPUs {
		fmt.Fprintf(b, "\nMeasured on %s shared by the tester, both sidecars and the app; Dapr's published\n"+
			"figures come from Kubernetes nodes with %d vCPUs. Compare shapes and ratios, not absolute latency.\n",
			plural(env.CPUs, "CPU"), referenceCPUs)
	}
}

// hostText is the machine's memory and kernel release, or "n/a" in files written before them.
func hostText(env perf.Environment) string {
	var parts []string
	if env.HostMemoryBytes > 0 {
		parts = append(parts, fmt.Sprintf("%.1f GiB", float64(env.HostMemoryBytes)/(1<<30)))
	}
	if env.KernelRelease != "" {
		parts = append(parts, "Linux "+env.KernelRelease)
	}
	if len(parts) == 0 {
		return "n/a"
	}
	return strings.Join(parts, ", ")
}

// compareMarkdown is the Markdown of comparison c, written to dir: links to the chart file and
// to the scenarios' READMEs (or result files, for runs without charts) are relative to dir.
func compareMarkdown(c comparison, dir, chartFile, multiplesFile string) string {
	var b strings.Builder
	o := c.Opts
	fmt.Fprintf(&b, "# %s vs %s\n\n", c.A, c.B)
	fmt.Fprintf(&b, "%s: %s %s; %s: %s %s.\n\n", c.A, c.SideA.Kind, relTo(dir, c.SideA.Path), c.B, c.SideB.Kind, relTo(dir, c.SideB.Path))
	fmt.Fprintf(&b, "Each side is the median over its rounds, with the order-statistics interval of the median at %g %% when\n", 100*o.Confidence)
	b.WriteString("the rounds give one (6 rounds or more at 95 %). Change is the change of the medians; the U test is a\n")
	b.WriteString("Mann-Whitney U test of the per-round values (golang.org/x/perf/benchmath, as benchstat), its p and the\n")
	b.WriteString("rounds on each side. The interval is that of the Hodges–Lehmann shift B − A, relative to A's median,\n")
	b.WriteString("from the Mann-Whitney distribution, with its actual confidence (\"widest\": the rounds give none at the\n")
	b.WriteString("confidence asked for).\n")
	b.WriteString(report.RuleLine(o.rule()) + "\n")
	if len(o.Gate) > 0 {
		fmt.Fprintf(&b, "Only figures starting with %s gate.\n", strings.Join(o.Gate, ", "))
	}
	if chartFile != "" {
		fmt.Fprintf(&b, "\n![Overhead p50, p90, p99: %s vs %s](%s)\n", c.A, c.B, filepath.ToSlash(chartFile))
	}
	if multiplesFile != "" {
		fmt.Fprintf(&b, "\n![Every scenario's overhead p90, sidecar CPU per request and peak RSS: %s vs %s, with the verdicts](%s)\n", c.A, c.B, filepath.ToSlash(multiplesFile))
	}
	for _, s := range c.Scenarios {
		fmt.Fprintf(&b, "\n## %s\n\n", s.Key)
		fmt.Fprintf(&b, "Reports: %s, %s.\n\n", readmeLink(c.A, dir, s.A), readmeLink(c.B, dir, s.B))
		fmt.Fprintf(&b, "%s: %s, %s. %s: %s, %s.\n", c.A, measuredLine(s.A.Report), envLine(s.A.Report),
			c.B, measuredLine(s.B.Report), envLine(s.B.Report))
		if d := envDifferences(s.A.Report, s.B.Report); d != "" {
			fmt.Fprintf(&b, "\n**The environments differ** (%s): compare with care.\n", d)
		}
		b.WriteString("\n")
		if s.A.Report.Growth != nil && s.B.Report.Growth != nil {
			writeGrowthComparison(&b, c.A, c.B, s.A.Report.Growth, s.B.Report.Growth)
			continue
		}
		fmt.Fprintf(&b, "Validity: %s %s; %s %s.\n\n", c.A, validityText(s.A.Report), c.B, validityText(s.B.Report))
		rows := make([][]string, 0, len(s.Rows))
		for _, r := range s.Rows {
			verdict := r.Verdict
			if r.Verdict == perf.VerdictRegressed {
				verdict = "**" + verdict + "**"
				if !r.Gates {
					verdict += " (not gating)"
				}
			}
			rows = append(rows, []string{r.Figure, r.A, r.B, r.Change, r.Interval, r.Test, verdict})
		}
		writeTable(&b, []string{"figure", c.A, c.B, "change", "interval of the change", "U test", "verdict"}, "lrrrrrl", rows)
		if len(s.Profiles) > 0 || len(s.ProfileWarnings) > 0 {
			fmt.Fprintf(&b, "\nProfiles, %s against %s (A = %s, B = %s; docs/method.md#profiles):\n\n```\n%s", c.B, c.A, c.A, c.B, report.ProfileDiffText(s.Profiles))
			for _, w := range s.ProfileWarnings {
				b.WriteString("WARNING: " + w + "\n")
			}
			b.WriteString("```\n")
		}
	}
	if len(c.OnlyA) > 0 {
		fmt.Fprintf(&b, "\nOnly in %s: %s.\n", c.A, strings.Join(c.OnlyA, ", "))
	}
	if len(c.OnlyB) > 0 {
		fmt.Fprintf(&b, "\nOnly in %s: %s.\n", c.B, strings.Join(c.OnlyB, ", "))
	}
	fmt.Fprintf(&b, "\n%s\n", verdictLine(c.Regressions, c.Undecided, o))
	return b.String()
}

// relTo is path relative to dir when it can be, with forward slashes.
func relTo(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil {
		path = rel
	}
	return filepath.ToSlash(path)
}

// readmeLink links to the README.md next to sc's result file, relative to dir, or to the
// result file itself when there is no README (a run whose charts were not drawn).
func readmeLink(text, dir string, sc scenario) string {
	path := filepath.Join(sc.Dir, "README.md")
	if _, err := os.Stat(path); err != nil {
		path = sc.Path
	}
	return fmt.Sprintf("[%s](%s)", text, relTo(dir, path))
}

func envLine(rep *perf.Report) string {
	env := rep.Environment
	return fmt.Sprintf("daprd %s on %s, %s, %s", orNone(env.DaprVersion), orNone(env.Platform), cpuText(env), fmtTime(env.StartTime))
}

// sittingGap is how far apart two runs' starts may be and still count as one sitting of the
// machine: the nightly runs of reports/measurements.md moved by 30 % or more between sittings
// hours apart, with the same build.
const sittingGap = 2 * time.Hour

// fmtGap is d rounded for a sentence: "3 h", "2 days".
func fmtGap(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%.0f days", d.Hours()/24)
	}
	return fmt.Sprintf("%.0f h", d.Hours())
}

// envDifferences names what differs between the machines of a and b, or "".
func envDifferences(a, b *perf.Report) string {
	var d []string
	ea, eb := a.Environment, b.Environment
	if ea.Platform != eb.Platform {
		d = append(d, "platform")
	}
	if ea.CPUModel != eb.CPUModel || ea.CPUs != eb.CPUs {
		d = append(d, "CPU")
	}
	if a.Params.QPS != b.Params.QPS || a.Params.Connections != b.Params.Connections ||
		a.Params.PayloadBytes != b.Params.PayloadBytes || a.Params.Duration != b.Params.Duration {
		d = append(d, "load parameters")
	}
	if a.AppWork != b.AppWork {
		d = append(d, "the app's work")
	}
	if gap := eb.StartTime.Sub(ea.StartTime).Abs(); !ea.StartTime.IsZero() && !eb.StartTime.IsZero() && gap > sittingGap {
		d = append(d, fmt.Sprintf("sitting: run %s apart, and this machine's speed drifts between sittings as much as "+
			"a version change; an interleaved A/B run (DAPR_PERF_DAPRD_B) tells them apart", fmtGap(gap)))
	}
	return strings.Join(d, ", ")
}

// writeTable writes a Markdown table. align has one letter per column, r for right-aligned
// (figures), anything else for left; missing letters mean right.
func writeTable(b *strings.Builder, header []string, align string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		if i >= len(align) || align[i] == 'r' {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
}

// cell escapes text for a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func latencyCell(d time.Duration, ok bool) string {
	if !ok {
		return "n/a"
	}
	return fmtLatency(d.Seconds())
}

func overheadCell(o perf.Overhead, ok bool) string {
	if !ok {
		return "n/a"
	}
	s := fmtSignedMs(o.MedianSeconds) + " ms"
	if o.HasInterval {
		s += fmt.Sprintf(" [%s, %s]", fmtSignedMs(o.LowSeconds), fmtSignedMs(o.HighSeconds))
	}
	return s
}

func sidecarCell(rep *perf.Report, role string) string {
	r, ok := resourceOf(rep, role)
	if !ok {
		return "n/a"
	}
	if r.NoReadings() {
		return "no readings"
	}
	return fmt.Sprintf("%.0f mCPU / %.1f MiB", 1e3*r.MeanCPUCores, float64(r.PeakRSSBytes)/(1<<20))
}

// fmtLatency writes seconds in ms with 3 decimals below 10 s ("1867.514 ms"), and in seconds
// with 3 decimals from 10 s on ("40.064 s"), where milliseconds stop being read.
func fmtLatency(s float64) string {
	if s >= 10 || s <= -10 {
		return fmt.Sprintf("%.3f s", s)
	}
	return fmt.Sprintf("%.3f ms", s*1e3)
}

// fmtSignedMs formats seconds as signed milliseconds with µs precision: "+1.060".
func fmtSignedMs(s float64) string { return fmt.Sprintf("%+.3f", s*1e3) }

func fmtQPS(q float64) string { return fmt.Sprintf("%.2f", q) }

// fmtSuccess is the share of requests that did not fail, never rounded up to 100 %.
func fmtSuccess(requests, errs int64) string {
	switch {
	case requests == 0:
		return "no requests"
	case errs == 0:
		return "100 %"
	}
	pct := math.Floor((1-float64(errs)/float64(requests))*100*1000) / 1000
	return fmt.Sprintf("%.3f %%", pct)
}

// fmtCount writes n with thousands separators: 60,000.
func fmtCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "not recorded"
	}
	return t.UTC().Format(time.DateTime) + " UTC"
}

func cpuText(env perf.Environment) string {
	switch {
	case env.CPUModel == "" && env.CPUs == 0:
		return "not recorded"
	case env.CPUs == 0:
		return env.CPUModel
	}
	return fmt.Sprintf("%s × %d", orNone(env.CPUModel), env.CPUs)
}

func orNone(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func transportName(p perf.Protocol) string {
	switch p {
	case perf.HTTP:
		return "HTTP"
	case perf.GRPC:
		return "gRPC"
	}
	return string(p)
}

// resultWord is "pass", "FAIL" or "FAIL (invalid)"; a pass that missed warn-only bounds says
// so, counted as report.Headline counts them: "pass, 1 of Dapr's bounds missed (warn only)".
func resultWord(rep *perf.Report) string {
	switch {
	case !rep.Validity.Valid:
		return "FAIL (invalid)"
	case !rep.Pass:
		return "FAIL"
	}
	return "pass" + strings.TrimPrefix(report.Headline(rep), "PASS")
}

// missedWarnOnly are the warn-only bounds a passing run missed, each as its verdict reads;
// none for a run that failed (its banner says FAIL already).
func missedWarnOnly(rep *perf.Report) []string {
	if !rep.Pass || !rep.Validity.Valid {
		return nil
	}
	var out []string
	for _, v := range report.MissedWarnOnly(rep) {
		out = append(out, v.String())
	}
	return out
}

func resultSentence(rep *perf.Report) string {
	passed, gating := 0, 0
	for _, v := range rep.Verdicts {
		if v.WarnOnly {
			continue
		}
		gating++
		if v.Pass {
			passed++
		}
	}
	valid := "valid run"
	if !rep.Validity.Valid {
		valid = "invalid run"
	}
	valid = strings.ToUpper(valid[:1]) + valid[1:]
	if gating == 0 {
		return valid + "; no gating verdicts."
	}
	return fmt.Sprintf("%s; %d of %d gating verdicts passed.", valid, passed, gating)
}

// validityText is "valid", or "INVALID" with the number of reasons, for a comparison line.
func validityText(rep *perf.Report) string {
	if rep.Validity.Valid {
		return "valid"
	}
	return fmt.Sprintf("INVALID (%s; see its README)", plural(len(rep.Validity.Reasons), "reason"))
}

// writeGrowthComparison writes, per variant and sidecar present in both growth reports, the
// RSS slope (KiB per 1,000 requests) and verdict of a and b side by side.
func writeGrowthComparison(b *strings.Builder, nameA, nameB string, a, g *growth.Report) {
	fmt.Fprintf(b, "Thresholds: %s %.0f, %s %.0f KiB per 1,000 requests.\n\n", nameA, a.ThresholdKiBPer1000, nameB, g.ThresholdKiBPer1000)
	var rows [][]string
	for _, va := range a.Variants {
		for _, sa := range va.Sidecars {
			for _, vb := range g.Variants {
				if vb.Name != va.Name {
					continue
				}
				for _, sb := range vb.Sidecars {
					if sb.Process != sa.Process {
						continue
					}
					rows = append(rows, []string{va.Name, sa.Role,
						fmt.Sprintf("%.0f", sa.Growth.SlopeKiBPer1000), growthVerdict(sa.Growth),
						fmt.Sprintf("%.0f", sb.Growth.SlopeKiBPer1000), growthVerdict(sb.Growth)})
				}
			}
		}
	}
	writeTable(b, []string{"variant", "sidecar", nameA + " slope", nameA + " verdict", nameB + " slope", nameB + " verdict"}, "llrlrl", rows)
}

// measuredLine says what a run measured: its rounds, or a growth run's variants and rounds.
func measuredLine(rep *perf.Report) string {
	if g := rep.Growth; g != nil {
		return fmt.Sprintf("%s of %s of %d requests", plural(len(g.Variants), "variant"), plural(g.Rounds, "round"), g.RequestsPerRound)
	}
	return plural(len(rep.Rounds), "round")
}
