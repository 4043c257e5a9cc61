package scenarios_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestActorDoubleActivationIsDaprs: three hosts on the default placement, sharing one Redis,
// one actor id, Dapr's fault (50 ms, 10 % 500s, 15 s) and both of Dapr's gates.
func TestActorDoubleActivationIsDaprs(t *testing.T) {
	sc := scenarios.ActorDoubleActivation()
	assert.Equal(t, []string{"actorapp-0", "actorapp-1", "actorapp-2"}, scenarios.DoubleActivationHosts())
	var hosts int
	for _, a := range sc.Apps {
		if a.Kind == perf.ActorApp {
			hosts++
			assert.Equal(t, perf.DefaultPlacement, a.Sidecar.PlacementGroup(), a.Name)
			assert.Equal(t, []perf.Backend{perf.BackendRedis}, a.Backends, a.Name)
		}
	}
	assert.Equal(t, 3, hosts)
	assert.Equal(t, []string{perf.DefaultPlacement}, perf.PlacementGroups(sc.Apps), "one placement for the tester and every host")
	assert.Equal(t, scenarios.DoubleActivationID, sc.Main.Operation.ActorID)
	assert.True(t, sc.Main.ThroughSidecar)
	fp, ok := sc.Plan.(*plan.FaultPlan)
	require.True(t, ok)
	assert.Equal(t, 50*time.Millisecond, fp.Delay)
	assert.Equal(t, 0.1, fp.FailFraction)
	assert.Equal(t, 15*time.Second, fp.Window)
	assert.Equal(t, scenarios.DoubleActivationBasePeakVUs, fp.Base.PeakVUs())
	assert.Equal(t, scenarios.DoubleActivationFaultPeakVUs, fp.Faults.PeakVUs())
	assert.Equal(t, 15*time.Second, fp.Faults.ScheduleDuration(), "the window covers the faults phase, as Dapr's")
	gates := map[string]perf.Threshold{}
	for _, th := range sc.Thresholds {
		gates[th.Figure] = th
	}
	for _, f := range []string{"errors.other", "actors.doubleActivations", "restarts", "actors.errors"} {
		require.Contains(t, gates, f)
		assert.Equal(t, perf.AtMost, gates[f].Op, f)
		assert.Zero(t, gates[f].Limit, f)
	}
	assert.Equal(t, perf.AtLeast, gates["errors.injected"].Op)
}
