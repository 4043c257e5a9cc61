package report

import (
	"fmt"

	"github.com/daprperf/daprperf/perf"
)

// Check returns what r lacks to be a complete result of run runID (empty runID: any run),
// one line each; none means complete. Complete means: a schema readers take, the run's id, not
// incomplete, a platform and a command recorded, at least one verdict, and what r's kind
// measures (Kind.Missing). Check says nothing of
// whether the run passed: Report.Outcome does.
func Check(r *perf.Report, runID string) []string {
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	if r.Schema < perf.MinReportSchema || r.Schema > perf.ReportSchema {
		add("schema %d, want %d to %d", r.Schema, perf.MinReportSchema, perf.ReportSchema)
	}
	if runID != "" && r.RunID != runID {
		add("runID %q, want %q", r.RunID, runID)
	}
	if r.Incomplete {
		add("incomplete: %s", r.IncompleteReason)
	}
	if r.Environment.Platform == "" {
		add("no environment.platform")
	}
	if r.Command == nil || len(r.Command.Args) == 0 {
		add("no command recorded")
	}
	if len(r.Verdicts) == 0 {
		add("no verdict")
	}
	return append(out, KindOf(r).Missing(r)...)
}

// measuredLoads is what every kind of named loads needs: at least one, each with requests and
// latency percentiles.
func measuredLoads(r *perf.Report, atLeast int) []string {
	if len(r.Loads) < atLeast {
		return []string{fmt.Sprintf("%d load(s), want at least %d", len(r.Loads), atLeast)}
	}
	var out []string
	for _, l := range r.Loads {
		if l.Requests == 0 || len(l.Latency.Percentiles) == 0 {
			out = append(out, fmt.Sprintf("load %q measured no request", l.Name))
		}
	}
	return out
}

func (overheadKind) Missing(r *perf.Report) []string {
	if len(r.Rounds) == 0 {
		return []string{"no complete round"}
	}
	var out []string
	for i, rd := range r.Rounds {
		if len(rd.Baseline.Latency.Percentiles) == 0 || len(rd.Main.Latency.Percentiles) == 0 {
			out = append(out, fmt.Sprintf("round %d: a phase without latency percentiles", i+1))
		}
	}
	if len(r.Overhead) == 0 {
		out = append(out, "no overhead figures")
	}
	return out
}

func (growthKind) Missing(r *perf.Report) []string {
	if r.Growth == nil || len(r.Growth.Variants) == 0 {
		return []string{"no growth variants"}
	}
	// Each sidecar is read before the first round and after every round.
	var out []string
	for _, v := range r.Growth.Variants {
		for _, s := range v.Sidecars {
			if len(s.Readings) < r.Growth.Rounds+1 {
				out = append(out, fmt.Sprintf("variant %s, %s: %d RSS reading(s), want %d", v.Name, s.Process, len(s.Readings), r.Growth.Rounds+1))
			}
		}
		if len(v.Sidecars) == 0 {
			out = append(out, fmt.Sprintf("variant %s: no sidecar read", v.Name))
		}
	}
	return out
}

func (stagesKind) Missing(r *perf.Report) []string     { return measuredLoads(r, 1) }
func (iterationsKind) Missing(r *perf.Report) []string { return measuredLoads(r, 1) }
func (faultsKind) Missing(r *perf.Report) []string     { return measuredLoads(r, 2) }

func (deliveryKind) Missing(r *perf.Report) []string {
	if r.Delivery == nil || r.Delivery.Sent == 0 {
		return []string{"no message sent (delivery)"}
	}
	return nil
}

func (jobsKind) Missing(r *perf.Report) []string {
	if r.Jobs == nil || r.Jobs.Scheduled == 0 {
		return []string{"no job scheduled (jobs)"}
	}
	return nil
}

func (remindersKind) Missing(r *perf.Report) []string {
	if r.Reminders == nil { // the registration part alone (ReminderPlan.Part): its load
		if len(r.Loads) == 0 || r.Loads[0].Name != "registration" {
			return []string{"no registration load and no trigger phase (reminders)"}
		}
		return measuredLoads(r, 1)
	}
	if r.Reminders.Registered == 0 {
		return []string{"no reminder registered for the trigger phase (reminders)"}
	}
	return nil
}
