package scenarios

import (
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
)

// Bounds of the closed-loop demonstration, borrowed from Dapr's k6 tests (dapr/dapr
// tests/perf): p95 < 95 ms is actor_type_scale's gate, mean < 60 ms configuration get's. Dapr
// has no closed-loop service-invocation test; these only show the driver's gates at work.
const (
	rampP95Limit  = 0.095
	rampMeanLimit = 0.060
	rampSource    = "Dapr's k6 gates (actor_type_scale p95, configuration get mean), borrowed"
)

// ServiceInvocationRamp is service invocation under k6's ramping-vus executor (package
// perf/driver): 0 -> 50 virtual users over 5 s, each looping requests back to back with a
// 1024-byte payload; warmup 10 VUs for 3 s. Baseline: tester -> testapp; main: through both
// sidecars, as ServiceInvocation. Bounds: 0 errors, 0 restarts, and k6-like gates on the main
// phase's service time: latency.p95 <= 95 ms, latency.mean <= 60 ms (rampSource). A closed
// loop has no target rate, so no qps.ratio gate.
func ServiceInvocationRamp(transport perf.Protocol) perf.Scenario {
	sc := ServiceInvocation(transport)
	sc.Test = "service_invocation_ramp"
	// Duration is not what the executor runs; the plan's progress lines estimate with it.
	sc.MainOptions = []perf.Option{perf.WithPayloadSize(1024), perf.WithDuration(5 * time.Second), perf.WithExecutor(driver.Executor{
		Kind: driver.RampingVUs, Stages: []driver.Stage{{Duration: 5 * time.Second, Target: 50}}, GracefulStop: 5 * time.Second,
	})}
	sc.WarmupOptions = []perf.Option{perf.WithPayloadSize(1024), perf.WithDuration(3 * time.Second), perf.WithExecutor(driver.Executor{
		Kind: driver.ConstantVUs, VUs: 10, Duration: 3 * time.Second, GracefulStop: 5 * time.Second,
	})}
	sc.Thresholds = []perf.Threshold{
		{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "Dapr v1.17 perf suite"},
		{Figure: "restarts", Op: perf.AtMost, Limit: 0, Source: "Dapr v1.17 perf suite"},
		{Figure: "latency.p95", Op: perf.AtMost, Limit: rampP95Limit, Source: rampSource},
		{Figure: "latency.mean", Op: perf.AtMost, Limit: rampMeanLimit, Source: rampSource},
	}
	return sc
}
