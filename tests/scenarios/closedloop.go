package scenarios

import (
	"github.com/daprperf/daprperf/perf/driver"
)

// closedLoopFullQPS is the rate DAPR_PERF_QPS is compared with to scale the VUs of Dapr's
// closed-loop ramps (the scale tests, subscribe, configuration subscribe): the framework's full
// load (Dapr's 1000 QPS default).
const closedLoopFullQPS = 1000

// scaledRamp is Dapr's ramp of targets over the stages' durations, its VUs standing for
// closedLoopFullQPS (driver.Executor.VUsAtQPS): a closed loop has no rate of its own for the
// override to lower, so under DAPR_PERF_QPS its targets scale instead (CI's smoke,
// DAPR_PERF_QPS=100: Dapr's 100, 300, 500 VUs become 10, 30, 50). The result's executor records
// the VUs actually run, and its load line names the override.
func scaledRamp(ex driver.Executor) driver.Executor {
	ex.VUsAtQPS = closedLoopFullQPS
	return ex
}
