//go:build perf

package stategethttp_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestStateGetHTTPPerformance runs state_get over http on each store, one subtest per
// store: in-memory (Dapr's no-op baseline), redis and postgresql (direct-to-store baseline).
func TestStateGetHTTPPerformance(t *testing.T) {
	for _, store := range scenarios.StateStores {
		sc := scenarios.StateGet(perf.HTTP, store)
		t.Run(sc.Test, func(t *testing.T) { scenarios.Run(t, sc) })
		if store == perf.StateInMemory {
			sc := scenarios.StateGetSeeded(perf.HTTP)
			t.Run(sc.Test, func(t *testing.T) { scenarios.Run(t, sc) })
		}
	}
}
