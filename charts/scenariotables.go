package charts

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

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
