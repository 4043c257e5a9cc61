package tester

import (
	"net"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/grpcapp"
	"github.com/daprperf/daprperf/apps/httpapp"
	"github.com/daprperf/daprperf/perf"
)

// httpApp serves httpapp in-process on loopback and returns its /test URL.
func httpApp(t testing.TB, o httpapp.Options) string {
	t.Helper()
	srv := httptest.NewServer(httpapp.NewHandler(o))
	t.Cleanup(srv.Close)
	return srv.URL + "/test"
}

// grpcApp serves grpcapp in-process on loopback and returns its host:port.
func grpcApp(t testing.TB, o grpcapp.Options) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := grpcapp.NewServer(o)
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(s.Stop)
	return ln.Addr().String()
}

// openHandler is a handler on loopback without a token or bounds that allows targets: URLs or
// host:port addresses.
func openHandler(t testing.TB, targets ...string) *Handler {
	t.Helper()
	h, err := NewHandler(Config{Allow: allowing(t, targets...)})
	require.NoError(t, err)
	return h
}

// allowing is an allow-list (source "test") of targets: URLs or host:port addresses.
func allowing(t testing.TB, targets ...string) AllowList {
	t.Helper()
	var addrs []string
	for _, target := range targets {
		if u, err := url.Parse(target); err == nil && u.Host != "" {
			target = u.Host
		}
		addrs = append(addrs, target)
	}
	a, err := NewAllowList("test", addrs...)
	require.NoError(t, err)
	return a
}

// load returns validated params for a run of qps for d over 16 connections.
func load(t testing.TB, proto perf.Protocol, target string, qps int, d time.Duration) perf.Params {
	t.Helper()
	p := perf.DefaultParams()
	p.Protocol, p.Target = proto, target
	p.QPS, p.Connections, p.Duration = qps, 16, d
	require.NoError(t, p.Validate())
	return p
}
