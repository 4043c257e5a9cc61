package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/runner"
)

// The ramp scenario's phases are valid params with the ramping-vus executor, and the tester
// limits the runner derives cover its 50 VUs.
func TestServiceInvocationRampParams(t *testing.T) {
	for _, tr := range []perf.Protocol{perf.HTTP, perf.GRPC} {
		sc := ServiceInvocationRamp(tr)
		main, err := runner.EnvFor(t).MainParams(sc.MainOptions...)
		require.NoError(t, err)
		warm, err := runner.EnvFor(t).WarmupParams(sc.WarmupOptions...)
		require.NoError(t, err)
		assert.Equal(t, driver.RampingVUs, main.Executor.Kind)
		assert.Equal(t, 50, main.Executor.PeakVUs())
		assert.Equal(t, 100, perf.TesterLimitsFor(main, warm).MaxConnections, "2 x 50 VUs")
	}
}
