package perf

import (
	"time"
)

// FaultReport is what a fault plan injected, and where (Report.Faults); the counts are in the
// target host's ActorStats.Faults.
type FaultReport struct {
	// Target is the host app the fault went to: the one hosting the actor after the warmup.
	Target       string        `json:"target"`
	Delay        time.Duration `json:"delay"`
	FailFraction float64       `json:"failFraction"`
	Window       time.Duration `json:"window"`
	// Note says how the window relates to the load (for the summary).
	Note string `json:"note,omitempty"`
}

// FaultFigures derives a fault plan's gate figures from its loads and its hosts' counters into
// gates: "errors", "errors.500", "errors.injected", "errors.other", "faults.calls" (counts) and
// "<phase>.p95", "<phase>.mean" (service time, seconds). errors.other = the errors that are not
// HTTP 500 + max(0, the 500s - the injected 500s): a 500 the hosts did not inject, or a 500
// beyond their count, is not excused. When daprd does not relay every injected 500 (it retries,
// or the caller went away), up to that many foreign 500s could hide in the difference; the
// summary gives both counts.
func FaultFigures(gates map[string]float64, loads []NamedLoad, hosts []ActorStats) {
	var errs, e500 int64
	for i := range loads {
		l := &loads[i]
		errs += l.Errors()
		e500 += l.RetCodes["500"]
		if v, err := l.Percentile(95); err == nil {
			gates[l.Name+".p95"] = v.Seconds()
		}
		gates[l.Name+".mean"] = l.Latency.AvgSeconds
	}
	var injected, calls int64
	for _, h := range hosts {
		if h.Faults != nil {
			injected += h.Faults.Failed
			calls += h.Faults.Calls
		}
	}
	gates["errors"] = float64(errs)
	gates["errors.500"] = float64(e500)
	gates["errors.injected"] = float64(injected)
	gates["errors.other"] = float64(errs - e500 + max(0, e500-injected))
	gates["faults.calls"] = float64(calls)
}
