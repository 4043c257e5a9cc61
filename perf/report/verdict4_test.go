package report_test

import (
	"math"
	"slices"
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// around returns n values v·(1 + spread·s_i), s_i cycling through −1, 0, +1.
func around(v, spread float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v * (1 + spread*float64(i%3-1))
	}
	return out
}

// TestPairedDifferenceVerdicts: per-round pairs of one figure (A about 2 ms).
func TestPairedDifferenceVerdicts(t *testing.T) {
	rule := report.DefaultChangeRule()
	a := around(0.002, 0.02, 8)
	scaled := func(f float64) []float64 {
		b := slices.Clone(a)
		for i := range b {
			b[i] *= f
		}
		return b
	}
	// B 10 % slower in all 8 rounds: the [min, max] interval of the differences is at
	// 1 − 2/2^8 = 99.2 % and above zero.
	d := report.PairedDifference("latency p90", "s", a, scaled(1.10), false, rule)
	if d.Verdict != perf.VerdictRegressed || !d.HasInterval || math.Abs(d.Confidence-(1-2.0/256)) > 1e-12 || d.Low <= 0 {
		t.Errorf("10 %% slower: %+v", d)
	}
	if math.Abs(d.Change-0.10) > 1e-9 || d.Margin != 0.05 {
		t.Errorf("10 %% slower: change %v, margin %v", d.Change, d.Margin)
	}
	if d := report.PairedDifference("latency p90", "s", a, scaled(0.90), false, rule); d.Verdict != perf.VerdictImproved {
		t.Errorf("10 %% faster: %s", d.Verdict)
	}
	// The same build: B − A of ±1 % alternating: straddles 0, and its 90 % interval is within ± 5 %.
	same := slices.Clone(a)
	for i := range same {
		same[i] *= 1 + 0.01*float64(2*(i%2)-1)
	}
	if d := report.PairedDifference("latency p90", "s", a, same, false, rule); d.Verdict != perf.VerdictSame || d.SameLow >= 0 || d.SameHigh <= 0 {
		t.Errorf("same build: %+v", d)
	}
	// ±10 % alternating: straddles 0 and reaches past the margin.
	wide := slices.Clone(a)
	for i := range wide {
		wide[i] *= 1 + 0.10*float64(2*(i%2)-1)
	}
	if d := report.PairedDifference("latency p90", "s", a, wide, false, rule); d.Verdict != perf.VerdictUndecided {
		t.Errorf("±10 %%: %s, want undecided", d.Verdict)
	}
	// 7 rounds 10 % slower: 1 − 2/2^7 = 98.4 % < 99 %, so no decision interval: undecided.
	if d := report.PairedDifference("latency p90", "s", a[:7], scaled(1.10)[:7], false, rule); d.Verdict != perf.VerdictUndecided || d.HasInterval {
		t.Errorf("7 rounds: %+v", d)
	}
	// Over 5 looks each asks 99.8 %: 8 rounds are too few, 10 (2/2^10 < 0.002) enough.
	five := report.ABRule(8, 16)
	if five.Looks != 5 {
		t.Fatalf("ABRule(8, 16).Looks = %d, want 5", five.Looks)
	}
	if d := report.PairedDifference("latency p90", "s", a, scaled(1.10), false, five); d.Verdict != perf.VerdictUndecided {
		t.Errorf("8 rounds over 5 looks: %s, want undecided", d.Verdict)
	}
	a10 := around(0.002, 0.02, 10)
	b10 := slices.Clone(a10)
	for i := range b10 {
		b10[i] *= 1.1
	}
	if d := report.PairedDifference("latency p90", "s", a10, b10, false, five); d.Verdict != perf.VerdictRegressed {
		t.Errorf("10 rounds over 5 looks: %s, want regressed", d.Verdict)
	}
}

// nights returns one run of 6 rounds (±1 %) per level, each level v·(1 + l).
func nights(v float64, levels ...float64) [][]float64 {
	out := make([][]float64, len(levels))
	for i, l := range levels {
		out[i] = around(v*(1+l), 0.01, 6)
	}
	return out
}

// TestCompareWithEarlier: a night against earlier nights, each night one draw of its median.
func TestCompareWithEarlier(t *testing.T) {
	rule := report.DefaultChangeRule()
	// Five nights about 2 ms, their medians 1.6 % apart (standard deviation): a night 12 %
	// slower is beyond the 99 % prediction interval (± 4.60 · 1.58 % · √1.2 = ± 8.0 %).
	earlier := nights(0.002, -0.02, 0, 0.02, -0.01, 0.01)
	slow := around(0.00224, 0.01, 6)
	d := report.CompareWithEarlier("overhead p90", "s", slow, earlier, false, rule)
	if d.Verdict != perf.VerdictRegressed || d.Low <= 0 || d.Confidence != 0.99 || !d.HasInterval {
		t.Fatalf("12 %% slower: %+v", d)
	}
	if math.Abs(d.Change-0.12) > 1e-9 || math.Abs(d.A-0.002) > 1e-12 || math.Abs(d.B-0.00224) > 1e-12 {
		t.Errorf("12 %% slower: A %v, B %v, change %v", d.A, d.B, d.Change)
	}
	if half := (d.High - d.Low) / 2 / d.A; math.Abs(half-4.6041*0.0158114*math.Sqrt(1.2)) > 1e-4 {
		t.Errorf("the 99 %% half-width is %.4f of A, want t(0.995; 4)·s·√(1 + 1/5)", half)
	}
	// A night like the others: its 90 % interval (± 3.7 %) within 5 %: same.
	if d := report.CompareWithEarlier("overhead p90", "s", around(0.002, 0.01, 6), earlier, false, rule); d.Verdict != perf.VerdictSame || d.Margin != 0.05 {
		t.Errorf("a like night: %+v", d)
	}
	// 6 % slower: not beyond the 99 % interval, not within 5 % at 90 %: undecided.
	if d := report.CompareWithEarlier("overhead p90", "s", around(0.00212, 0.01, 6), earlier, false, rule); d.Verdict != perf.VerdictUndecided {
		t.Errorf("6 %% slower: %s, want undecided", d.Verdict)
	}
	// Nights that drift with the machine (medians 15 % apart), each night's rounds tight: a
	// night 27 % faster is within that drift, undecided. Its rounds against the pooled
	// rounds of the earlier nights would be called improved, as if the build had changed.
	drifting := nights(0.002, -0.15, 0, 0.15, -0.10, 0.10)
	fast := around(0.00146, 0.01, 6)
	if d := report.CompareWithEarlier("overhead p90", "s", fast, drifting, false, rule); d.Verdict != perf.VerdictUndecided {
		t.Errorf("a fast night among drifting ones: %s, want undecided", d.Verdict)
	}
	if d := report.UnpairedDifference("overhead p90", "s", slices.Concat(drifting...), fast, false, rule); d.Verdict != perf.VerdictImproved {
		t.Errorf("pooled rounds: %s; the case this comparison exists for is gone", d.Verdict)
	}
	// A rate 10 % above steady nights is an improvement.
	if d := report.CompareWithEarlier("qps", "requests/s", around(1100, 0.01, 6), nights(1000, -0.01, 0, 0.01, -0.005, 0.005), true, rule); d.Verdict != perf.VerdictImproved {
		t.Errorf("higher rate: %s", d.Verdict)
	}
	// One earlier night has no spread to judge by, none nothing: undecided, no interval.
	for _, e := range [][][]float64{nil, earlier[:1]} {
		if d := report.CompareWithEarlier("overhead p90", "s", slow, e, false, rule); d.Verdict != perf.VerdictUndecided || d.HasInterval {
			t.Errorf("%d earlier nights: %+v", len(e), d)
		}
	}
}

// TestUnpairedDifference: two independent samples, lower or higher better.
func TestUnpairedDifference(t *testing.T) {
	rule := report.DefaultChangeRule()
	if d := report.UnpairedDifference("qps", "1/s", around(1000, 0.01, 6), around(1100, 0.01, 6), true, rule); d.Verdict != perf.VerdictImproved {
		t.Errorf("higher rate: %s", d.Verdict)
	}
	if d := report.UnpairedDifference("latency p90", "s", around(0.002, 0.01, 6), around(0.00224, 0.01, 6), false, rule); d.Verdict != perf.VerdictRegressed {
		t.Errorf("12 %% slower: %s", d.Verdict)
	}
}

// TestABLooksAndUndecided: the looks of an A/B run, and which gated figures are undecided.
func TestABLooksAndUndecided(t *testing.T) {
	for _, c := range []struct{ planned, max, want int }{{6, 16, 6}, {6, 6, 1}, {6, 4, 1}, {6, 11, 4}, {1, 16, 9}} {
		if got := report.ABLooks(c.planned, c.max); got != c.want {
			t.Errorf("ABLooks(%d, %d) = %d, want %d", c.planned, c.max, got, c.want)
		}
	}
	ds := []perf.Difference{{Figure: "latency p50", Verdict: perf.VerdictSame}, {Figure: "latency p90", Verdict: perf.OldVerdictWithinNoise}}
	if got := report.Undecided(ds, report.ABGatedFigures()); !slices.Equal(got, []string{"latency p90"}) {
		t.Errorf("undecided %q, want latency p90", got)
	}
	if got := report.Undecided(ds[:1], []string{"latency p50", "latency p99"}); !slices.Equal(got, []string{"latency p99"}) {
		t.Errorf("a missing figure: %q", got)
	}
}
