package testers_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/hdr"
	"github.com/daprperf/daprperf/perf/testers"
)

// MergeLatencies gives, percentile for percentile, what one histogram of every value gives,
// with the mean and deviation pooled exactly.
func TestMergeLatenciesIsOneHistogram(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	one := hdr.New()
	var parts []perf.Latency
	ps := []float64{50, 90, 99, 99.9}
	for i := range 3 {
		h := hdr.New()
		for range 5000 + 1000*i {
			d := time.Duration(200_000+rng.ExpFloat64()*float64(300_000*(i+1))) * time.Nanosecond
			h.Record(d)
			one.Record(d)
		}
		l, err := perf.NewLatency(h, ps)
		require.NoError(t, err)
		parts = append(parts, l)
	}
	merged, err := testers.MergeLatencies(parts, ps)
	require.NoError(t, err)
	for _, pv := range merged.Percentiles {
		assert.Equal(t, one.Percentile(pv.P).Seconds(), pv.Seconds, "p%v", pv.P)
	}
	assert.Equal(t, one.Min().Seconds(), merged.MinSeconds)
	assert.Equal(t, one.Max().Seconds(), merged.MaxSeconds)
	assert.InEpsilon(t, one.MeanSeconds(), merged.AvgSeconds, 1e-12)
	assert.InEpsilon(t, one.StdDevSeconds(), merged.StdDevSeconds, 1e-9)

	parts[1].HDR = ""
	_, err = testers.MergeLatencies(parts, ps)
	assert.ErrorContains(t, err, "part 2")
}

// MergeResults sums counts and rates, spans the testers' time, and keeps each tester's result.
func TestMergeResultsSumsAndKeepsEachTester(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	var rs []perf.Result
	for i := range 3 {
		h := hdr.New()
		h.Record(time.Duration(i+1) * time.Millisecond)
		l, err := perf.NewLatency(h, []float64{50})
		require.NoError(t, err)
		rs = append(rs, perf.Result{
			Params: perf.Params{Protocol: perf.HTTP, QPS: 10}, StartTime: t0.Add(time.Duration(i) * 10 * time.Millisecond),
			ActualDuration: time.Second, RequestedQPS: 10, ActualQPS: 9.5, Requests: 1, Sockets: 1, WarmupRequests: 2,
			RetCodes: map[string]int64{"200": 1, "503": int64(i)}, Latency: l, ResponseTime: &l,
			Schedule: perf.Schedule{Scheduled: 10, Late: int64(i), MaxLateSeconds: float64(i)},
			Executor: &perf.ExecutorStats{Kind: driver.ConstantVUs, Iterations: 1, MaxVUs: 2, MaxActiveVUs: 2},
			Timeline: []perf.Second{{T: 0, Requests: 1}},
		})
	}
	p := perf.DefaultParams()
	p.QPS, p.Payload = 30, "secret"
	out, err := testers.MergeResults(p, rs)
	require.NoError(t, err)
	assert.Equal(t, 30, out.Params.QPS)
	assert.Empty(t, out.Params.Payload, "the payload is never stored")
	assert.InDelta(t, 30, out.RequestedQPS, 1e-9)
	assert.InDelta(t, 28.5, out.ActualQPS, 1e-9)
	assert.EqualValues(t, 3, out.Requests)
	assert.EqualValues(t, 6, out.WarmupRequests, "each tester's warm-up requests are summed")
	assert.Equal(t, map[string]int64{"200": 3, "503": 3}, out.RetCodes)
	assert.EqualValues(t, 30, out.Schedule.Scheduled)
	assert.EqualValues(t, 3, out.Schedule.Late)
	assert.Equal(t, 2.0, out.Schedule.MaxLateSeconds)
	assert.Equal(t, t0, out.StartTime)
	assert.Equal(t, time.Second+20*time.Millisecond, out.ActualDuration)
	assert.InDelta(t, 0.02, out.StartSpreadSeconds, 1e-9)
	assert.InDelta(t, 0.002, out.Latency.Percentiles[0].Seconds, 0.002*hdr.MaxRelativeError)
	require.NotNil(t, out.ResponseTime)
	require.NotNil(t, out.Executor)
	assert.EqualValues(t, 3, out.Executor.Iterations)
	assert.Equal(t, 6, out.Executor.MaxActiveVUs)
	assert.Nil(t, out.Timeline, "per-second percentiles do not merge")
	assert.Len(t, out.Testers, 3)
	assert.Equal(t, rs[2].Timeline, out.Testers[2].Timeline)

	rs[1].Params.Protocol = perf.GRPC
	_, err = testers.MergeResults(p, rs)
	assert.ErrorContains(t, err, "tester 2 ran protocol grpc")
}
