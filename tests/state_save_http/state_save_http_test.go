//go:build perf

package statesavehttp_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestStateSaveHTTPPerformance runs state_save over http on each store, one subtest per
// store: in-memory (Dapr's no-op baseline), redis and postgresql (direct-to-store baseline).
func TestStateSaveHTTPPerformance(t *testing.T) {
	for _, store := range scenarios.StateStores {
		sc := scenarios.StateSave(perf.HTTP, store)
		t.Run(sc.Test, func(t *testing.T) { scenarios.Run(t, sc) })
	}
}
