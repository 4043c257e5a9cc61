package charts

import (
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/profile"
)

// The flame graph has a frame per node wide enough to see, the root at the bottom across the
// whole width, callees above their caller, tooltips with the share, labels cut to fit with
// the package path dropped first, and no frame for one narrower than half a pixel.
func TestFlameSVG(t *testing.T) {
	tree := &profile.Node{Function: "all", Value: 10000, Children: []*profile.Node{
		{Function: "github.com/dapr/dapr/pkg/api/grpc.(*server).getMiddlewareOptions", Value: 3000, Children: []*profile.Node{
			{Function: "runtime.mallocgc", Value: 1500, Self: 1500},
		}},
		{Function: "net/http.(*conn).serve", Value: 6999, Self: 6999},
		{Function: "tiny", Value: 1, Self: 1},
	}}
	svg := flameSVG(tree, `CPU of a "daprd" <x>`)
	if n := strings.Count(svg, "<g>"); n != 4 {
		t.Errorf("%d frames, want 4 (all, two callees, one below; tiny left out):\n%s", n, svg)
	}
	for _, want := range []string{
		`height="72"`, // title band and 3 levels of 16 px
		`CPU of a &#34;daprd&#34; &lt;x&gt;`,
		`<title>all (100.00 %)</title><rect x="0.00" y="56" width="1200.00"`,
		`<title>github.com/dapr/dapr/pkg/api/grpc.(*server).getMiddlewareOptions (30.00 %)</title><rect x="0.00" y="40" width="360.00"`,
		`<title>runtime.mallocgc (15.00 %)</title><rect x="0.00" y="24" width="180.00"`,
		`>grpc.(*server).getMiddlewareOptions</text>`, // 65 characters do not fit in 360 px
		`<title>net/http.(*conn).serve (69.99 %)</title><rect x="360.00" y="40"`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("no %q in:\n%s", want, svg)
		}
	}
	if strings.Contains(svg, "tiny") {
		t.Error("a frame of 0.12 px is drawn")
	}
}

// A result file copied without its profile files (as a published one may be) draws no flame
// graph for them and no error: every other chart and page is still drawn.
func TestFlameGraphsOfAResultWithoutItsProfiles(t *testing.T) {
	rep := &perf.Report{Profiles: []perf.SidecarProfiles{{Process: "tester-daprd", Files: map[string]string{"cpu": "profiles/T/tester-daprd.cpu.pb.gz"}}}}
	images, err := writeFlameGraphs(scenario{Dir: t.TempDir(), Report: rep})
	if err != nil || len(images) != 0 {
		t.Fatalf("writeFlameGraphs = %d images, %v; want none and no error", len(images), err)
	}
}
