package report

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/daprperf/daprperf/perf"
)

// Summary renders a report as a plain-text table like Dapr's published report: latency per
// percentile for baseline and main (median over rounds, ms), as service time and as response
// time, the overhead with its interval and that interval's confidence, QPS, requests, success,
// schedule, sockets, CPU (millicores) and RSS (MiB) per process, the sidecar cost per request
// (Figures.Cost), warnings, validity, verdicts and the result (Headline, with any missed
// warn-only bound).
func Summary(r *perf.Report) string {
	var b strings.Builder
	env := r.Environment
	kind := KindOf(r)
	mtls := ""
	if env.MTLS != nil {
		mtls = map[bool]string{true: ", mTLS on (sentry)", false: ", mTLS off"}[*env.MTLS]
	}
	fmt.Fprintf(&b, "%s/%s: daprd %s on %s%s, %d CPUs (%s), %s\n",
		r.Test, r.Transport, env.DaprVersion, env.Platform, mtls, env.CPUs, env.CPUModel, kind.Header(r))
	if m := ChangedModulesText(env.Daprd); m != "" {
		fmt.Fprintf(&b, "daprd %s was built with dependencies at other versions than its go.mod requires (the module proxy refuses those): %s\n", env.DaprVersion, m)
	}
	if r.Load != nil {
		b.WriteString(r.Load.String() + "\n")
	}
	if r.AppWork != "" {
		b.WriteString("the app's own work: " + r.AppWork + "\n")
	}
	testerLine(&b, r)
	if r.Preflight != nil {
		b.WriteString(r.Preflight.Note + "\n")
	}
	executorLines(&b, r)
	figures := r.Figures
	if figures == nil {
		f := DeriveFigures(r)
		figures = &f
	}
	kind.Table(&b, r, figures)
	b.WriteString(actorSummary(r.Actors))
	if figures.NoOverhead != "" {
		b.WriteString("sidecar overhead: none: " + figures.NoOverhead + "\n")
	}
	if len(r.Resources) > 0 {
		w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(w, "process\trole\tmean CPU (mCPU)\tpeak RSS (MiB)\tRSS slope (KiB/1000 req)\tR²\tmemory\tidle growth (KiB)\t")
		for _, s := range r.Resources {
			memory := string(s.Growth.Verdict)
			switch {
			case memory == "" && s.GrowthNote != "":
				memory = "n/a (" + s.GrowthNote + ")"
			case memory == "":
				memory = "n/a (main phase < 20 s)"
			}
			if s.Growth.GrowsWhenIdle {
				memory += ", GROWS WHEN IDLE"
			}
			if s.NoReadings() {
				fmt.Fprintf(w, "%s\t%s\tno readings\tno readings\t\t\t%s\t\t\n", s.Process, s.Role, "n/a (the platform reported no usage)")
				continue
			}
			fmt.Fprintf(w, "%s\t%s\t%.0f\t%.1f\t%.0f\t%.2f\t%s\t%.0f\t\n", s.Process, s.Role, 1e3*s.MeanCPUCores, float64(s.PeakRSSBytes)/(1<<20),
				s.Growth.SlopeKiBPer1000, s.Growth.R2, memory, s.Growth.IdleGrowthKiB)
		}
		_ = w.Flush()
	}
	costTable(&b, figures.Cost)
	profilesSummary(&b, r.Profiles)
	for _, w := range r.Warnings {
		b.WriteString("WARNING: " + w + "\n")
	}
	if r.AB != nil {
		abTable(&b, r)
		profileDiffSummary(&b, r.AB.Profiles)
	}
	if r.Incomplete {
		b.WriteString("INCOMPLETE: " + r.IncompleteReason + "\n")
	}
	for _, e := range r.InfraErrors {
		b.WriteString("INFRASTRUCTURE ERROR: " + e + "\n")
	}
	for _, e := range r.Exits {
		fmt.Fprintf(&b, "UNEXPECTED EXIT: %s at %s: %s (restarts %d)\n", e.Process, e.At.Format("15:04:05"), e.Reason, e.Restarts)
	}
	if r.Validity.Valid {
		b.WriteString("validity: valid (schedule kept, QPS reached)\n")
	} else {
		b.WriteString("validity: INVALID: " + strings.Join(r.Validity.Reasons, "; ") + "\n")
	}
	for _, v := range r.Verdicts {
		b.WriteString("verdict: " + v.String() + "\n")
	}
	b.WriteString("result: " + Headline(r))
	if missed := MissedWarnOnly(r); r.Pass && len(missed) > 0 {
		lines := make([]string, len(missed))
		for i, v := range missed {
			lines[i] = v.String()
		}
		b.WriteString(": " + strings.Join(lines, "; "))
	}
	b.WriteString("\n")
	return b.String()
}

// costTable writes the sidecar cost: per sidecar and app (perf.ProcessCost), CPU µs per request
// (the same number as mCPU per 1,000 requests/s) and peak RSS, each with its ratio to the
// app's. Nothing when costs is empty.
func costTable(b *strings.Builder, costs []perf.ProcessCost) {
	if len(costs) == 0 {
		return
	}
	fmt.Fprintf(b, "sidecar cost at %.2f requests/s (main phases' median rate; mean CPU / rate, our derivation):\n", costs[0].RequestsPerSecond)
	w := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "process\trole\tCPU µs/request (= mCPU per 1,000 req/s)\tCPU x app\tpeak RSS (MiB)\tRSS x app\t")
	ratio := func(x *float64) string {
		if x == nil {
			return ""
		}
		return fmt.Sprintf("%.2f", *x)
	}
	for _, c := range costs {
		fmt.Fprintf(w, "%s\t%s\t%.1f\t%s\t%.1f\t%s\t\n", c.Process, c.Role, c.CPUMicrosPerRequest(), ratio(c.CPURatioToApp),
			float64(c.PeakRSSBytes)/(1<<20), ratio(c.RSSRatioToApp))
	}
	_ = w.Flush()
}

func latencyTable(b *strings.Builder, r *perf.Report, figures *perf.Figures) {
	w := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(w, "latency (ms)\t")
	for _, p := range perf.OverheadPercentiles {
		fmt.Fprintf(w, "%s\t", perf.PercentileName(p))
	}
	fmt.Fprintln(w, "mean\t")
	row := func(name, phase string, response bool) {
		ph := figures.Phase(phase)
		if ph == nil {
			return
		}
		fmt.Fprintf(w, "%s\t", name)
		for _, p := range perf.OverheadPercentiles {
			v, _ := ph.Quantile(p, response)
			fmt.Fprintf(w, "%.3f\t", 1e3*v)
		}
		mean := ph.MeanSeconds
		if response {
			mean = ph.ResponseMeanSeconds
		}
		fmt.Fprintf(w, "%.3f\t\n", 1e3*mean)
	}
	overheadRows := func(name string, os []perf.Overhead) {
		fmt.Fprintf(w, "%s\t", name)
		for _, o := range os {
			fmt.Fprintf(w, "%+.3f\t", 1e3*o.MedianSeconds)
		}
		fmt.Fprintln(w, strings.Repeat("\t", len(perf.OverheadPercentiles)+1-len(os)))
		if len(os) == 0 {
			return
		}
		fmt.Fprintf(w, "  %s\t", os[0].IntervalLabel())
		for _, o := range os {
			if o.HasInterval {
				fmt.Fprintf(w, "[%.3f, %.3f]\t", 1e3*o.LowSeconds, 1e3*o.HighSeconds)
			} else {
				fmt.Fprint(w, "none\t")
			}
		}
		fmt.Fprintln(w)
	}
	section := func(name string) { // as many cells as the other rows, or tabwriter breaks the columns
		fmt.Fprintln(w, name+"\t"+strings.Repeat("\t", len(perf.OverheadPercentiles)+1))
	}
	section("service time (from the send)")
	row("baseline", perf.PhaseBaseline, false)
	row("main (sidecars)", perf.PhaseMain, false)
	overheadRows("overhead", r.Overhead)
	if len(r.ResponseOverhead) > 0 {
		section("response time (from the intended start)")
		row("baseline", perf.PhaseBaseline, true)
		row("main (sidecars)", perf.PhaseMain, true)
		overheadRows("overhead", r.ResponseOverhead)
	}
	_ = w.Flush()
	if base := r.Rounds[0].Baseline; base.Baseline != "" {
		b.WriteString(base.BaselineStatement())
		if base.Baseline == perf.BaselineNoOp {
			b.WriteString(": the overhead is the whole Dapr call, store or broker included")
		}
		b.WriteString("\n")
	}
	b.WriteString("median over rounds; each interval is distribution-free (order statistics of the rounds) and states its actual confidence\n")
	if len(r.Rounds) < 2 {
		b.WriteString("single round: the overhead has no interval; set DAPR_PERF_REPEATS=3 or more (6 for a 95 % interval)\n")
	}
}

func phaseTable(b *strings.Builder, r *perf.Report) {
	w := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "phase\tround\ttarget QPS\tactual QPS\trequests\terrors\tsuccess %\tskipped+late\tmax late (ms)\tsockets/connections\t")
	for i, rd := range r.Rounds {
		for _, ph := range []struct {
			name string
			res  perf.Result
		}{{"baseline", rd.Baseline}, {"main", rd.Main}} {
			res := ph.res
			fmt.Fprintf(w, "%s\t%d\t%.0f\t%.2f\t%d\t%d\t%.2f\t%d\t%.1f\t%d/%d\t\n", ph.name, i+1, res.RequestedQPS, res.ActualQPS,
				res.Requests, res.Errors(), 100*res.SuccessRatio(), res.Schedule.Skipped+res.Schedule.Late,
				1e3*res.Schedule.MaxLateSeconds, res.Sockets, res.Params.Connections)
		}
	}
	_ = w.Flush()
}

// executorLines says, for a run whose main phase ran on the closed-loop driver, that its QPS,
// duration and connections above are not what ran, and what the driver reports per round.
func executorLines(b *strings.Builder, r *perf.Report) {
	ex := r.Params.Executor
	if !r.Params.HasExecutor() {
		return
	}
	fmt.Fprintf(b, "executor: %s (k6's), up to %d VUs, schedule %v (+ graceful stop): the QPS, duration and connections above are not used\n",
		ex.Kind, ex.PeakVUs(), ex.ScheduleDuration())
	for i, rd := range r.Rounds {
		for _, ph := range []struct {
			name string
			res  *perf.Result
		}{{"baseline", &rd.Baseline}, {"main", &rd.Main}} {
			if e := ph.res.Executor; e != nil {
				fmt.Fprintf(b, "  round %d %s: %d iterations (%.1f/s), %d dropped, %d interrupted, at most %d VUs active\n",
					i+1, ph.name, e.Iterations, ph.res.ActualQPS, e.Dropped, e.Interrupted, e.MaxActiveVUs)
			}
		}
	}
}

// testerLine says, for a load shared by several testers, how far apart their starts really
// were: the largest Result.StartSpreadSeconds of the run's loads.
func testerLine(b *strings.Builder, r *perf.Report) {
	var spread float64
	var split int
	each := func(res *perf.Result) {
		if len(res.Testers) > 1 {
			split++
			spread = max(spread, res.StartSpreadSeconds)
		}
	}
	for i := range r.Rounds {
		each(&r.Rounds[i].Baseline)
		each(&r.Rounds[i].Main)
	}
	for i := range r.Loads {
		each(&r.Loads[i].Result)
	}
	if split > 0 {
		fmt.Fprintf(b, "testers: %d load(s) split, the testers' starts at most %.1f ms apart\n", split, spread*1e3)
	}
}
