package tester

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/grpcapp"
	"github.com/daprperf/daprperf/apps/httpapp"
	"github.com/daprperf/daprperf/perf"
)

func TestLoadAtTargetRate(t *testing.T) {
	if testing.Short() {
		t.Skip("5 s load runs")
	}
	for _, tc := range []struct {
		proto  perf.Protocol
		target func(t testing.TB) string
	}{
		{perf.HTTP, func(t testing.TB) string { return httpApp(t, httpapp.Options{}) }},
		{perf.GRPC, func(t testing.TB) string { return grpcApp(t, grpcapp.Options{}) }},
	} {
		t.Run(string(tc.proto), func(t *testing.T) {
			p := load(t, tc.proto, tc.target(t), 1000, 5*time.Second)
			p.PayloadBytes = 1024
			res, err := Run(t.Context(), p)
			require.NoError(t, err)

			assert.InEpsilon(t, 1000, res.ActualQPS, 0.01, "achieved QPS within 1 %% of target")
			assert.Zero(t, res.Errors(), "codes: %v", res.RetCodes)
			assert.InDelta(t, 5000, res.Requests, 50)
			assert.Equal(t, 10*time.Microsecond, res.Latency.Resolution, "the resolution is recorded")
			assert.Equal(t, 1024, res.Params.PayloadBytes)
			assert.Empty(t, res.Params.Payload, "the payload is not stored")

			prev := res.Min()
			for _, q := range perf.DefaultPercentiles {
				v, err := res.Percentile(q)
				require.NoError(t, err)
				assert.GreaterOrEqual(t, v, prev, "p%v >= the previous percentile (or min)", q)
				prev = v
			}
			assert.GreaterOrEqual(t, res.Max(), prev, "max >= p99.9")
			assert.Less(t, res.Schedule.BehindFraction(), 0.01, "schedule: %+v", res.Schedule)
		})
	}
}

// TestCalibrationWithFixedDelay loads an app with a fixed 2 ms delay and, in the same run, the
// same app without it. The delayed p50 must be at least 2 ms, and exceed the direct p50 by 1.8
// to 2.4 ms: with fortio's default 1 ms buckets p50 would be interpolated inside a [2, 3) ms
// bucket instead. (The direct p50 is subtracted because on this project's 2-core VM a loopback
// request alone takes 0.5 to 0.6 ms at p50, the idle vCPUs' wake-up latency; an absolute
// [2.0, 2.4] ms bound only holds where that is below 0.4 ms.)
func TestCalibrationWithFixedDelay(t *testing.T) {
	if testing.Short() {
		t.Skip("two 3 s load runs")
	}
	p50 := func(o httpapp.Options) time.Duration {
		res, err := Run(t.Context(), load(t, perf.HTTP, httpApp(t, o), 200, 3*time.Second))
		require.NoError(t, err)
		assert.Equal(t, 10*time.Microsecond, res.Latency.Resolution)
		v, err := res.Percentile(50)
		require.NoError(t, err)
		return v
	}
	direct := p50(httpapp.Options{})
	delayed := p50(httpapp.Options{Delay: 2 * time.Millisecond})
	t.Logf("p50: direct %v, with a 2 ms delay %v", direct, delayed)
	assert.GreaterOrEqual(t, delayed, 2*time.Millisecond)
	assert.GreaterOrEqual(t, delayed-direct, 1800*time.Microsecond)
	assert.LessOrEqual(t, delayed-direct, 2400*time.Microsecond)
}

func TestFailuresAreCounted(t *testing.T) {
	if testing.Short() {
		t.Skip("2 s load runs")
	}
	for _, tc := range []struct {
		proto  perf.Protocol
		target func(t testing.TB) string
		code   string
	}{
		{perf.HTTP, func(t testing.TB) string { return httpApp(t, httpapp.Options{FailFraction: 0.1}) }, "500"},
		{perf.GRPC, func(t testing.TB) string { return grpcApp(t, grpcapp.Options{FailFraction: 0.1}) }, "Internal"},
	} {
		t.Run(string(tc.proto), func(t *testing.T) {
			res, err := Run(t.Context(), load(t, tc.proto, tc.target(t), 500, 2*time.Second))
			require.NoError(t, err)
			ratio := float64(res.Errors()) / float64(res.Requests)
			assert.InDelta(t, 0.10, ratio, 0.02, "codes: %v", res.RetCodes)
			assert.Equal(t, res.Errors(), res.RetCodes[tc.code])
		})
	}
}

func TestUniquePathSendsOnePathPerRequest(t *testing.T) {
	p := load(t, perf.HTTP, httpApp(t, httpapp.Options{}), 200, time.Second)
	p.UniquePath = true
	res, err := Run(t.Context(), p)
	require.NoError(t, err)
	assert.Zero(t, res.Errors(), "codes: %v", res.RetCodes)
	assert.Equal(t, res.Schedule.Scheduled, res.Requests, "200 QPS x 1 s over 16 connections: 12 each")
}

func TestCancelStopsTheRun(t *testing.T) {
	p := load(t, perf.HTTP, httpApp(t, httpapp.Options{}), 100, time.Minute)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Run(ctx, p)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second, "a cancelled run stops promptly")
}
