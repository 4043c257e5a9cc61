package kube_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// startProcess runs bin with args for the rest of the test, logging to <dir>/<name>.log, and
// registers its stop with t.Cleanup: SIGTERM to its PID, then SIGKILL after 10 s. The log is
// printed when the test failed.
func startProcess(t testing.TB, dir, name, bin string, args ...string) *exec.Cmd {
	t.Helper()
	logPath := filepath.Join(dir, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), "HOME="+dir) // kwok reads and writes ~/.kwok
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pid := cmd.Process.Pid
	t.Logf("started %s (pid %d), log %s", name, pid, logPath)
	t.Cleanup(func() {
		defer func() { _ = logf.Close() }()
		_ = syscall.Kill(pid, syscall.SIGTERM)
		select {
		case err := <-done:
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Errorf("stop %s (pid %d): %v", name, pid, err)
			}
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(pid, syscall.SIGKILL)
			<-done
			t.Logf("stop %s (pid %d): killed after 10 s", name, pid)
		}
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil {
				t.Logf("%s log (last 4 KiB):\n%s", name, tail(b, 4<<10))
			}
		}
	})
	return cmd
}

// tail is the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// poll calls cond every 100 ms until it returns true or ctx ends, then fails t with msg and
// cond's last error.
func poll(ctx context.Context, t testing.TB, msg string, cond func(context.Context) (bool, error)) {
	t.Helper()
	var last error
	for {
		ok, err := cond(ctx)
		if ok {
			return
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v (last error: %v)", msg, ctx.Err(), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
