package local_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
)

// envSignalHelper makes TestSignalHelper run, as the child of TestSignalStopsChildren; its
// value is the folder for the helper's run directory.
const envSignalHelper = "DAPRPERF_LOCAL_SIGNAL_HELPER"

// TestSignalStopsChildren: SIGINT to a test binary with a running deployment stops the
// deployment's processes (which run in their own process groups) before the binary dies, keeps
// their logs in the folder the deployment was given (perf.WithLogsDir) and removes its run
// directory. The helper's test fails on the signal, so the deployment's cleanup runs while the
// signal handler keeps the logs, as in a main phase: the logs are kept once, with one line
// saying where, and neither path meets the other's files.
func TestSignalStopsChildren(t *testing.T) {
	newPlatform(t) // skips without daprd, like the helper would
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestSignalHelper$", "-test.v")
	runParent := t.TempDir() // the helper dies by the signal: no cleanup of its own runs
	cmd.Env = append(os.Environ(), envSignalHelper+"="+runParent)
	out := &helperOutput{pids: make(chan []int, 1)}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) // a no-op once it has exited

	var children []int
	select {
	case children = <-out.pids:
	case <-time.After(time.Minute):
		t.Fatalf("the helper did not report its deployment's PIDs within a minute:\n%s", out)
	}
	require.Len(t, children, 2)
	for _, pid := range children {
		require.True(t, alive(pid), "pid %d before SIGINT", pid)
	}

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var err error
	select {
	case err = <-waited:
	case <-time.After(15 * time.Second):
		t.Fatalf("the helper did not exit within 15 s of SIGINT:\n%s", out)
	}
	// The binary dies of the signal once the handler has kept the logs; the helper's failed test, its
	// cleanup done, can exit 1 first. Either way it must not succeed.
	var exitErr *exec.ExitError
	require.True(t, errors.As(err, &exitErr), "the helper's exit: %v\n%s", err, out)
	ws := exitErr.Sys().(syscall.WaitStatus)
	assert.True(t, (ws.Signaled() && ws.Signal() == syscall.SIGINT) || ws.ExitStatus() > 0, "the helper fails: %v\n%s", err, out)
	for _, pid := range children {
		assert.False(t, alive(pid), "pid %d after SIGINT", pid)
	}
	entries, err := os.ReadDir(runParent)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{signalHelperLogs}, names, "the run directory is removed, the logs folder stays")
	logs := filepath.Join(runParent, signalHelperLogs)
	for _, name := range []string{"callee.log", "callee-daprd.log", "callee-config.yaml"} {
		assert.FileExists(t, filepath.Join(logs, name))
	}
	b, err := os.ReadFile(filepath.Join(logs, "callee-daprd.log"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "dapr initialized", "the whole daprd log is kept")

	text := out.String()
	assert.Contains(t, text, "got interrupt", "the helper's test failed while the signal was handled")
	assert.Equal(t, 1, strings.Count(text, "logs kept in "+logs), "one line says where the logs are kept:\n%s", text)
	for _, bad := range []string{"file exists", "keep logs:", "remove run dir"} {
		assert.NotContains(t, text, bad, "an error keeping the logs or removing the run directory")
	}
}

// helperOutput collects the helper's stdout and stderr, and passes on the PIDs its "PIDS" line
// names.
type helperOutput struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	scanned int        // how much of buf has been looked at for the PIDS line
	pids    chan []int // gets the PIDs once
	sent    bool
}

func (o *helperOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf.Write(p)
	for !o.sent {
		rest := o.buf.Bytes()[o.scanned:]
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		o.scanned += i + 1
		if f, ok := strings.CutPrefix(string(rest[:i]), "PIDS "); ok {
			var ps []int
			for _, s := range strings.Fields(f) {
				n, _ := strconv.Atoi(s)
				ps = append(ps, n)
			}
			o.pids <- ps
			o.sent = true
		}
	}
	return len(p), nil
}

func (o *helperOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// signalHelperLogs is the helper's logs folder, in its run directories' folder.
const signalHelperLogs = "logs"

// alive reports whether pid is a running process (not a zombie nobody reaped yet).
func alive(pid int) bool {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return false
	}
	st, err := p.Stat()
	return err == nil && st.State != "Z" && st.State != "X"
}

// TestSignalHelper starts a deployment, prints its PIDs and waits for the parent's SIGINT, on
// which its test fails at once, as a main phase's does when the signal stops the processes: the
// deployment's cleanup then runs while the signal handler is stopping it. It runs only as
// TestSignalStopsChildren's child.
func TestSignalHelper(t *testing.T) {
	runParent := os.Getenv(envSignalHelper)
	if runParent == "" {
		return // only TestSignalStopsChildren's child runs it; not a skip, so make test's summary lists real skips only
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT) // beside the platform's handler, which also gets it
	defer signal.Stop(sigs)
	p := newPlatform(t, local.WithRunDirParent(runParent))
	d := p.Start(perf.WithLogsDir(startCtx(t), filepath.Join(runParent, signalHelperLogs)), t, withSidecar("callee", perf.HTTPApp, perf.HTTP))
	dep := d.(*local.Deployment)
	fmt.Printf("PIDS %d %d\n", dep.PID("callee"), dep.PID(perf.SidecarName("callee")))
	select {
	case sig := <-sigs:
		t.Errorf("got %v", sig)
	case <-time.After(30 * time.Second): // the parent sends SIGINT long before
		t.Error("no signal within 30 s")
	}
}
