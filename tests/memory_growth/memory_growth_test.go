//go:build perf

package memorygrowth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestMemoryGrowthPerformance asserts the caller sidecar's verdict per variant on the pinned daprd, and
// that the callee's sidecar grows with unique paths too: a release that changes any of them
// fails here. (The callee's flat variants are reported, not asserted: with
// increasedCardinality false its RSS creeps by about 200 KiB per 1,000 requests, near the
// threshold, while its Go heap shrinks.)
func TestMemoryGrowthPerformance(t *testing.T) {
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
	callee := perf.SidecarName(scenarios.TargetApp)
	for _, variant := range []string{scenarios.GrowthUnique, scenarios.GrowthUniqueNoMetrics} {
		assert.Equal(t, perf.Growing, rep.Growth.Verdict(variant, callee), "variant %s, %s", variant, callee)
	}
}
