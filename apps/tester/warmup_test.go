package tester

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"

	"github.com/daprperf/daprperf/apps/grpcapp"
	"github.com/daprperf/daprperf/apps/httpapp"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
)

// countedHTTPApp serves httpapp in-process on loopback, counting every request it is sent, and
// returns its /test URL and the count.
func countedHTTPApp(t testing.TB) (string, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	app := httpapp.NewHandler(httpapp.Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		app.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/test", &n
}

// countedGRPCApp serves grpcapp in-process on loopback, counting every unary call it is sent,
// and returns its host:port and the count.
func countedGRPCApp(t testing.TB) (string, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	count := func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		n.Add(1)
		return h(ctx, req)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := grpcapp.NewServer(grpcapp.Options{}, grpc.UnaryInterceptor(count))
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(s.Stop)
	return ln.Addr().String(), &n
}

// TestWarmupRequestsAreCounted runs short loads against the apps, counting the calls they
// receive: every call is either one of the result's Requests or one of its WarmupRequests.
// fortio's HTTP runner sends one warm-up request per connection it runs; the tester's own
// callers (gRPC, a unique path) and the closed-loop driver send none.
func TestWarmupRequestsAreCounted(t *testing.T) {
	for _, tc := range []struct {
		name        string
		proto       perf.Protocol
		app         func(testing.TB) (string, *atomic.Int64)
		qps, conns  int
		set         func(*perf.Params)
		warmups     int64
		connections int64 // the connections that carry the load
	}{
		{name: "fortio-http", proto: perf.HTTP, app: countedHTTPApp, qps: 200, conns: 8, warmups: 8, connections: 8},
		// 10 calls over 16 connections: fortio runs at least 2 calls per connection, so 5 of
		// them carry the load, and only those are opened and warmed up.
		{name: "fortio-http-fewer-calls-than-connections", proto: perf.HTTP, app: countedHTTPApp, qps: 10, conns: 16, warmups: 5, connections: 5},
		{name: "unique-path", proto: perf.HTTP, app: countedHTTPApp, qps: 200, conns: 8,
			set: func(p *perf.Params) { p.UniquePath = true }, connections: 8},
		{name: "grpc", proto: perf.GRPC, app: countedGRPCApp, qps: 200, conns: 8, connections: 8},
		{name: "driver-http", proto: perf.HTTP, app: countedHTTPApp, qps: 1, conns: 1,
			set: func(p *perf.Params) {
				// Constant VUs, not shared iterations: with 100 shared iterations a VU that
				// starts late on a busy machine may find none left, and carry no load.
				p.Executor = driver.Executor{Kind: driver.ConstantVUs, VUs: 4, Duration: 500 * time.Millisecond}
			}, connections: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target, calls := tc.app(t)
			p := load(t, tc.proto, target, tc.qps, time.Second)
			p.Connections = tc.conns
			if tc.set != nil {
				tc.set(&p)
			}
			res, err := Run(t.Context(), p)
			require.NoError(t, err)
			require.Zero(t, res.Errors(), "codes: %v", res.RetCodes)
			require.Positive(t, res.Requests)
			assert.Equal(t, tc.warmups, res.WarmupRequests)
			assert.Equal(t, res.Requests+res.WarmupRequests, calls.Load(), "the app saw every request and every warm-up request, and nothing else")
			assert.Equal(t, res.Requests, sum(res.RetCodes), "no warm-up request is in the codes")
			assert.Equal(t, tc.connections, res.Sockets, "one socket per connection that carries the load")
		})
	}
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}
