package local_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
// directory.
func TestSignalStopsChildren(t *testing.T) {
	newPlatform(t) // skips without daprd, like the helper would
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestSignalHelper$", "-test.v")
	runParent := t.TempDir() // the helper dies by the signal: no cleanup of its own runs
	cmd.Env = append(os.Environ(), envSignalHelper+"="+runParent)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) // a no-op once it has exited

	pids := make(chan []int, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if f, ok := strings.CutPrefix(sc.Text(), "PIDS "); ok {
				var ps []int
				for _, s := range strings.Fields(f) {
					n, _ := strconv.Atoi(s)
					ps = append(ps, n)
				}
				pids <- ps
			}
		}
		close(pids)
	}()
	var children []int
	select {
	case children = <-pids:
	case <-time.After(time.Minute):
		t.Fatal("the helper did not report its deployment's PIDs within a minute")
	}
	require.Len(t, children, 2)
	for _, pid := range children {
		require.True(t, alive(pid), "pid %d before SIGINT", pid)
	}

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err = <-waited:
	case <-time.After(15 * time.Second):
		t.Fatal("the helper did not exit within 15 s of SIGINT")
	}
	var exitErr *exec.ExitError
	require.True(t, errors.As(err, &exitErr), "the helper's exit: %v", err)
	ws := exitErr.Sys().(syscall.WaitStatus)
	assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGINT, "the helper dies of SIGINT: %v", err)
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
	assert.FileExists(t, filepath.Join(runParent, signalHelperLogs, "callee-daprd.log"))
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

// TestSignalHelper starts a deployment, prints its PIDs and waits to be interrupted. It
// runs only as TestSignalStopsChildren's child.
func TestSignalHelper(t *testing.T) {
	runParent := os.Getenv(envSignalHelper)
	if runParent == "" {
		return // only TestSignalStopsChildren's child runs it; not a skip, so make test's summary lists real skips only
	}
	p := newPlatform(t, local.WithRunDirParent(runParent))
	d := p.Start(perf.WithLogsDir(startCtx(t), filepath.Join(runParent, signalHelperLogs)), t, withSidecar("callee", perf.HTTPApp, perf.HTTP))
	dep := d.(*local.Deployment)
	fmt.Printf("PIDS %d %d\n", dep.PID("callee"), dep.PID(perf.SidecarName("callee")))
	time.Sleep(30 * time.Second) // the parent sends SIGINT long before
	t.Error("no signal within 30 s")
}
