package tester

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/grpcapp"
	"github.com/daprperf/daprperf/perf"
)

// A gRPC caller made while its target does not listen yet is connected before the load once
// the target comes up: its first call then succeeds instead of failing Unavailable.
func TestGRPCCallerConnectsBeforeTheLoad(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	c, err := newGRPCCaller(load(t, perf.GRPC, addr, 10, time.Second))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.close() })

	up := make(chan error, 1)
	s := grpcapp.NewServer(grpcapp.Options{})
	t.Cleanup(s.Stop)
	go func() {
		time.Sleep(300 * time.Millisecond) // the caller's first dial is refused
		l, err := net.Listen("tcp", addr)
		if err != nil {
			up <- err
			return
		}
		up <- nil
		_ = s.Serve(l)
	}()
	require.Equal(t, 0, awaitConnected([]caller{c}), "connections not up")
	require.NoError(t, <-up)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	code, ok := c.call(ctx)
	require.True(t, ok, "first call after the connect: %s", code)
	require.GreaterOrEqual(t, c.sockets(), int64(2), "the refused dial and the one that connected")
}
