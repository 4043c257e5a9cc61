package tester

import (
	"context"
	"net/http"
	"net/http/httptest"
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

			t.Logf("achieved %.1f QPS, %d requests, slowest call %.1f ms, kept ratio %.4f", res.ActualQPS, res.Requests, 1e3*res.Latency.MaxSeconds, res.KeptQPSRatio())
			// The rate is judged as validity judges it (perf.Result.KeptQPSRatio): fortio's elapsed
			// time behind ActualQPS ends when the last call returns, so on a busy machine a run
			// that sent every request on its slot shows up to (slowest call / 5 s) less.
			assert.GreaterOrEqual(t, res.KeptQPSRatio(), 0.99, "kept the schedule's rate, within 1 %%, the slowest call (%.1f ms) allowed for; achieved %.1f QPS", 1e3*res.Latency.MaxSeconds, res.ActualQPS)
			assert.LessOrEqual(t, res.ActualQPS, 1010.0, "no more than 1 %% over the target rate")
			assert.Zero(t, res.Errors(), "codes: %v", res.RetCodes)
			assert.InDelta(t, 5000, res.Requests, 50)
			assert.Equal(t, 3, res.Latency.SignificantDigits, "recorded in an HDR histogram, 3 significant digits")
			assert.NotEmpty(t, res.Latency.HDR, "the histogram is stored")
			assert.EqualValues(t, 16, res.Sockets, "one TCP connection per configured connection")
			assert.False(t, res.ConnectionChurn())
			require.NotNil(t, res.ResponseTime, "a fixed-rate run records response time")
			svc50, err := res.Percentile(50)
			require.NoError(t, err)
			resp50, err := res.ResponsePercentile(50)
			require.NoError(t, err)
			assert.GreaterOrEqual(t, resp50, svc50, "response time counts from the slot, at or before the send")
			p9999, err := res.Percentile(99.99)
			require.NoError(t, err, "any percentile comes from the stored histogram")
			assert.LessOrEqual(t, p9999, res.Max())
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
			// The timeline: every request in one of its seconds, about 1000 in each full second.
			require.GreaterOrEqual(t, len(res.Timeline), 5, "a 5 s run has at least 5 seconds")
			var sum int64
			for i, s := range res.Timeline {
				assert.Equal(t, i, s.T)
				sum += s.Requests
				if i >= 1 && i <= 3 {
					assert.InDelta(t, 1000, s.Requests, 60, "second %d", i)
					assert.LessOrEqual(t, s.P50Seconds, s.P99Seconds)
					assert.LessOrEqual(t, s.P99Seconds, s.MaxSeconds)
					assert.LessOrEqual(t, s.MaxSeconds, res.Latency.MaxSeconds)
				}
			}
			assert.Equal(t, res.Requests, sum, "every request is in the timeline")
		})
	}
}

// TestCalibrationWithFixedDelay loads an app with a fixed 2 ms delay and, in the same run, the
// same app without it. The delayed p50 must be at least 2 ms, and exceed the direct p50 by 1.8
// to 2.4 ms: in fortio's default 1 ms buckets p50 would be interpolated inside a [2, 3) ms
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

// TestTailOfAFixedFractionIsItsDelay loads apps that answer 2 % of requests (40 of 2,000) after
// 500 ms: the service-time p98.5, p99 and p99.5 fall among those requests and must lie at or
// above 500 ms and within 10 % of it (the HDR histogram adds at most 0.1 %; the rest is loopback,
// the app and the machine's scheduling, tens of ms while other tests share the 2 cores), while
// p90 stays among the fast requests. p99.9 and above are the slowest two or three of the 40,
// the scheduling noise alone: they are logged.
func TestTailOfAFixedFractionIsItsDelay(t *testing.T) {
	if testing.Short() {
		t.Skip("5 s load runs")
	}
	const slow = 500 * time.Millisecond
	o := httpapp.Options{SlowFraction: 0.02, SlowDelay: slow}
	for _, tc := range []struct {
		proto  perf.Protocol
		target func(t testing.TB) string
	}{
		{perf.HTTP, func(t testing.TB) string { return httpApp(t, o) }},
		{perf.GRPC, func(t testing.TB) string { return grpcApp(t, o) }},
	} {
		t.Run(string(tc.proto), func(t *testing.T) {
			res, err := Run(t.Context(), load(t, tc.proto, tc.target(t), 400, 5*time.Second))
			require.NoError(t, err)
			require.Zero(t, res.Errors(), "codes: %v", res.RetCodes)
			for _, p := range []float64{98.5, 99, 99.5} {
				v, err := res.Percentile(p)
				require.NoError(t, err)
				assert.GreaterOrEqual(t, v, slow, "p%v", p)
				assert.LessOrEqual(t, v, slow+slow/10, "p%v within 10 %% of %v", p, slow)
			}
			p999, _ := res.Percentile(99.9)
			t.Logf("p99.9 %v, max %v", p999, res.Max())
			p90, err := res.Percentile(90)
			require.NoError(t, err)
			assert.Less(t, p90, slow/10, "p90 is among the fast 98 %%")
		})
	}
}

// TestStallShowsInResponseTimeOnly runs 500 QPS over 4 connections for 6 s against an app that
// holds every answer for 1 s once, from its 500th request (about 1 s in). Only the 4 requests in
// flight take 1 s to serve, under 0.2 % of 3,000: the service-time p99 must stay far below the
// stall. But about 500 requests were due during it and wait their turn; timed from their slots,
// the response-time p99 must show the stall, and the run must be flagged.
func TestStallShowsInResponseTimeOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("6 s load run")
	}
	const stall = time.Second
	p := load(t, perf.HTTP, httpApp(t, httpapp.Options{StallAt: 500, Stall: stall}), 500, 6*time.Second)
	p.Connections = 4
	res, err := Run(t.Context(), p)
	require.NoError(t, err)
	require.Zero(t, res.Errors(), "codes: %v", res.RetCodes)
	service, err := res.Percentile(99)
	require.NoError(t, err)
	response, err := res.ResponsePercentile(99)
	require.NoError(t, err)
	t.Logf("p99: service %v, response %v; schedule %+v", service, response, res.Schedule)
	assert.Less(t, service, stall/10, "the service-time p99 does not see the stall")
	assert.Greater(t, response, stall/2, "the response-time p99 shows the stall")
	ratio, flagged := res.CoordinatedOmission()
	assert.True(t, flagged, "response/service p99 = %.1f", ratio)
	assert.Greater(t, res.Schedule.MaxLateSeconds, 0.5, "the generator says how far it fell behind")
	assert.Greater(t, res.Schedule.Late, int64(100), "and how often")
	assert.InDelta(t, res.Schedule.Scheduled, res.Requests, 10, "late requests are sent, not dropped")
}

// TestConnectionChurnIsCounted loads a server that closes every connection after its answer:
// every request then opens a socket, and the result says so.
func TestConnectionChurnIsCounted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	p := load(t, perf.HTTP, srv.URL+"/test", 100, 2*time.Second)
	p.Connections = 2
	res, err := Run(t.Context(), p)
	require.NoError(t, err)
	assert.Greater(t, res.Sockets, res.Requests/2, "a socket per request (sockets %d, requests %d)", res.Sockets, res.Requests)
	assert.True(t, res.ConnectionChurn())
}
