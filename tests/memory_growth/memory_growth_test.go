//go:build perf

package memorygrowth_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestMemoryGrowthPerformance runs the method-name memory-growth variants through the one
// runner (one alone with -run 'TestMemoryGrowthPerformance/a-fixed'). It fails where the
// detector misbehaves (the control variant is not flat, or a sidecar's /metrics series and its
// RSS disagree), on a failed request or a restart, and when a round's load missed its
// schedule. A verdict that differs from expected_verdicts.csv for the daprd version is
// reported as a changed verdict, not failed.
func TestMemoryGrowthPerformance(t *testing.T) {
	scenarios.Run(t, scenarios.MemoryGrowth())
}
