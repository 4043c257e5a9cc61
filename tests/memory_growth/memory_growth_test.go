//go:build perf

package memorygrowth_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestMemoryGrowthPerformance runs the method-name memory-growth variants (one alone with
// -run 'TestMemoryGrowthPerformance/a-fixed'). It fails only where the detector misbehaves: the control
// variant is not flat, or a sidecar's /metrics series and its RSS disagree. A verdict that
// differs from expected_verdicts.csv for the daprd version is reported as a changed verdict.
func TestMemoryGrowthPerformance(t *testing.T) {
	scenarios.RunGrowth(t, scenarios.MemoryGrowth())
}
