package perf

import (
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

func TestGrowthThreshold(t *testing.T) {
	quiet := series(4, func(i int) float64 { return 25*mib + float64(i%2)*64*1024 })
	kib, source, err := GrowthThreshold([][]GrowthPoint{quiet})
	require.NoError(t, err)
	assert.Equal(t, float64(MinGrowthThresholdKiB), kib)
	assert.Contains(t, source, "minimum")

	noisy := series(4, func(i int) float64 { return 25*mib + float64(i)*600*1024 }) // 200 KiB/1000
	kib, _, err = GrowthThreshold([][]GrowthPoint{quiet, noisy})
	require.NoError(t, err)
	assert.InEpsilon(t, 600, kib, 1e-9)

	t.Setenv(EnvGrowthThreshold, "abc")
	_, _, err = GrowthThreshold(nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), EnvGrowthThreshold)
	t.Setenv(EnvGrowthThreshold, "512")
	kib, source, err = GrowthThreshold(nil)
	require.NoError(t, err)
	assert.Equal(t, 512.0, kib)
	assert.Equal(t, EnvGrowthThreshold, source)
}

func TestSmallStepIsFlatNotRetained(t *testing.T) {
	// Fixed-method callers measured here: daprd 1.17.5 (+1.4 MiB) and 1.16.5 (+2.7 MiB).
	for _, rss := range [][]float64{{101.3, 102.3, 102.6, 102.7}, {102.0, 104.7, 104.5, 104.7}} {
		g := ClassifyGrowth(series(4, func(i int) float64 { return rss[i] * mib }), nil, MinGrowthThresholdKiB)
		assert.Equal(t, Flat, g.Verdict, "%v: %+v", rss, g)
	}
}
