package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
)

// Every state scenario has its own result path, the baseline its store calls for, Dapr's four
// gates with their source, Dapr's load, and the setup that seeds the key a state_get reads,
// except on in-memory, where Dapr's test reads a key never written (state_get_seeded seeds it).
func TestStateScenarios(t *testing.T) {
	paths := map[string]bool{}
	for _, tr := range []perf.Protocol{perf.HTTP, perf.GRPC} {
		for _, store := range StateStores {
			scs := []perf.Scenario{StateGet(tr, store), StateSave(tr, store)}
			if store == perf.StateInMemory {
				scs = append(scs, StateGetSeeded(tr))
			}
			for _, sc := range scs {
				path := sc.Test + "/" + string(sc.Transport)
				assert.False(t, paths[path], "result path %s used twice", path)
				paths[path] = true

				want := perf.BaselineStore
				if store == perf.StateInMemory {
					want = perf.BaselineNoOp
				}
				assert.Equal(t, want, sc.Baseline.Operation.BaselineKind(), path)
				assert.Equal(t, stateComponentLabel[store], sc.Component, "%s: the push's component label", path)
				if store == perf.StateInMemory {
					assert.Equal(t, "inmemory", sc.Component, "%s: Dapr's label", path)
				}
				assert.False(t, sc.Baseline.ThroughSidecar, path)
				assert.True(t, sc.Main.ThroughSidecar, path)
				require.Len(t, sc.Thresholds, 5, path)
				for _, th := range sc.Thresholds {
					assert.Contains(t, th.Source, "state_get_http/_grpc", path)
				}
				p, err := runner.EnvFor(t).MainParams(sc.MainOptions...)
				require.NoError(t, err, path)
				assert.Equal(t, 1000, p.QPS, path)
				assert.Equal(t, 16, p.Connections, path)
				switch {
				case sc.Main.Operation.Kind == perf.OpStateGet && sc.Test == "state_get":
					assert.Zero(t, p.PayloadBytes, path)
					assert.Empty(t, sc.Setup, "%s: Dapr's test reads a key never written", path)
				case sc.Main.Operation.Kind == perf.OpStateGet:
					assert.Zero(t, p.PayloadBytes, path)
					require.Len(t, sc.Setup, 1, path)
					assert.Equal(t, perf.OpStateSave, sc.Setup[0].Route.Operation.Kind, path)
					assert.Equal(t, StateKey, sc.Setup[0].Route.Operation.Key, path)
					assert.True(t, sc.Setup[0].Route.ThroughSidecar, "%s: seeded through daprd", path)
				default:
					assert.Equal(t, StateValueBytes, p.PayloadBytes, path)
				}
			}
		}
	}
	assert.Len(t, paths, 14)
	for _, name := range []string{"state_get", "state_get_seeded", "state_get_redis", "state_get_postgresql", "state_save", "state_save_redis", "state_save_postgresql"} {
		assert.True(t, paths[name+"/http"] && paths[name+"/grpc"], name)
	}
}
