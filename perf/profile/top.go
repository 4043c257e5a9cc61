package profile

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/daprperf/daprperf/perf"
)

// SampleTypeIndex is the index of p's sample type named typ ("cpu", "alloc_space"), or -1.
func SampleTypeIndex(p *profile.Profile, typ string) int { return sampleIndex(p, typ) }

// sampleIndex is the index of p's sample type named typ, or -1.
func sampleIndex(p *profile.Profile, typ string) int {
	return slices.IndexFunc(p.SampleType, func(st *profile.ValueType) bool { return st.Type == typ })
}

// total is the sum of p's samples' values at index i.
func total(p *profile.Profile, i int) int64 {
	var t int64
	for _, s := range p.Sample {
		if i < len(s.Value) {
			t += s.Value[i]
		}
	}
	return t
}

// Top is the n functions of p with the largest flat value at sample index i, as go tool
// pprof -top counts them: flat is a sample's value for the function of its leaf frame (the
// innermost function of the first location, inlined frames included), cum its value once for
// each distinct function on its stack. Shares are of the total of the samples' values; a
// total of 0 gives no functions. Ties sort by name.
func Top(p *profile.Profile, i, n int) []perf.FunctionShare {
	tot := total(p, i)
	if tot == 0 {
		return nil
	}
	flat, cum := map[string]int64{}, map[string]int64{}
	for _, s := range p.Sample {
		if i >= len(s.Value) || s.Value[i] == 0 {
			continue
		}
		v := s.Value[i]
		seen := map[string]bool{}
		for li, loc := range s.Location {
			for ln, line := range loc.Line {
				name := "?"
				if line.Function != nil {
					name = line.Function.Name
				}
				if li == 0 && ln == 0 {
					flat[name] += v
				}
				if !seen[name] {
					seen[name] = true
					cum[name] += v
				}
			}
		}
	}
	out := make([]perf.FunctionShare, 0, len(cum))
	for name, c := range cum {
		out = append(out, perf.FunctionShare{Function: name, Flat: float64(flat[name]) / float64(tot), Cum: float64(c) / float64(tot), Value: flat[name]})
	}
	slices.SortFunc(out, func(a, b perf.FunctionShare) int {
		return cmp.Or(cmp.Compare(b.Value, a.Value), cmp.Compare(b.Cum, a.Cum), cmp.Compare(a.Function, b.Function))
	})
	return out[:min(n, len(out))]
}

// cpuTop is the top functions of a CPU profile (its "cpu" sample type, nanoseconds) and the
// CPU seconds it sampled.
func cpuTop(p *profile.Profile) ([]perf.FunctionShare, float64) {
	i := sampleIndex(p, "cpu")
	if i < 0 {
		return nil, 0
	}
	return Top(p, i, perf.ProfileTop), float64(total(p, i)) / 1e9
}

// allocTop is what was allocated between two heap profiles of one process, start then end:
// the top functions by bytes allocated (alloc_space, end minus start), the bytes allocated and
// the change of the heap in use (inuse_space). Heap profiles are cumulative from the process's
// start for alloc_*, so the difference is the load's.
func allocTop(start, end *profile.Profile) ([]perf.FunctionShare, int64, int64, error) {
	d, err := Diff(start, end)
	if err != nil {
		return nil, 0, 0, err
	}
	ai, ui := sampleIndex(d, "alloc_space"), sampleIndex(d, "inuse_space")
	if ai < 0 || ui < 0 {
		return nil, 0, 0, errors.New("not a heap profile (no alloc_space and inuse_space)")
	}
	return Top(d, ai, perf.ProfileTop), total(d, ai), total(d, ui), nil
}

// Diff is end minus start, two profiles of one kind: start's values negated and merged into
// end's (profile.Merge), as go tool pprof -diff_base computes it.
func Diff(start, end *profile.Profile) (*profile.Profile, error) {
	s := start.Copy()
	s.Scale(-1)
	return profile.Merge([]*profile.Profile{end.Copy(), s})
}

// HeapSite is one allocation site of a heap profile's difference: the function that allocated
// (the innermost frame), the first frame above it in one of the named code's packages (the
// caller in daprd's own code that led there), and the bytes it added.
type HeapSite struct {
	Function string
	Via      string
	Bytes    int64
}

// InUseGrowth is where the heap in use grew between two heap profiles of one process, start
// then end: the n allocation sites (innermost function and, per via, the first frame whose
// function starts with one of prefixes) whose inuse_space grew the most, largest first, and
// the net change over all sites (bytes; negative when the heap shrank). Sites that shrank are
// left out. A heap profile's inuse_space is as of the last garbage collection before it.
func InUseGrowth(start, end *profile.Profile, n int, prefixes ...string) ([]HeapSite, int64, error) {
	d, err := Diff(start, end)
	if err != nil {
		return nil, 0, err
	}
	i := sampleIndex(d, "inuse_space")
	if i < 0 {
		return nil, 0, errors.New("not a heap profile (no inuse_space)")
	}
	type key struct{ fn, via string }
	bytes := map[key]int64{}
	for _, s := range d.Sample {
		if i >= len(s.Value) || s.Value[i] == 0 || len(s.Location) == 0 {
			continue
		}
		k := key{fn: "?"}
		first := true
		for _, loc := range s.Location {
			for _, line := range loc.Line {
				name := "?"
				if line.Function != nil {
					name = line.Function.Name
				}
				if first {
					k.fn, first = name, false
					continue
				}
				if k.via == "" && hasPrefix(name, prefixes) {
					k.via = name
				}
			}
		}
		bytes[k] += s.Value[i]
	}
	var out []HeapSite
	for k, b := range bytes {
		if b > 0 {
			out = append(out, HeapSite{Function: k.fn, Via: k.via, Bytes: b})
		}
	}
	slices.SortFunc(out, func(a, b HeapSite) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Function, b.Function), cmp.Compare(a.Via, b.Via))
	})
	return out[:min(n, len(out))], total(d, i), nil
}

func hasPrefix(s string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(s, p) })
}

// flatShares is each function's flat share of p's total at sample index i (Top's counting).
func flatShares(p *profile.Profile, i int) map[string]float64 {
	out := map[string]float64{}
	for _, f := range Top(p, i, math.MaxInt) {
		if f.Flat != 0 {
			out[f.Function] = f.Flat
		}
	}
	return out
}

// ShareDiff is how the flat shares of the functions of two profiles of one kind differ, b
// against a, at the sample type typ ("cpu", "alloc_space"), with na and nb samples: the n
// functions whose share changed the most, those beyond noise first (FunctionDelta.Beyond),
// each group by the size of the change, with both shares. A function absent from one has share
// 0 there. Shares, not values, so that two loads of different length or rate compare.
func ShareDiff(a, b *profile.Profile, typ string, na, nb float64, n int) ([]perf.FunctionDelta, error) {
	ia, ib := sampleIndex(a, typ), sampleIndex(b, typ)
	if ia < 0 || ib < 0 {
		return nil, fmt.Errorf("profile diff: no sample type %q in both profiles", typ)
	}
	sa, sb := flatShares(a, ia), flatShares(b, ib)
	var out []perf.FunctionDelta
	for f, v := range sa {
		out = append(out, perf.FunctionDelta{Function: f, A: v, B: sb[f], Delta: sb[f] - v})
	}
	for f, v := range sb {
		if _, ok := sa[f]; !ok {
			out = append(out, perf.FunctionDelta{Function: f, B: v, Delta: v})
		}
	}
	for i := range out {
		d := &out[i]
		if na > 0 && nb > 0 {
			// Agresti and Caffo (2000): one success and one failure added to each side, so
			// that a share of 0 in a small profile does not read as known exactly.
			pa, pb := (d.A*na+1)/(na+2), (d.B*nb+1)/(nb+2)
			se := math.Sqrt(pa*(1-pa)/(na+2) + pb*(1-pb)/(nb+2))
			d.Beyond = math.Abs(d.Delta) > 2*se
		}
	}
	slices.SortFunc(out, func(x, y perf.FunctionDelta) int {
		return cmp.Or(-cmp.Compare(b2i(x.Beyond), b2i(y.Beyond)), cmp.Compare(math.Abs(y.Delta), math.Abs(x.Delta)), cmp.Compare(x.Function, y.Function))
	})
	return out[:min(n, len(out))], nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CPUSamples is how many samples a CPU profile holds (its "samples" sample type).
func CPUSamples(p *profile.Profile) float64 {
	if i := sampleIndex(p, "samples"); i >= 0 {
		return float64(total(p, i))
	}
	return 0
}

// memProfileRate is Go's default runtime.MemProfileRate: about one heap sample per 512 KiB
// allocated.
const memProfileRate = 512 << 10

// AllocSamples is about how many samples a heap profile's alloc_space (or a difference of two)
// stands on: its bytes over Go's default sampling rate.
func AllocSamples(p *profile.Profile) float64 {
	if i := sampleIndex(p, "alloc_space"); i >= 0 {
		return float64(total(p, i)) / memProfileRate
	}
	return 0
}

// Load reads a profile file (gzipped pprof protobuf, as Capture writes them).
func Load(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}
