package report

import (
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// ThresholdsFromEnv applies env's overrides to base: a set variable replaces the bound of its
// figure and becomes its Source; for a figure base does not bound it adds an IfMeasured bound,
// applied only where the plan measures that figure (DAPR_PERF_MIN_QPS_RATIO set suite-wide
// bounds no closed loop). With DAPR_PERF_OVERHEAD_GATE=warn the overhead,
// latency-mean (".mean") and absolute latency ("latency.*": actor_activation's p90 < 15 ms and
// p99 < 35 ms, the k6 scenarios' p95) and trigger-rate (".triggerRate": actor_reminder's and
// jobs_triggering's fires per second) bounds are reported but not fatal: they come from Dapr's
// 8-vCPU cluster nodes and depend on the machine's cores, not on daprd alone.
// env's values were checked when it was read (runner.LoadEnv); the result is a new slice.
func ThresholdsFromEnv(env perf.Env, base []perf.Threshold) []perf.Threshold {
	out := append([]perf.Threshold(nil), base...)
	// set replaces the scenario's bound on the same figure from the same side (an upper bound
	// replaces an upper bound: overhead.p90 has Dapr's lower bound, > 0, too), or adds th.
	set := func(th perf.Threshold) {
		for i := range out {
			if out[i].Figure == th.Figure && out[i].Op.Upper() == th.Op.Upper() {
				out[i] = th
				return
			}
		}
		th.IfMeasured = true
		out = append(out, th)
	}
	if env.MaxErrors != nil {
		set(perf.Threshold{Figure: "errors", Op: perf.AtMost, Limit: float64(*env.MaxErrors), Source: perf.EnvMaxErrors})
	}
	if env.MaxRestarts != nil {
		set(perf.Threshold{Figure: "restarts", Op: perf.AtMost, Limit: float64(*env.MaxRestarts), Source: perf.EnvMaxRestarts})
	}
	if env.MinQPSRatio != nil {
		set(perf.Threshold{Figure: "qps.ratio", Op: perf.AtLeast, Limit: *env.MinQPSRatio, Source: perf.EnvMinQPSRatio})
	}
	bounds := []*time.Duration{env.MaxOverheadP50, env.MaxOverheadP75, env.MaxOverheadP90, env.MaxOverheadP99, env.MaxOverheadP999}
	for i, p := range perf.OverheadPercentiles { // 50, 75, 90, 99, 99.9: bounds' order
		if d := bounds[i]; d != nil {
			set(perf.Threshold{Figure: "overhead." + perf.PercentileName(p), Op: perf.AtMost, Limit: d.Seconds(), Source: perf.MaxOverheadEnv(p)})
		}
	}
	if perf.Val(env.OverheadGate) == "warn" {
		for i := range out {
			// Latency bounds ("main.mean", "stage.<name>.mean", "latency.p99") come from the
			// same 8-vCPU nodes as the overhead bounds, and are as machine-bound: a smoke's
			// 1,000 requests put p99 at the 10th slowest, which moves with the machine's load
			// (reports/measurements.md, "Actors").
			// So are Dapr's trigger rates ("reminders.triggerRate", "jobs.triggerRate"): how
			// many fires per second the sidecar and scheduler deliver is a capacity of those
			// nodes; 2 cores deliver every fire at about a third of Dapr's 6,860/s
			// (reports/measurements.md, "Actor reminders and scale").
			f := out[i].Figure
			if strings.HasPrefix(f, "overhead.") || strings.HasSuffix(f, ".mean") || strings.HasPrefix(f, "latency.") || strings.HasSuffix(f, ".triggerRate") {
				out[i].WarnOnly = true
			}
		}
	}
	return out
}
