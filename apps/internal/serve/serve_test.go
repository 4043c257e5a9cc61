package serve

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/daprperf/daprperf/apps/internal/faults"
)

func TestParseAppFlags(t *testing.T) {
	f, err := ParseAppFlags("app", []string{"-port", "8080", "-fail-fraction", "0.1", "-delay", "2ms"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, AppFlags{Port: 8080, Faults: faults.Options{FailFraction: 0.1, Delay: 2 * time.Millisecond}}, f)

	f, err = ParseAppFlags("app", nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, AppFlags{}, f)

	_, err = ParseAppFlags("app", []string{"-h"}, io.Discard)
	assert.ErrorIs(t, err, flag.ErrHelp)
}

func TestParseAppFlagsErrorsNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-port", "-1"}, `invalid value "-1" for flag -port: must be in [0, 65535]`},
		{[]string{"-port", "65536"}, `invalid value "65536" for flag -port: must be in [0, 65535]`},
		{[]string{"-port", "http"}, `invalid value "http" for flag -port: not an integer`},
		{[]string{"-fail-fraction", "2"}, `invalid value "2" for flag -fail-fraction: must be in [0, 1]`},
		{[]string{"-fail-fraction", "-0.1"}, `invalid value "-0.1" for flag -fail-fraction: must be in [0, 1]`},
		{[]string{"-fail-fraction", "NaN"}, `invalid value "NaN" for flag -fail-fraction: must be in [0, 1]`},
		{[]string{"-delay", "-1ms"}, `invalid value "-1ms" for flag -delay: must be >= 0`},
		{[]string{"-delay", "2"}, `invalid value "2" for flag -delay: not a Go duration`},
		{[]string{"-port", "0", "extra"}, `unexpected argument "extra"`},
	} {
		var stderr bytes.Buffer
		_, err := ParseAppFlags("app", tc.args, &stderr)
		require.Error(t, err, "%v", tc.args)
		assert.ErrorContains(t, err, tc.want, "%v", tc.args)
		assert.Contains(t, stderr.String(), tc.want, "%v", tc.args)
		assert.Contains(t, stderr.String(), "Usage of app", "%v", tc.args)
	}
}

func TestListenAndAnnounce(t *testing.T) {
	ln, err := Listen(0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	port := ListenPort(ln)
	require.NotZero(t, port)
	assert.Equal(t, "127.0.0.1:"+strconv.Itoa(port), ln.Addr().String())

	var out bytes.Buffer
	require.NoError(t, Announce(&out, ln))
	assert.Equal(t, "listening on 127.0.0.1:"+strconv.Itoa(port)+"\n", out.String())

	_, err = Listen(port) // taken
	assert.Error(t, err)
	_, err = Listen(65536)
	assert.EqualError(t, err, "listen: port 65536: must be in [0, 65535] (0 picks a free port)")
	_, err = Listen(-1)
	assert.Error(t, err)
}

func TestHTTPShutsDownGracefully(t *testing.T) {
	ln, err := Listen(0)
	require.NoError(t, err)
	entered := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		time.Sleep(50 * time.Millisecond) // still in flight when the shutdown starts
		_, _ = io.WriteString(w, "done")
	})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- HTTP(ctx, ln, h) }()

	got := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			got <- err.Error()
			return
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		got <- string(b)
	}()
	<-entered
	cancel()
	select {
	case err := <-served:
		assert.NoError(t, err)
	case <-time.After(ShutdownTimeout + time.Second):
		t.Fatal("HTTP did not return after its context was canceled")
	}
	assert.Equal(t, "done", <-got, "the in-flight request finishes")
}

func TestHTTPReportsServeError(t *testing.T) {
	ln, err := Listen(0)
	require.NoError(t, err)
	require.NoError(t, ln.Close()) // Serve fails at once
	err = HTTP(t.Context(), ln, http.NotFoundHandler())
	assert.ErrorContains(t, err, "serve http")
}

func TestGRPCStopsGracefully(t *testing.T) {
	ln, err := Listen(0)
	require.NoError(t, err)
	s := grpc.NewServer()
	healthpb.RegisterHealthServer(s, health.NewServer())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- GRPC(ctx, ln, s) }()

	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	_, err = healthpb.NewHealthClient(conn).Check(t.Context(), &healthpb.HealthCheckRequest{})
	require.NoError(t, err)

	cancel()
	select {
	case err := <-served:
		assert.NoError(t, err)
	case <-time.After(ShutdownTimeout + time.Second):
		t.Fatal("GRPC did not return after its context was canceled")
	}
}

// TestStoppedBeforeServingIsClean cancels the context before GRPC or HTTP is called: the stop
// then races the goroutine that calls Serve, and when the stop wins, grpc-go's Serve returns
// grpc.ErrServerStopped (net/http's, http.ErrServerClosed). A stop asked for by the context is
// a clean stop whichever ran first, and the listener is closed either way.
func TestStoppedBeforeServingIsClean(t *testing.T) {
	for name, run := range map[string]func(context.Context, net.Listener) error{
		"grpc": func(ctx context.Context, ln net.Listener) error { return GRPC(ctx, ln, grpc.NewServer()) },
		"http": func(ctx context.Context, ln net.Listener) error { return HTTP(ctx, ln, http.NotFoundHandler()) },
	} {
		t.Run(name, func(t *testing.T) {
			for range 50 { // each round is one roll of the race
				ln, err := Listen(0)
				require.NoError(t, err)
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				require.NoError(t, run(ctx, ln))
				_, err = ln.Accept()
				require.ErrorIs(t, err, net.ErrClosed, "the listener is closed")
			}
		})
	}
}

func TestGracefulStopIsBounded(t *testing.T) {
	ln, err := Listen(0)
	require.NoError(t, err)
	entered := make(chan struct{})
	s := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		close(entered)
		<-stream.Context().Done() // a call that never ends by itself; Stop cancels it
		return stream.Context().Err()
	}))
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	stream, err := conn.NewStream(t.Context(), &grpc.StreamDesc{ServerStreams: true}, "/x.Y/Z")
	require.NoError(t, err)
	require.NoError(t, stream.CloseSend())
	select {
	case <-entered:
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not reach the server")
	}

	start := time.Now()
	assert.False(t, gracefulStop(s, 50*time.Millisecond), "the hanging call outlives the graceful stop")
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.NoError(t, <-served)
}

func TestMainBadFlagsExit2(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := Main("app", []string{"-fail-fraction", "2"}, &stdout, &stderr, func(context.Context, net.Listener, faults.Options) error {
		return errors.New("must not run")
	})
	assert.Equal(t, ExitUsage, code)
	assert.Empty(t, stdout.String())
	assert.Contains(t, stderr.String(), "-fail-fraction")
}

func TestMainRuns(t *testing.T) {
	var stdout, stderr bytes.Buffer
	var got faults.Options
	code := Main("app", []string{"-delay", "3ms"}, &stdout, &stderr, func(_ context.Context, ln net.Listener, o faults.Options) error {
		got = o
		return ln.Close() // a run that ends by itself
	})
	assert.Equal(t, ExitOK, code, stderr.String())
	assert.Equal(t, faults.Options{Delay: 3 * time.Millisecond}, got)
	assert.Regexp(t, `^listening on 127\.0\.0\.1:[1-9][0-9]*\n$`, stdout.String())

	stdout.Reset()
	code = Main("app", nil, &stdout, &stderr, func(context.Context, net.Listener, faults.Options) error {
		return errors.New("boom")
	})
	assert.Equal(t, ExitError, code)
	assert.Contains(t, stderr.String(), "app: boom")
}

func TestCommand(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		ok       bool
		port     int
		host, in string // host after Parse; in: a part of stderr
	}{
		{args: nil, ok: true},
		{args: []string{"-port", "8080", "-host", "0.0.0.0", "-x", "y"}, ok: true, port: 8080, host: "0.0.0.0"},
		{args: []string{"-h"}, code: ExitOK},
		{args: []string{"-port", "70000"}, code: ExitUsage, in: `invalid value "70000" for flag -port`},
		{args: []string{"-host", "localhost"}, code: ExitUsage, in: "not an IP address"},
		{args: []string{"extra"}, code: ExitUsage, in: `app: unexpected argument "extra": app takes flags only`},
	} {
		var stderr strings.Builder
		c := NewCommand("app", &stderr)
		x := c.String("x", "", "an app's own flag")
		code, ok := c.Parse(tc.args)
		if code != tc.code || ok != tc.ok || c.Port != tc.port || c.Host != tc.host || !strings.Contains(stderr.String(), tc.in) {
			t.Errorf("Parse(%q) = %d, %v, port %d, host %q, stderr %q; want %d, %v, %d, %q, stderr with %q",
				tc.args, code, ok, c.Port, c.Host, stderr.String(), tc.code, tc.ok, tc.port, tc.host, tc.in)
		}
		if tc.ok && len(tc.args) > 0 && *x != "y" {
			t.Errorf("Parse(%q): the app's own flag -x = %q, want y", tc.args, *x)
		}
	}
	var stderr strings.Builder
	if code := NewCommand("app", &stderr).Usage("-x %q: bad", "z"); code != ExitUsage || stderr.String() != "app: -x \"z\": bad\n" {
		t.Errorf("Usage = %d, %q", code, stderr.String())
	}
}
