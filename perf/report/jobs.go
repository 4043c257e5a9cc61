package report

import (
	"fmt"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// jobsGates adds the jobs figures to gates (JobTriggerPlan's doc).
func jobsGates(r *perf.Report, gates map[string]float64) {
	jr := r.Jobs
	if jr == nil || jr.ScheduleSeconds == 0 {
		return
	}
	gates["errors"] = float64(jr.ScheduleErrors)
	gates["jobs.scheduleErrors"] = float64(jr.ScheduleErrors)
	gates["jobs.scheduled"] = float64(jr.Scheduled)
	gates["jobs.fired"] = float64(jr.Fired)
	gates["jobs.neverFired"] = float64(jr.NeverFired)
	gates["jobs.firedTwice"] = float64(jr.FiredTwice)
	gates["jobs.unexpected"] = float64(jr.Unexpected)
	gates["jobs.allFiredSeconds"] = jr.AllFiredSeconds
	gates["jobs.triggerRate"] = jr.TriggerRate
	gates["jobs.triggerThroughput"] = jr.TriggerThroughput
	gates["jobs.scheduleRate"] = jr.ScheduleRate
	for _, p := range []string{"p50", "p90", "p99", "max"} {
		if v, ok := jr.Lag[p]; ok {
			gates["jobs.lag."+p] = v
		}
	}
}

// jobsTable is the summary's block of a jobs trigger run.
func jobsTable(b *strings.Builder, r *perf.Report) {
	jr := r.Jobs
	fmt.Fprintf(b, "jobs: %d one-shot jobs due in %.0f s (%d at Dapr's load x load factor %.4g), scheduled through the job app's daprd, %d in flight\n",
		jr.Jobs, jr.DueInSeconds, jr.JobsAtDaprLoad, jr.LoadFactor, jr.Connections)
	fmt.Fprintf(b, "scheduling: %d accepted, %d errors in %.2f s (%.0f jobs/s) %s\n", jr.Scheduled, jr.ScheduleErrors, jr.ScheduleSeconds, jr.ScheduleRate, jr.ScheduleError)
	if f := jr.Fault; f != nil {
		fmt.Fprintf(b, "fault: scheduler %s %.2f s into the scheduling, down %.2f s %s\n", f.Kind, f.AtSeconds, f.DownSeconds, f.Error)
	}
	fmt.Fprintf(b, "triggers: fired %d, NEVER FIRED %d, FIRED TWICE %d (%d extra triggers, at most %d per job), unexpected %d\n",
		jr.Fired, jr.NeverFired, jr.FiredTwice, jr.ExtraFires, jr.MaxFiresPerJob, jr.Unexpected)
	fmt.Fprintf(b, "all fired: %v, %.2f s after the scheduling ended (window %.0f s); trigger rate %.0f jobs/s (Dapr's definition: fired / that time), throughput %.0f jobs/s (first to last trigger)\n",
		jr.AllFired, jr.AllFiredSeconds, jr.WindowSeconds, jr.TriggerRate, jr.TriggerThroughput)
	if l := jr.Lag; l != nil {
		fmt.Fprintf(b, "trigger lag (receipt - due): p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, min %.1f ms, max %.1f ms\n",
			1e3*l["p50"], 1e3*l["p90"], 1e3*l["p99"], 1e3*l["min"], 1e3*l["max"])
	}
}
