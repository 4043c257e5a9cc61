package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// pollInterval is the pause between two health checks of one process.
const pollInterval = 75 * time.Millisecond

// probeTimeout bounds one health check.
const probeTimeout = time.Second

// logTailBytes bounds how much of a log's end an error quotes.
const logTailBytes = 2 << 10

// check asks a process once whether it is ready; nil means ready.
type check func(ctx context.Context) error

// readiness is the health check of one process.
type readiness struct {
	proc  *process
	check check
}

// healthClient makes the health checks; no keep-alive, so no idle connection outlives them.
var healthClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// httpCheck is ready when GET url answers status want.
func httpCheck(url string, want int) check {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := healthClient.Do(req)
		if err != nil {
			return err
		}
		defer func() { _ = resp.Body.Close() }()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512)) // for the message only
		if resp.StatusCode != want {
			return fmt.Errorf("GET %s: %s, want %d: %s", url, resp.Status, want, bytes.TrimSpace(body))
		}
		return nil
	}
}

// grpcHealthCheck is ready when the standard gRPC health service at addr (host:port)
// answers SERVING for the server as a whole.
func grpcHealthCheck(addr string) check {
	return func(ctx context.Context) error {
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return fmt.Errorf("grpc health %s: %w", addr, err)
		}
		defer func() { _ = conn.Close() }()
		resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
		if err != nil {
			return fmt.Errorf("grpc health %s: %w", addr, err)
		}
		if s := resp.GetStatus(); s != healthpb.HealthCheckResponse_SERVING {
			return fmt.Errorf("grpc health %s: %v", addr, s)
		}
		return nil
	}
}

// waitReady polls every check every pollInterval until all pass. It fails at once when a
// process of the deployment ends (exited delivers it), and when ctx ends; the error names
// the process, the last error its check saw and its log.
func waitReady(ctx context.Context, checks []readiness, exited <-chan *process) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the other polls once one fails
	results := make(chan error, len(checks))
	for _, r := range checks {
		go func() { results <- poll(ctx, r) }()
	}
	for pending := len(checks); pending > 0; {
		select {
		case err := <-results:
			pending--
			if err != nil {
				return err
			}
		case p := <-exited:
			return exitedDuringStart(p)
		}
	}
	return nil
}

// poll runs r's check until it passes, and then stamps r.proc.ready, or until ctx ends.
func poll(ctx context.Context, r readiness) error {
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	start := time.Now()
	for {
		cctx, cancel := context.WithTimeout(ctx, probeTimeout)
		last := r.check(cctx)
		cancel()
		if last == nil {
			r.proc.ready = time.Now()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s (pid %d) not ready after %v: %w; last error: %v; log %s",
				r.proc.name, r.proc.pid, time.Since(start).Round(time.Millisecond), context.Cause(ctx), last, r.proc.log)
		case <-ticker.C:
		}
	}
}

// exitedDuringStart is the error for a process that ended before the deployment was ready.
func exitedDuringStart(p *process) error {
	return fmt.Errorf("%s (pid %d) exited during startup: %s; log %s ends:\n%s",
		p.name, p.pid, describeExit(p.err), p.log, tail(p.log, logTailBytes))
}

// tail returns at most the last n bytes of the file at path, from a line start when it can.
func tail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	off := max(fi.Size()-n, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	s := string(b)
	if off > 0 {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	return strings.TrimRight(s, "\n")
}
