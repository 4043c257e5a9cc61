package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/runner"
)

// Dapr's subscribe and configuration-subscribe ramps run Dapr's 100, 300, 500 VUs unless
// DAPR_PERF_QPS is set, which scales each target by QPS/1000, at least 1 VU.
func TestDaprRampScalesWithTheQPSOverride(t *testing.T) {
	ramps := func(t *testing.T) map[string][]driver.Stage {
		t.Helper()
		out := map[string][]driver.Stage{}
		for _, sc := range []perf.Scenario{
			PubSubSubscribe(SubscribeBrokers[0], perf.SubscribeNormal), ConfigurationSubscribe(perf.GRPC),
		} {
			p, err := runner.EnvFor(t).MainParams(sc.MainOptions...)
			require.NoError(t, err, sc.Test)
			out[sc.Test] = p.Executor.Stages
		}
		return out
	}
	targets := func(stages []driver.Stage) []int {
		var out []int
		for _, s := range stages {
			out = append(out, s.Target)
		}
		return out
	}
	for name, stages := range ramps(t) {
		assert.Equal(t, []int{100, 300, 500}, targets(stages), name)
	}
	t.Setenv(perf.EnvQPS, "100")
	for name, stages := range ramps(t) {
		assert.Equal(t, []int{10, 30, 50}, targets(stages), name)
	}
	t.Setenv(perf.EnvQPS, "1")
	for name, stages := range ramps(t) {
		assert.Equal(t, []int{1, 1, 1}, targets(stages), name)
	}
	t.Setenv(perf.EnvQPS, "5000")
	for name, stages := range ramps(t) {
		assert.Equal(t, []int{100, 300, 500}, targets(stages), name, "never above Dapr's")
	}
}
