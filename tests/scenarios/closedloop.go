package scenarios

import "github.com/daprperf/daprperf/perf"

// closedLoopFullQPS is the rate DAPR_PERF_QPS is compared with to scale the VUs of Dapr's
// closed-loop ramps (the scale tests, subscribe, configuration subscribe): the framework's full
// load (Dapr's 1000 QPS default).
const closedLoopFullQPS = 1000

// closedLoopFactor is 1, or DAPR_PERF_QPS / closedLoopFullQPS (at most 1) when that variable
// is set: a closed loop has no rate of its own for the override to lower, so its VUs scale
// instead (CI's smoke, DAPR_PERF_QPS=100: Dapr's 100, 300, 500 VUs become 10, 30, 50). The
// result's executor records the VUs actually run, and its load line names the override.
func closedLoopFactor() float64 {
	env, err := perf.LoadEnv()
	if err != nil || env.QPS == nil {
		return 1 // a bad value fails the run's configuration with its own error
	}
	return min(1, float64(*env.QPS)/closedLoopFullQPS)
}

// scaledVUs is vus scaled by closedLoopFactor, rounded, at least 1.
func scaledVUs(vus int) int { return max(1, int(float64(vus)*closedLoopFactor()+0.5)) }
