//go:build perf

package memorygrowth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestMemoryGrowth asserts the caller sidecar's verdict per variant on the pinned daprd: a
// release that changes any of them fails here.
func TestMemoryGrowth(t *testing.T) {
	rep := scenarios.RunGrowth(t, scenarios.MemoryGrowth())
	caller := perf.SidecarName(scenarios.TesterApp)
	for variant, want := range map[string]perf.GrowthVerdict{
		scenarios.GrowthFixed:            perf.Flat,
		scenarios.GrowthUnique:           perf.Growing,
		scenarios.GrowthUniqueNoMetrics:  perf.Growing,
		scenarios.GrowthUniqueLowCard:    perf.Flat,
		scenarios.GrowthUniqueMetricsOff: perf.Flat,
	} {
		assert.Equal(t, want, rep.Growth.Verdict(variant, caller), "variant %s, %s", variant, caller)
	}
}
