package perf

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const mib = 1 << 20

// series makes readings every 3,000 requests (10 s apart) with rss(i) bytes.
func series(n int, rss func(i int) float64) []GrowthPoint {
	out := make([]GrowthPoint, n)
	for i := range out {
		out[i] = GrowthPoint{Requests: int64(3000 * i), Seconds: float64(10 * i), RSSBytes: uint64(rss(i))}
	}
	return out
}

func TestFlatWithNoiseIsFlat(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	load := series(4, func(int) float64 { return 25*mib + rng.NormFloat64()*200*1024 })
	g := ClassifyGrowth(load, nil, MinGrowthThresholdKiB)
	assert.Equal(t, Flat, g.Verdict, "%+v", g)
}

func TestLinearRiseIsGrowingWithTheRightSlope(t *testing.T) {
	// 9.33 MiB per 3,000 requests = 3,185 KiB per 1,000: the field case, 19 -> 47 MiB.
	perRound := 28.0 / 3 * mib
	load := series(4, func(i int) float64 { return 19*mib + float64(i)*perRound })
	g := ClassifyGrowth(load, nil, MinGrowthThresholdKiB)
	assert.Equal(t, Growing, g.Verdict)
	want := perRound / 1024 / 3
	assert.InEpsilon(t, want, g.SlopeKiBPer1000, 0.02)
	assert.InDelta(t, 1, g.R2, 1e-9)
}

func TestStepThenPlateauIsRetained(t *testing.T) {
	load := series(4, func(i int) float64 { return float64(map[bool]int{true: 20, false: 40}[i == 0]) * mib })
	g := ClassifyGrowth(load, nil, MinGrowthThresholdKiB)
	assert.Equal(t, Retained, g.Verdict, "%+v", g)
	assert.InDelta(t, 0, g.TailSlopeKiBPer1000, 1e-6)
}

func TestGrowthDuringIdleIsFlagged(t *testing.T) {
	load := series(4, func(int) float64 { return 30 * mib })
	idle := []GrowthPoint{
		{Requests: 9000, Seconds: 40, RSSBytes: 32 * mib},
		{Requests: 9000, Seconds: 50, RSSBytes: 34 * mib},
		{Requests: 9000, Seconds: 60, RSSBytes: 36 * mib},
	}
	g := ClassifyGrowth(load, idle, MinGrowthThresholdKiB)
	assert.True(t, g.GrowsWhenIdle)
	assert.InDelta(t, 6*1024, g.IdleGrowthKiB, 1e-6)

	settled := []GrowthPoint{{Requests: 9000, Seconds: 40, RSSBytes: 30 * mib}, {Requests: 9000, Seconds: 70, RSSBytes: 29 * mib}}
	assert.False(t, ClassifyGrowth(load, settled, MinGrowthThresholdKiB).GrowsWhenIdle)
}

// perRound makes a control series rising by kib KiB per round of 3,000 requests.
func perRound(kib float64) []GrowthPoint {
	return series(4, func(i int) float64 { return 90*mib + float64(i)*kib*1024 })
}

func TestGrowthThresholdDerivation(t *testing.T) {
	for _, tc := range []struct {
		name      string
		reference [][]GrowthPoint
		want      float64
		rule      string
		noise     float64
		text      []string
	}{
		// 63 KiB per 3,000 requests = 21 KiB/1000: 2 x 21 is below the floor.
		{"quiet control", [][]GrowthPoint{perRound(63)}, MinGrowthThresholdKiB, "floor", 21,
			[]string{"the floor (2 x the largest fixed-method slope in repeated runs): 2 x the control's noise, 42, is below it", "control a-fixed: noise 21", "margin 24.4x", "4.3x below"}},
		// 300 KiB/1000 on the callee: 2 x 300 = 600 sets it; the max over the sidecars.
		{"noisy control", [][]GrowthPoint{perRound(63), perRound(900)}, 600, "control", 300,
			[]string{"2 x the control's noise;", "margin 2.0x", "3.6x below"}},
		// Falling RSS is noise as well: |slope|.
		{"falling control", [][]GrowthPoint{perRound(-1050)}, 700, "control", 350, nil},
		// 450 KiB/1000: 2 x 450 = 900 is above the ceiling, and the margin left says so.
		{"too noisy control", [][]GrowthPoint{perRound(1350)}, MaxGrowthThresholdKiB, "ceiling", 450,
			[]string{"the ceiling (a third of the smallest distinct-path growth seen, 2188): 2 x the control's noise, 900, is above it", "margin 1.6x, BELOW the stated 2x"}},
		{"control did not run", nil, MinGrowthThresholdKiB, "floor", 0,
			[]string{"the control a-fixed did not run"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := GrowthThreshold("a-fixed", tc.reference)
			require.NoError(t, err)
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
				assert.GreaterOrEqual(t, d.KiBPer1000, GrowthNoiseMargin*d.ControlNoiseKiB)
			}
		})
	}
}

func TestGrowthThresholdTailSlopeIsNoiseToo(t *testing.T) {
	// Flat, then a rise in the last round: the tail slope (readings 1-3) is the larger.
	load := series(4, func(i int) float64 { return 90*mib + float64(max(0, i-2))*1200*1024 })
	slope, _, tail := growthSlopes(load)
	require.Greater(t, tail, slope)
	d, err := GrowthThreshold("a-fixed", [][]GrowthPoint{load})
	require.NoError(t, err)
	assert.InDelta(t, tail, d.ControlNoiseKiB, 1e-9)
}

func TestGrowthThresholdEnv(t *testing.T) {
	t.Setenv(EnvGrowthThreshold, "abc")
	_, err := GrowthThreshold("a-fixed", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), EnvGrowthThreshold)
	t.Setenv(EnvGrowthThreshold, "-1")
	_, err = GrowthThreshold("a-fixed", nil)
	require.Error(t, err)
	t.Setenv(EnvGrowthThreshold, "300")
	d, err := GrowthThreshold("a-fixed", [][]GrowthPoint{perRound(900)})
	require.NoError(t, err)
	assert.Equal(t, 300.0, d.KiBPer1000)
	assert.Equal(t, "env", d.Rule)
	assert.Contains(t, d.Text, EnvGrowthThreshold)
	assert.Contains(t, d.Text, "margin 1.0x, BELOW the stated 2x")
}

// The bounds keep the margins they state, against the figures their comments cite.
func TestGrowthThresholdBoundsKeepTheirMargins(t *testing.T) {
	largestFixedSlope := 246.0 // daprd 1.16.5, a-fixed caller (issue 20)
	assert.GreaterOrEqual(t, float64(MinGrowthThresholdKiB), GrowthNoiseMargin*largestFixedSlope)
	assert.LessOrEqual(t, 3.0*MaxGrowthThresholdKiB, float64(SmallestGrowthKiB))
	assert.LessOrEqual(t, MinGrowthThresholdKiB, MaxGrowthThresholdKiB)
}

// On the published runs' own readings, the derived threshold gives the published verdicts,
// with at least 2x over every fixed-method slope and 3x under every distinct-path slope.
func TestGrowthThresholdOnPublishedRuns(t *testing.T) {
	for _, version := range []string{"v1.16.5", "v1.17.5"} {
		rep, err := ReadReport("../reports/" + version + "/memory_growth/http/result.json")
		require.NoError(t, err)
		var reference [][]GrowthPoint
		for _, v := range rep.Growth.Variants {
			if v.Name == "a-fixed" {
				for _, s := range v.Sidecars {
					reference = append(reference, s.loadPoints())
				}
			}
		}
		require.Len(t, reference, 2, version)
		d, err := GrowthThreshold("a-fixed", reference)
		require.NoError(t, err)
		for _, v := range rep.Growth.Variants {
			for _, s := range v.Sidecars {
				g := ClassifyGrowth(s.loadPoints(), s.Idle, d.KiBPer1000)
				assert.Equal(t, s.Growth.Verdict, g.Verdict, "%s %s %s", version, v.Name, s.Role)
				if g.Verdict == Growing {
					assert.GreaterOrEqual(t, math.Min(g.SlopeKiBPer1000, g.TailSlopeKiBPer1000), 3*d.KiBPer1000, "%s %s %s", version, v.Name, s.Role)
				}
				if v.Name == "a-fixed" {
					assert.LessOrEqual(t, 2*math.Max(g.SlopeKiBPer1000, g.TailSlopeKiBPer1000), d.KiBPer1000, "%s %s", version, s.Role)
				}
			}
		}
	}
}

func TestSmallStepIsFlatNotRetained(t *testing.T) {
	// Fixed-method callers measured here: daprd 1.17.5 (+1.4 MiB) and 1.16.5 (+2.7 MiB).
	for _, rss := range [][]float64{{101.3, 102.3, 102.6, 102.7}, {102.0, 104.7, 104.5, 104.7}} {
		g := ClassifyGrowth(series(4, func(i int) float64 { return rss[i] * mib }), nil, MinGrowthThresholdKiB)
		assert.Equal(t, Flat, g.Verdict, "%v: %+v", rss, g)
	}
}
