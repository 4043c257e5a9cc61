package report

import (
	"testing"

	"github.com/daprperf/daprperf/perf"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf/stats"
)

// withPercentiles returns a result whose every percentile and mean is at ms milliseconds.
func withPercentiles(ms float64) perf.Result {
	r := perf.Result{}
	for _, p := range perf.OverheadPercentiles {
		r.Latency.Percentiles = append(r.Latency.Percentiles, perf.PercentileValue{P: p, Seconds: ms / 1e3})
	}
	r.Latency.AvgSeconds = ms / 1e3
	return r
}

func TestOverheadIsMainMinusBaselineOfTheSameRound(t *testing.T) {
	rounds := []perf.Round{
		{Baseline: withPercentiles(0.5), Main: withPercentiles(2.5)}, // +2.0
		{Baseline: withPercentiles(1.0), Main: withPercentiles(2.0)}, // +1.0
		{Baseline: withPercentiles(0.5), Main: withPercentiles(3.5)}, // +3.0
	}
	overheads, err := ComputeOverheads(rounds)
	require.NoError(t, err)
	require.Len(t, overheads, len(perf.OverheadPercentiles)+1)
	assert.Equal(t, "p90", overheads[2].Figure)
	assert.Equal(t, "mean", overheads[len(overheads)-1].Figure)
	for _, o := range overheads {
		assert.InDeltaSlice(t, []float64{0.002, 0.001, 0.003}, o.PerRoundSeconds, 1e-12)
		assert.InDelta(t, 0.002, o.MedianSeconds, 1e-12)
		assert.True(t, o.HasInterval)
		assert.LessOrEqual(t, o.LowSeconds, o.MedianSeconds, "the interval contains the median")
		assert.GreaterOrEqual(t, o.HighSeconds, o.MedianSeconds, "the interval contains the median")
		assert.GreaterOrEqual(t, o.LowSeconds, 0.001-1e-12, "the interval stays within the data")
		assert.LessOrEqual(t, o.HighSeconds, 0.003+1e-12)
		assert.Equal(t, o.HighSeconds, o.GateSeconds(), "three rounds gate on the upper bound")
	}
}

func TestSingleRoundHasNoInterval(t *testing.T) {
	overheads, err := ComputeOverheads([]perf.Round{{Baseline: withPercentiles(0.3), Main: withPercentiles(1.8)}})
	require.NoError(t, err)
	o := overheads[0]
	assert.False(t, o.HasInterval)
	assert.InDelta(t, 0.0015, o.MedianSeconds, 1e-12)
	assert.Equal(t, o.MedianSeconds, o.LowSeconds)
	assert.Equal(t, o.MedianSeconds, o.HighSeconds)
	assert.Equal(t, o.MedianSeconds, o.GateSeconds())
}

func TestOverheadNeedsEveryPercentile(t *testing.T) {
	b := withPercentiles(1)
	b.Latency.Percentiles = b.Latency.Percentiles[:2] // p50, p75 only
	_, err := ComputeOverheads([]perf.Round{{Baseline: b, Main: withPercentiles(2)}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "round 1 baseline")
	assert.Contains(t, err.Error(), "p90")
}

func TestThreeRoundsGateOnTheRangeAndSayItIs75Percent(t *testing.T) {
	rounds := []perf.Round{
		{Baseline: withPercentiles(0.5), Main: withPercentiles(2.5)},
		{Baseline: withPercentiles(1.0), Main: withPercentiles(2.0)},
		{Baseline: withPercentiles(0.5), Main: withPercentiles(3.5)},
	}
	overheads, err := ComputeOverheads(rounds)
	require.NoError(t, err)
	o := overheads[2]
	assert.Equal(t, stats.MethodRange, o.Method)
	assert.InDelta(t, 0.75, o.Confidence, 1e-12)
	assert.InDelta(t, 0.001, o.LowSeconds, 1e-12, "the range of 3 rounds")
	assert.InDelta(t, 0.003, o.HighSeconds, 1e-12)
	assert.Equal(t, "upper bound of the 75 % range interval of 3 rounds", o.GateBasis())
	assert.Equal(t, "75 % interval (range)", o.IntervalLabel())
}
