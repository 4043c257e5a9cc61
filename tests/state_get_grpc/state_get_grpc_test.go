//go:build perf

package stategetgrpc_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestStateGetGrpcPerformance runs state_get over grpc on each store, one subtest per
// store: in-memory (Dapr's no-op baseline), redis and postgresql (direct-to-store baseline).
func TestStateGetGrpcPerformance(t *testing.T) {
	for _, store := range scenarios.StateStores {
		sc := scenarios.StateGet(perf.GRPC, store)
		t.Run(sc.Test, func(t *testing.T) { scenarios.Run(t, sc) })
		if store == perf.StateInMemory {
			sc := scenarios.StateGetSeeded(perf.GRPC)
			t.Run(sc.Test, func(t *testing.T) { scenarios.Run(t, sc) })
		}
	}
}
