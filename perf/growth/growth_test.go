package growth

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const mib = 1 << 20

// series makes readings every 3,000 requests (10 s apart) with rss(i) bytes.
func series(n int, rss func(i int) float64) []Point {
	out := make([]Point, n)
	for i := range out {
		out[i] = Point{Requests: int64(3000 * i), Seconds: float64(10 * i), RSSBytes: uint64(rss(i))}
	}
	return out
}

func TestFlatWithNoiseIsFlat(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	load := series(4, func(int) float64 { return 25*mib + rng.NormFloat64()*200*1024 })
	g := Classify(load, nil, MinThresholdKiB)
	assert.Equal(t, Flat, g.Verdict, "%+v", g)
}

func TestLinearRiseIsGrowingWithTheRightSlope(t *testing.T) {
	// 9.33 MiB per 3,000 requests = 3,185 KiB per 1,000: the field case, 19 -> 47 MiB.
	perRound := 28.0 / 3 * mib
	load := series(4, func(i int) float64 { return 19*mib + float64(i)*perRound })
	g := Classify(load, nil, MinThresholdKiB)
	assert.Equal(t, Growing, g.Verdict)
	want := perRound / 1024 / 3
	assert.InEpsilon(t, want, g.SlopeKiBPer1000, 0.02)
	assert.InDelta(t, 1, g.R2, 1e-9)
}

func TestStepThenPlateauIsRetained(t *testing.T) {
	load := series(4, func(i int) float64 { return float64(map[bool]int{true: 20, false: 40}[i == 0]) * mib })
	g := Classify(load, nil, MinThresholdKiB)
	assert.Equal(t, Retained, g.Verdict, "%+v", g)
	assert.InDelta(t, 0, g.TailSlopeKiBPer1000, 1e-6)
}

func TestGrowthDuringIdleIsFlagged(t *testing.T) {
	load := series(4, func(int) float64 { return 30 * mib })
	idle := []Point{
		{Requests: 9000, Seconds: 40, RSSBytes: 32 * mib},
		{Requests: 9000, Seconds: 50, RSSBytes: 34 * mib},
		{Requests: 9000, Seconds: 60, RSSBytes: 36 * mib},
	}
	g := Classify(load, idle, MinThresholdKiB)
	assert.True(t, g.GrowsWhenIdle)
	assert.InDelta(t, 6*1024, g.IdleGrowthKiB, 1e-6)

	settled := []Point{{Requests: 9000, Seconds: 40, RSSBytes: 30 * mib}, {Requests: 9000, Seconds: 70, RSSBytes: 29 * mib}}
	assert.False(t, Classify(load, settled, MinThresholdKiB).GrowsWhenIdle)
}

// perRound makes a control series rising by kib KiB per round of 3,000 requests.
func perRound(kib float64) []Point {
	return series(4, func(i int) float64 { return 90*mib + float64(i)*kib*1024 })
}

func TestGrowthThresholdDerivation(t *testing.T) {
	for _, tc := range []struct {
		name      string
		reference [][]Point
		want      float64
		rule      string
		noise     float64
		text      []string
	}{
		// 63 KiB per 3,000 requests = 21 KiB/1000: 2 x 21 is below the floor.
		{"quiet control", [][]Point{perRound(63)}, MinThresholdKiB, "floor", 21,
			[]string{"the floor (2 x the largest fixed-method slope in repeated runs): 2 x the control's noise, 42, is below it", "control a-fixed: noise 21", "margin 24.4x", "4.3x below"}},
		// 300 KiB/1000 on the callee: 2 x 300 = 600 sets it; the max over the sidecars.
		{"noisy control", [][]Point{perRound(63), perRound(900)}, 600, "control", 300,
			[]string{"2 x the control's noise;", "margin 2.0x", "3.6x below"}},
		// Falling RSS is noise as well: |slope|.
		{"falling control", [][]Point{perRound(-1050)}, 700, "control", 350, nil},
		// 450 KiB/1000: 2 x 450 = 900 is above the ceiling, and the margin left says so.
		{"too noisy control", [][]Point{perRound(1350)}, MaxThresholdKiB, "ceiling", 450,
			[]string{"the ceiling (a third of the smallest distinct-path growth seen, 2188): 2 x the control's noise, 900, is above it", "margin 1.6x, BELOW the stated 2x"}},
		{"control did not run", nil, MinThresholdKiB, "floor", 0,
			[]string{"the control a-fixed did not run"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := DeriveThreshold("a-fixed", tc.reference, 0, "")
			assert.InDelta(t, tc.want, d.KiBPer1000, 1e-6)
			assert.Equal(t, tc.rule, d.Rule)
			assert.InDelta(t, tc.noise, d.ControlNoiseKiB, 1e-6)
			assert.Equal(t, tc.reference != nil, d.ControlRan)
			assert.InDelta(t, SmallestGrowthKiB/tc.want, d.MarginBelowGrowth, 1e-9)
			for _, s := range tc.text {
				assert.Contains(t, d.Text, s)
			}
			// The derived threshold keeps the stated margin unless capped.
			if d.Rule != "ceiling" {
				assert.GreaterOrEqual(t, d.KiBPer1000, NoiseMargin*d.ControlNoiseKiB)
			}
		})
	}
}

func TestGrowthThresholdTailSlopeIsNoiseToo(t *testing.T) {
	// Flat, then a rise in the last round: the tail slope (readings 1-3) is the larger.
	load := series(4, func(i int) float64 { return 90*mib + float64(max(0, i-2))*1200*1024 })
	slope, _, tail := growthSlopes(load)
	require.Greater(t, tail, slope)
	d := DeriveThreshold("a-fixed", [][]Point{load}, 0, "")
	assert.InDelta(t, tail, d.ControlNoiseKiB, 1e-9)
}

// The bounds keep the margins they state, against the figures their comments cite.
func TestGrowthThresholdBoundsKeepTheirMargins(t *testing.T) {
	largestFixedSlope := 246.0 // daprd 1.16.5, a-fixed caller (issue 20)
	assert.GreaterOrEqual(t, float64(MinThresholdKiB), NoiseMargin*largestFixedSlope)
	assert.LessOrEqual(t, 3.0*MaxThresholdKiB, float64(SmallestGrowthKiB))
	assert.LessOrEqual(t, MinThresholdKiB, MaxThresholdKiB)
}

func TestSmallStepIsFlatNotRetained(t *testing.T) {
	// Fixed-method callers' steps: daprd 1.17.5 (+1.4 MiB) and 1.16.5 (+2.7 MiB).
	for _, rss := range [][]float64{{101.3, 102.3, 102.6, 102.7}, {102.0, 104.7, 104.5, 104.7}} {
		g := Classify(series(4, func(i int) float64 { return rss[i] * mib }), nil, MinThresholdKiB)
		assert.Equal(t, Flat, g.Verdict, "%v: %+v", rss, g)
	}
}
