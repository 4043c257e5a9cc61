package profile

import (
	"context"
	"net/http"
	"net/http/httptest"
	httppprof "net/http/pprof"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// Flat goes to the leaf frame's innermost function, cumulative once per distinct function on a
// stack (a recursive frame counts once); shares are of the total.
func TestTopCountsFlatAndCumulative(t *testing.T) {
	fn := func(id uint64, name string) *profile.Function { return &profile.Function{ID: id, Name: name} }
	leaf, mid, root, inl := fn(1, "leaf"), fn(2, "mid"), fn(3, "root"), fn(4, "inlined")
	loc := func(id uint64, fs ...*profile.Function) *profile.Location {
		l := &profile.Location{ID: id}
		for _, f := range fs {
			l.Line = append(l.Line, profile.Line{Function: f})
		}
		return l
	}
	lLeaf, lMid, lRoot, lInl := loc(1, leaf), loc(2, mid), loc(3, root), loc(4, inl, mid) // inlined into mid
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{lLeaf, lMid, lRoot}, Value: []int64{6, 60}},
			{Location: []*profile.Location{lInl, lRoot}, Value: []int64{3, 30}},
			{Location: []*profile.Location{lMid, lMid, lRoot}, Value: []int64{1, 10}}, // recursion
		},
		Function: []*profile.Function{leaf, mid, root, inl},
		Location: []*profile.Location{lLeaf, lMid, lRoot, lInl},
	}
	require.NoError(t, p.CheckValid())
	top := Top(p, 1, 10)
	byName := map[string]perf.FunctionShare{}
	for _, f := range top {
		byName[f.Function] = f
	}
	assert.Equal(t, "leaf", top[0].Function)
	assert.InDelta(t, 0.6, byName["leaf"].Flat, 1e-12)
	assert.InDelta(t, 0.3, byName["inlined"].Flat, 1e-12, "the innermost inlined function is the leaf")
	assert.InDelta(t, 0.1, byName["mid"].Flat, 1e-12)
	assert.InDelta(t, 1.0, byName["mid"].Cum, 1e-12, "on every stack, the recursive one counted once")
	assert.InDelta(t, 1.0, byName["root"].Cum, 1e-12)
	assert.Zero(t, byName["root"].Flat)
	assert.Equal(t, int64(60), byName["leaf"].Value)
	assert.Len(t, Top(p, 1, 2), 2)
	assert.Nil(t, Top(&profile.Profile{SampleType: p.SampleType}, 1, 10), "no samples: no functions")
}

// CPUWindow takes the middle of the load, at most perf.ProfileCPUWindow seconds, at least one.
func TestCPUWindow(t *testing.T) {
	lead, s := CPUWindow(time.Minute)
	assert.Equal(t, perf.ProfileCPUWindow, s)
	assert.Equal(t, 15*time.Second, lead)
	lead, s = CPUWindow(10 * time.Second)
	assert.Equal(t, 8, s)
	assert.Equal(t, time.Second, lead)
	lead, s = CPUWindow(time.Second)
	assert.Equal(t, 1, s)
	assert.Zero(t, lead)
}

var sink [][]byte

// Against this test process's own net/http/pprof: the CPU it burns and the bytes it allocates
// during the "load" are in the profiles, the files are written for go tool pprof, and a
// profiling port that is not there is an error of the summary, not a failure.
func TestCaptureReadsARealPprofEndpoint(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", httppprof.Index)
	mux.HandleFunc("/debug/pprof/profile", httppprof.Profile)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	dir := t.TempDir()
	c := Start(t.Context(), srv.URL, 3*time.Second, perf.SidecarProfiles{Process: "app-daprd", Role: "callee-sidecar", During: "round 1"})
	deadline := time.Now().Add(2500 * time.Millisecond)
	x := 0
	for time.Now().Before(deadline) { // a bounded busy loop that also allocates
		for i := range 10000 {
			x += i * i
		}
		sink = append(sink[:0], make([]byte, 64<<10))
	}
	_ = x
	out := c.Finish(context.Background(), filepath.Join(dir, "profiles"), dir, "app-daprd")
	assert.Empty(t, out.Errors)
	assert.Equal(t, 1.0, out.CPUWindowSeconds)
	assert.Greater(t, out.CPUSampleSeconds, 0.1, "a second of busy loop")
	require.NotEmpty(t, out.TopCPU)
	assert.Greater(t, out.AllocBytes, int64(1<<20), "64 KiB at a time for 2.5 s")
	require.NotEmpty(t, out.TopAlloc)
	assert.Greater(t, out.Goroutines, int64(1))
	assert.Equal(t, map[string]string{"cpu": "profiles/app-daprd.cpu.pb.gz", "heap-start": "profiles/app-daprd.heap-start.pb.gz",
		"heap-end": "profiles/app-daprd.heap-end.pb.gz", "goroutine": "profiles/app-daprd.goroutine.pb.gz"}, out.Files)
	f, err := os.Open(filepath.Join(dir, out.Files["cpu"]))
	require.NoError(t, err)
	defer f.Close()
	p, err := profile.Parse(f)
	require.NoError(t, err, "the file is a profile go tool pprof reads")
	assert.NotEmpty(t, p.Sample)

	gone := Start(t.Context(), "http://127.0.0.1:1", 3*time.Second, perf.SidecarProfiles{Process: "x-daprd"})
	out = gone.Finish(context.Background(), filepath.Join(dir, "gone"), dir, "x-daprd")
	assert.Empty(t, out.Files)
	require.NotEmpty(t, out.Errors)
	assert.True(t, strings.HasPrefix(out.Errors[0], "heap-start: "), out.Errors)
	assert.Contains(t, strings.Join(out.Errors, "\n"), "cpu: the load ended before the profile's window began")
}

// heapProfile is a heap profile of sites, each (leaf, caller, inuse bytes), with alloc_space
// equal to inuse.
func heapProfile(sites ...struct {
	leaf, caller string
	inuse        int64
}) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"},
		{Type: "inuse_objects", Unit: "count"}, {Type: "inuse_space", Unit: "bytes"}}}
	funcs := map[string]*profile.Function{}
	locs := map[string]*profile.Location{}
	loc := func(name string) *profile.Location {
		if l, ok := locs[name]; ok {
			return l
		}
		f := &profile.Function{ID: uint64(len(funcs) + 1), Name: name}
		funcs[name] = f
		p.Function = append(p.Function, f)
		l := &profile.Location{ID: uint64(len(locs) + 1), Line: []profile.Line{{Function: f}}}
		locs[name] = l
		p.Location = append(p.Location, l)
		return l
	}
	for _, s := range sites {
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc(s.leaf), loc(s.caller)}, Value: []int64{1, s.inuse, 1, s.inuse}})
	}
	return p
}

// The sites whose heap in use grew, largest first, each with the first frame of the named code
// above it; a site that shrank is left out and counted in the net change.
func TestInUseGrowth(t *testing.T) {
	type site = struct {
		leaf, caller string
		inuse        int64
	}
	start := heapProfile(site{"view.addSample", "github.com/dapr/dapr/pkg/diag.Record", 1 << 20}, site{"bufio.NewReader", "net/http.serve", 4 << 20})
	end := heapProfile(site{"view.addSample", "github.com/dapr/dapr/pkg/diag.Record", 21 << 20}, site{"bufio.NewReader", "net/http.serve", 3 << 20},
		site{"github.com/dapr/dapr/pkg/x.New", "main.main", 2 << 20})
	sites, net, err := InUseGrowth(start, end, 5, "github.com/dapr/")
	require.NoError(t, err)
	assert.Equal(t, []HeapSite{
		{Function: "view.addSample", Via: "github.com/dapr/dapr/pkg/diag.Record", Bytes: 20 << 20},
		{Function: "github.com/dapr/dapr/pkg/x.New", Bytes: 2 << 20},
	}, sites)
	assert.Equal(t, int64(21<<20), net, "+20 +2 -1 MiB")
	_, _, err = InUseGrowth(&profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}},
		&profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}}, 5)
	assert.ErrorContains(t, err, "not a heap profile")
}

// The functions whose flat share changed the most, either way, with both shares; a function
// in one profile only has share 0 in the other.
func TestShareDiff(t *testing.T) {
	type site = struct {
		leaf, caller string
		inuse        int64
	}
	a := heapProfile(site{"json.Marshal", "main.h", 50}, site{"io.copyBuffer", "main.h", 50})
	b := heapProfile(site{"json.Marshal", "main.h", 20}, site{"io.copyBuffer", "main.h", 60}, site{"proto.Marshal", "main.h", 20})
	ds, err := ShareDiff(a, b, "alloc_space", 0, 0, 10)
	require.NoError(t, err)
	want := []perf.FunctionDelta{
		{Function: "json.Marshal", A: 0.5, B: 0.2, Delta: -0.3},
		{Function: "proto.Marshal", A: 0, B: 0.2, Delta: 0.2},
		{Function: "io.copyBuffer", A: 0.5, B: 0.6, Delta: 0.1},
	}
	require.Len(t, ds, len(want))
	for i, w := range want {
		assert.Equal(t, w.Function, ds[i].Function)
		assert.InDelta(t, w.A, ds[i].A, 1e-12, w.Function)
		assert.InDelta(t, w.B, ds[i].B, 1e-12, w.Function)
		assert.InDelta(t, w.Delta, ds[i].Delta, 1e-12, w.Function)
	}
	_, err = ShareDiff(a, b, "cpu", 0, 0, 10)
	assert.ErrorContains(t, err, `no sample type "cpu"`)

	// Beyond noise: at 100 samples each, 0.5 -> 0.2 (2 SE = 0.13) is; 0.5 -> 0.6 (0.14) is not;
	// it sorts first.
	ds, err = ShareDiff(a, b, "alloc_space", 100, 100, 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"json.Marshal", "proto.Marshal", "io.copyBuffer"}, []string{ds[0].Function, ds[1].Function, ds[2].Function})
	assert.Equal(t, []bool{true, true, false}, []bool{ds[0].Beyond, ds[1].Beyond, ds[2].Beyond})
	ds, err = ShareDiff(a, b, "alloc_space", 10, 10, 10)
	require.NoError(t, err)
	assert.False(t, ds[0].Beyond, "10 samples each: 0.3 is under 2 SE (0.42)")
}

// The tree adds each stack from the root, inlined frames as frames of their own, values at
// and under each frame, callees by name.
func TestTree(t *testing.T) {
	fn := func(id uint64, name string) *profile.Function { return &profile.Function{ID: id, Name: name} }
	leaf, mid, root, inl := fn(1, "leaf"), fn(2, "mid"), fn(3, "root"), fn(4, "inlined")
	lLeaf := &profile.Location{ID: 1, Line: []profile.Line{{Function: leaf}}}
	lMid := &profile.Location{ID: 2, Line: []profile.Line{{Function: mid}}}
	lRoot := &profile.Location{ID: 3, Line: []profile.Line{{Function: root}}}
	lInl := &profile.Location{ID: 4, Line: []profile.Line{{Function: inl}, {Function: mid}}}
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{lLeaf, lMid, lRoot}, Value: []int64{6}},
			{Location: []*profile.Location{lInl, lRoot}, Value: []int64{3}},
			{Location: []*profile.Location{lRoot}, Value: []int64{1}},
		}}
	tr := Tree(p, 0)
	assert.Equal(t, int64(10), tr.Value)
	require.Len(t, tr.Children, 1)
	r := tr.Children[0]
	assert.Equal(t, "root", r.Function)
	assert.Equal(t, int64(10), r.Value)
	assert.Equal(t, int64(1), r.Self)
	require.Len(t, r.Children, 1, "mid, called directly and with inlined code")
	m := r.Children[0]
	assert.Equal(t, int64(9), m.Value)
	require.Len(t, m.Children, 2)
	assert.Equal(t, []string{"inlined", "leaf"}, []string{m.Children[0].Function, m.Children[1].Function}, "by name")
	assert.Equal(t, int64(3), m.Children[0].Self)
}
