package charts

import (
	"fmt"
	"strings"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// The tables and summary cells of the plans without baseline/main rounds: those of named
// loads (stages, runs, phases), delivery, jobs and reminders.

// hasSummary reports whether rep has figures for a summary row: rounds (not a growth run), or
// the latency its kind summarizes (report.Kind.SummaryLatency: named loads, a delivery, jobs
// or reminder run's).
func hasSummary(rep *perf.Report) bool {
	k := report.KindOf(rep)
	if k.Name() == perf.KindGrowth {
		return false
	}
	_, at := k.SummaryLatency(rep)
	return len(rep.Rounds) > 0 || at != nil
}

// loadsLatencyCells are the summary's p50, p90, p99 and p99.9 cells of a run without rounds,
// the first naming what they are (report.Kind.SummaryLatency): the delivery latency, the jobs'
// trigger lag, the reminders' fire lag, or the service time (iteration duration) over all
// loads merged.
func loadsLatencyCells(rep *perf.Report) []string {
	ps := tablePercentiles()
	out := make([]string, len(ps))
	what, at := report.KindOf(rep).SummaryLatency(rep)
	for i, p := range ps {
		out[i] = "n/a"
		if at == nil {
			continue
		}
		if v, ok := at(p); ok {
			out[i] = fmtLatency(v)
		}
	}
	if what == "" {
		what = fmt.Sprintf("%s, none measured", latencyAxis(rep))
	}
	out[0] += " (" + what + ")"
	return out
}

// loadsRateCell is the summary's actual-QPS cell of a run without rounds: the lowest load
// against its target ("99.68 of 100 (31kb-200ps)") when every load had one, else the lowest
// closed-loop rate; for jobs the trigger rate.
func loadsRateCell(rep *perf.Report) string {
	if j := rep.Jobs; j != nil {
		return fmt.Sprintf("%.0f triggers/s", j.TriggerRate)
	}
	if len(rep.Loads) == 0 {
		return "n/a"
	}
	low := 0
	all := true
	for i := range rep.Loads {
		all = all && fixedRate(&rep.Loads[i])
	}
	for i := range rep.Loads {
		l, m := &rep.Loads[i], &rep.Loads[low]
		if (all && l.QPSRatio() < m.QPSRatio()) || (!all && l.ActualQPS < m.ActualQPS) {
			low = i
		}
	}
	l := &rep.Loads[low]
	name := ""
	if len(rep.Loads) > 1 {
		name = " (" + l.Name + ", lowest)"
	}
	if all {
		return fmt.Sprintf("%s of %.0f%s", fmtQPS(l.ActualQPS), l.RequestedQPS, name)
	}
	unit := report.KindOf(rep).Rate().Short
	return fmt.Sprintf("%s%s%s", fmtQPS(l.ActualQPS), unit, name)
}

// loadsTotals are the requests and errors over rep's loads; for a jobs run, its schedule
// requests.
func loadsTotals(rep *perf.Report) (requests, errs int64) {
	if j := rep.Jobs; j != nil && len(rep.Loads) == 0 {
		return j.Scheduled + j.ScheduleErrors, j.ScheduleErrors
	}
	for i := range rep.Loads {
		requests += rep.Loads[i].Requests
		errs += rep.Loads[i].Errors()
	}
	return requests, errs
}

// loadsSummaryCells are summaryCells for a run without rounds.
func loadsSummaryCells(rep *perf.Report) []string {
	out := loadsLatencyCells(rep)
	if len(rep.Overhead) > 0 { // a delivery run with a baseline run (configuration subscribe)
		out = append(out, overheadSummaryCell(rep))
	} else {
		out = append(out, "n/a (no baseline)")
	}
	out = append(out, sidecarCell(rep, roleCalleeSidecar), sidecarCell(rep, roleCallerSidecar))
	requests, errs := loadsTotals(rep)
	out = append(out, fmtCount(requests), fmtSuccess(requests, errs), loadsRateCell(rep))
	return append(out, resultWord(rep))
}

// writeLoadsTables writes the tables of a run without rounds: one row per named load, and the
// counts of a delivery, jobs or reminder run.
func writeLoadsTables(b *strings.Builder, rep *perf.Report) {
	if namedLoads(rep) {
		word := loadWord(rep)
		fmt.Fprintf(b, "\n## Loads\n\n")
		invalidNote(b, rep)
		bounds := loadLatencyBounds(rep)
		var rows [][]string
		for i := range rep.Loads {
			l := &rep.Loads[i]
			target := "closed loop"
			if fixedRate(l) {
				target = fmt.Sprintf("%.0f/s", l.RequestedQPS)
			}
			if e := l.Executor; e != nil && e.Scheduled > 0 {
				target += fmt.Sprintf(", %s planned", fmtCount(e.Scheduled))
			}
			row := []string{cell(l.Name), target, fmtQPS(l.ActualQPS) + "/s", fmtCount(l.Requests), fmtCount(l.Errors())}
			for _, p := range loadPercentiles {
				d, err := l.Percentile(p)
				row = append(row, latencyCell(d, err == nil && l.Requests > 0))
			}
			row = append(row, fmtLatency(l.Latency.AvgSeconds))
			var vs []string
			for _, bd := range bounds {
				if bd.load == i {
					vs = append(vs, fmt.Sprintf("%s %s %.3f ms: %s", bd.stat, opText(bd.v.Op), bd.v.Limit*1e3, verdictState(bd.v)))
				}
			}
			row = append(row, cell(orDash(strings.Join(vs, "; "))))
			rows = append(rows, row)
		}
		writeTable(b, []string{word, "target", "achieved", "requests", "errors", "p50", "p90", "p95", "p99", "mean", "bound"}, "ll", rows)
		fmt.Fprintf(b, "\nLatency is %s, per %s from its HDR histogram; achieved is requests over the %s's elapsed time.\n",
			latencyWhat(rep), word, word)
	}
	if dr := rep.Delivery; dr != nil {
		b.WriteString("\n## Delivery\n\n")
		invalidNote(b, rep)
		rows := [][]string{
			{"mode", cell(string(dr.Mode))},
			{"pubsub / store", cell(dr.PubSub + " (" + orNone(string(dr.Broker)) + ")")},
			{"stamped / sent (accepted)", fmtCount(dr.Sequenced) + " / " + fmtCount(dr.Sent)},
			{"received", fmtCount(dr.Received)},
			{"lost", fmtCount(dr.Lost)},
			{"duplicated", fmtCount(dr.Duplicated)},
			{"publish errors", fmtCount(dr.PublishErrors)},
			{"stale (the warmup's)", fmtCount(dr.Stale)},
			{"drain", fmt.Sprintf("%.2f s of %.0f s (%s)", dr.DrainSeconds, dr.DrainWindowSeconds, map[bool]string{true: "all in", false: "window ended"}[dr.DrainComplete])},
			{"latency mean / max", fmtLatency(dr.Latency.AvgSeconds) + " / " + fmtLatency(dr.Latency.MaxSeconds)},
		}
		for _, p := range perf.DeliveryPercentiles {
			d, err := dr.Latency.Percentile(p)
			rows = append(rows, []string{"latency " + perf.PercentileName(p), latencyCell(d, err == nil && dr.Received > 0)})
		}
		writeTable(b, []string{"", "value"}, "ll", rows)
	}
	if j := rep.Jobs; j != nil {
		b.WriteString("\n## Jobs\n\n")
		invalidNote(b, rep)
		lag := func(k string) string {
			if v, ok := j.Lag[k]; ok {
				return fmtLatency(v)
			}
			return "n/a"
		}
		writeTable(b, []string{"", "value"}, "ll", [][]string{
			{"jobs (at Dapr's load × factor)", fmt.Sprintf("%s (%s × %.3g)", fmtCount(int64(j.Jobs)), fmtCount(int64(j.JobsAtDaprLoad)), j.LoadFactor)},
			{"scheduled / errors", fmt.Sprintf("%s / %s in %.2f s (%.0f/s)", fmtCount(j.Scheduled), fmtCount(j.ScheduleErrors), j.ScheduleSeconds, j.ScheduleRate)},
			{"fired / never fired / fired twice / unexpected", fmt.Sprintf("%s / %s / %s / %s", fmtCount(j.Fired), fmtCount(j.NeverFired), fmtCount(j.FiredTwice), fmtCount(j.Unexpected))},
			{"all fired after the scheduling", fmt.Sprintf("%.2f s (window %.0f s, all fired: %v)", j.AllFiredSeconds, j.WindowSeconds, j.AllFired)},
			{"trigger rate / throughput", fmt.Sprintf("%.0f / %.0f jobs/s", j.TriggerRate, j.TriggerThroughput)},
			{"trigger lag p50 / p90 / p99 / max", strings.Join([]string{lag("p50"), lag("p90"), lag("p99"), lag("max")}, " / ")},
		})
	}
	if rr := rep.Reminders; rr != nil {
		b.WriteString("\n## Reminders\n\n")
		invalidNote(b, rep)
		lag := func(k string) string {
			if v, ok := rr.LagSeconds[k]; ok {
				return fmtLatency(v)
			}
			return "n/a"
		}
		writeTable(b, []string{"", "value"}, "ll", [][]string{
			{"reminders × fires", fmt.Sprintf("%s (of %s asked) × %d", fmtCount(int64(rr.Reminders)), fmtCount(int64(rr.RequestedReminders)), rr.FiresPerReminder)},
			{"registered / errors", fmt.Sprintf("%s / %s in %.2f s", fmtCount(rr.Registered), fmtCount(rr.RegisterErrors), rr.RegisteredSeconds)},
			{"fires arrived / expected / missing", fmt.Sprintf("%s / %s / %s", fmtCount(rr.Fires), fmtCount(rr.ExpectedFires), fmtCount(rr.Missing))},
			{"trigger rate", fmt.Sprintf("%.0f fires/s over %.2f s (window %.0f s)", rr.TriggerRate, rr.TriggerSeconds, rr.WindowSeconds)},
			{"fire lag p50 / p90 / p99 / max", strings.Join([]string{lag("p50"), lag("p90"), lag("p99"), lag("max")}, " / ")},
		})
	}
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
