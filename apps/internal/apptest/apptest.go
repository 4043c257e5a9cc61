// Package apptest builds and runs the app binaries in tests: it is test
// support, imported only by _test files.
//
//	bin := apptest.Build(t, "github.com/daprperf/daprperf/apps/httpapp/cmd/httpapp")
//	p := apptest.Start(t, bin)          // waits for the "listening on" line
//	... use p.Addr ...
//	code := p.Stop(t, 5*time.Second)  // SIGTERM, then the exit code
//
// Every process started is killed in t.Cleanup if it is still running.
package apptest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/daprperf/daprperf/apps/internal/serve"
)

// buildTimeout bounds one go build of an app.
const buildTimeout = 2 * time.Minute

// startTimeout bounds the wait for the "listening on" line.
const startTimeout = 10 * time.Second

// Build compiles the main package pkg (an import path) into t.TempDir()
// and returns the binary's path; a failed build is t.Fatal with its output.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	ctx, cancel := context.WithTimeout(t.Context(), buildTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// Process is one running app binary.
type Process struct {
	Addr   string // host:port from the "listening on" line
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan struct{} // closed once cmd.Wait returned
	err    error         // cmd.Wait's error, valid after done
}

// Start runs bin with args and returns once it printed its "listening on"
// line (within 10 s), or fails the test. t.Cleanup kills the process if it
// is still running at the end of the test.
func Start(t testing.TB, bin string, args ...string) *Process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("stdout of %s: %v", bin, err)
	}
	p := &Process{cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() { p.kill() }) // registered as soon as there is a PID

	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		for sc.Scan() { // drain: the apps print nothing more
		}
		p.err = cmd.Wait() // after stdout is read to its end, as StdoutPipe requires
		close(p.done)
	}()

	select {
	case line, ok := <-lines:
		if !ok {
			t.Fatalf("%s exited before listening; stderr: %s", bin, p.stderr)
		}
		addr, found := strings.CutPrefix(line, serve.AnnouncePrefix)
		if !found || !strings.HasPrefix(addr, serve.Host+":") {
			t.Fatalf("%s: first stdout line %q, want %q", bin, line, serve.AnnouncePrefix+serve.Host+":<port>")
		}
		p.Addr = addr
	case <-time.After(startTimeout):
		t.Fatalf("%s did not print its listening line within %v; stderr: %s", bin, startTimeout, p.stderr)
	}
	return p
}

// Stop sends SIGTERM and returns the exit code once the process exited;
// the test fails if that takes longer than timeout.
func (p *Process) Stop(t testing.TB, timeout time.Duration) int {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM pid %d: %v", p.cmd.Process.Pid, err)
	}
	return p.Wait(t, timeout)
}

// Wait returns the exit code once the process exited, failing the test if
// that takes longer than timeout.
func (p *Process) Wait(t testing.TB, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		t.Fatalf("pid %d still running %v after the signal; stderr: %s", p.cmd.Process.Pid, timeout, p.stderr)
	}
	return exitCode(t, p.err)
}

// Stderr returns what the process wrote to stderr so far.
func (p *Process) Stderr() string { return p.stderr.String() }

// kill ends the process with SIGKILL if it is still running, and waits.
func (p *Process) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Kill() // by PID
	<-p.done
}

// Run runs bin with args to completion (within timeout) and returns its
// exit code, stdout and stderr; for flag errors and other quick exits.
func Run(t testing.TB, timeout time.Duration, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...) // killed by PID at the deadline
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %v did not exit within %v", bin, args, timeout)
	}
	return exitCode(t, err), out.String(), errOut.String()
}

// exitCode turns cmd.Wait's error into an exit code; -1 for a signal.
func exitCode(t testing.TB, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("wait: %v", err)
	}
	return ee.ExitCode()
}

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
