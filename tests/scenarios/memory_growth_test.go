package scenarios

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/growth"
)

// The expected-verdicts table parses, names only MemoryGrowth's variants and sidecar roles,
// has the control flat, and has a row for every variant and sidecar of each version it lists.
func TestMemoryGrowthExpectedVerdictsTable(t *testing.T) {
	root, err := perf.RepoRoot()
	require.NoError(t, err)
	rows, err := growth.ReadExpectations(filepath.Join(root, GrowthExpectedVerdicts))
	require.NoError(t, err)
	var variants []string
	controls := 0
	for _, v := range GrowthVariants(MemoryGrowth()) {
		variants = append(variants, v.Name)
		if v.Control {
			controls++
			assert.Equal(t, GrowthFixed, v.Name)
		}
	}
	assert.Equal(t, 1, controls)
	pairs := map[string]int{}
	for _, r := range rows {
		assert.Contains(t, variants, r.Variant)
		assert.Contains(t, []string{"caller-sidecar", "callee-sidecar"}, r.Sidecar)
		pairs[r.Version]++
		if r.Variant == GrowthFixed {
			assert.Equal(t, growth.Flat, r.Verdict, "the control is flat on %s", r.Version)
		}
	}
	require.NotEmpty(t, pairs)
	for version, n := range pairs {
		assert.Equal(t, 2*len(variants), n, "rows of %s", version)
	}
	assert.True(t, slices.Contains(variants, GrowthUniquePathMatch))
}

// The growth plan runs build A alone in an A/B run (perf.SingleBuild), and the overhead plan
// both builds: Run picks the platform by it.
func TestOnlyTheGrowthPlanIsSingleBuild(t *testing.T) {
	for sc, want := range map[string]bool{"memory_growth": true, "service_invocation": false} {
		s := MemoryGrowth()
		if sc == "service_invocation" {
			s = ServiceInvocation(perf.HTTP)
		}
		single, ok := s.Plan.(perf.SingleBuild)
		if got := ok && single.SingleBuild(); got != want {
			t.Errorf("%s: single build %v, want %v", sc, got, want)
		}
	}
}
