package growth

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Only a growing sidecar's heap sites are named, the largest three, each with the daprd
// function that led there; a flat one's are not, however large.
func TestHeapSitesNamedOnlyBehindAGrowth(t *testing.T) {
	sites := []HeapSite{
		{Function: "go.opencensus.io/stats/view.(*collector).addSample", Via: "github.com/dapr/dapr/pkg/diagnostics.(*httpMetrics).ServerRequestCompleted", Bytes: 20 << 20},
		{Function: "go.opencensus.io/tag.(*Map).upsert", Bytes: 5 << 20},
		{Function: "strings.(*Builder).grow", Via: "github.com/dapr/dapr/pkg/diagnostics.x", Bytes: 1 << 20},
		{Function: "fourth", Bytes: 1 << 10},
	}
	g := &Report{Variants: []Variant{
		{Name: "b-unique", UniquePath: true, Sidecars: []Sidecar{{Role: "callee-sidecar", Growth: Classification{Verdict: Growing}, HeapGrowthBytes: 26 << 20, HeapSites: sites}}},
		{Name: "a-fixed", Control: true, Sidecars: []Sidecar{{Role: "callee-sidecar", Growth: Classification{Verdict: Flat}, HeapGrowthBytes: 1 << 20, HeapSites: sites}}},
	}}
	var b strings.Builder
	heapSiteLines(&b, g)
	out := b.String()
	assert.Equal(t, "where the growing sidecars' heap grew (pprof inuse_space, first reading to last):\n"+
		"  b-unique callee-sidecar (heap in use +26.0 MiB): go.opencensus.io/stats/view.(*collector).addSample +20.0 MiB (via github.com/dapr/dapr/pkg/diagnostics.(*httpMetrics).ServerRequestCompleted); "+
		"go.opencensus.io/tag.(*Map).upsert +5.0 MiB; strings.(*Builder).grow +1.0 MiB (via github.com/dapr/dapr/pkg/diagnostics.x)\n", out)
	assert.NotContains(t, out, "a-fixed")

	g.Variants = g.Variants[1:]
	b.Reset()
	heapSiteLines(&b, g)
	assert.Empty(t, b.String(), "no growing sidecar: no site named")
}
