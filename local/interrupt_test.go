package local_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// envInterruptChild makes TestInterruptedRunChild run, as the child of
// TestSIGINTKeepsTheRunsPartialResult; its value is the child's report root.
const envInterruptChild = "DAPRPERF_LOCAL_INTERRUPT_CHILD"

// TestSIGINTKeepsTheRunsPartialResult: an HTTP service-invocation run on the local platform, in
// a child test binary, gets SIGINT once its first round's baseline is in its result file. The
// child must die of the signal with none of its processes left and its processes' logs kept
// once, and its file must say it was interrupted after that baseline and keep it; a result file
// already in the run's folder (the same run id) must be left byte for byte.
func TestSIGINTKeepsTheRunsPartialResult(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daprd")
	}
	newPlatform(t) // skips without daprd, like the child would
	root := t.TempDir()
	earlierPath := filepath.Join(root, perf.RunsDir, "sigint", "service_invocation", "http", "result.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(earlierPath), 0o755))
	earlier := []byte(`{"schema": 1, "test": "service_invocation", "transport": "http", "runID": "sigint"}` + "\n")
	require.NoError(t, os.WriteFile(earlierPath, earlier, 0o644))

	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestInterruptedRunChild$", "-test.v")
	cmd.Env = append(os.Environ(), envInterruptChild+"="+root, runner.EnvRunID+"=sigint",
		"DAPR_TEST_DURATION=10s", "DAPR_PERF_QPS=100", "DAPR_PERF_WARMUP_DURATION=2s", "DAPR_PERF_REPEATS=2",
		"DAPR_PERF_OVERHEAD_GATE=warn")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) // a no-op once it has exited
	t.Cleanup(func() { killMentioning(t, root) })                // should find nothing

	path := filepath.Join(filepath.Dir(earlierPath), "result-2.json")
	deadline := time.Now().Add(3 * time.Minute)
	for {
		require.True(t, time.Now().Before(deadline), "no baseline in %s within 3 min:\n%s", path, &out)
		var seen perf.Report
		if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &seen) == nil && seen.PartialRound != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var err error
	select {
	case err = <-waited:
	case <-time.After(30 * time.Second):
		t.Fatalf("the child did not exit within 30 s of SIGINT:\n%s", &out)
	}
	// The handler stops the processes, then dies of the signal; the test can get there first,
	// its load failing as the processes go, and exit 1. Either way it must not succeed.
	var exitErr *exec.ExitError
	require.True(t, errors.As(err, &exitErr), "the child's exit: %v", err)
	ws := exitErr.Sys().(syscall.WaitStatus)
	assert.True(t, (ws.Signaled() && ws.Signal() == syscall.SIGINT) || ws.ExitStatus() > 0, "the child fails: %v\n%s", err, &out)
	assert.Contains(t, out.String(), "partial result kept in "+path)
	assert.Equal(t, 1, strings.Count(out.String(), "the processes' logs kept in "), "the logs are kept once, by the signal handler or the failed test's cleanup:\n%s", &out)
	assert.NotContains(t, out.String(), "file exists", "the logs kept twice")
	assert.Empty(t, mentioning(t, root), "processes of the interrupted run still running")

	got, err := os.ReadFile(earlierPath)
	require.NoError(t, err)
	assert.Equal(t, string(earlier), string(got), "the earlier result file is untouched")

	rep, err := report.ReadReport(path)
	require.NoError(t, err, "the partial result parses")
	assert.True(t, rep.Incomplete)
	assert.True(t, strings.HasPrefix(rep.IncompleteReason, "interrupted by SIGINT after round 1 baseline"), rep.IncompleteReason)
	require.NotNil(t, rep.PartialRound)
	assert.Positive(t, rep.PartialRound.Baseline.Requests, "the completed baseline is kept")
	assert.Empty(t, rep.Rounds)
	assert.NotEmpty(t, rep.Environment.DaprVersion, "the environment is recorded")
	assert.Equal(t, "SIGINT", rep.InterruptedBy)
	outcome, why := rep.Outcome()
	assert.Equal(t, perf.OutcomeInterrupted, outcome, why)
}

// TestInterruptedRunChild is the run TestSIGINTKeepsTheRunsPartialResult interrupts.
func TestInterruptedRunChild(t *testing.T) {
	root := os.Getenv(envInterruptChild)
	if root == "" {
		return // only a child process started by its parent test runs it; not a skipped test
	}
	// The signal leaves the run dir (logs) behind, as for a failed test: keep it in root.
	p, err := local.New(local.WithEnv(runner.EnvFor(t)), local.WithRunDirParent(root), local.WithoutDaprdB())
	require.NoError(t, err)
	runner.Run(t, scenarios.ServiceInvocation(perf.HTTP), runner.WithPlatform(p), runner.WithReportDir(root))
	t.Error("not interrupted")
}

// mentioning lists the PIDs of live processes whose command line or open files mention dir:
// the run's processes (daprd's configuration lives there, and every process logs there).
func mentioning(t testing.TB, dir string) []int {
	t.Helper()
	procs, err := procfs.AllProcs()
	require.NoError(t, err)
	var pids []int
	for _, p := range procs {
		if p.PID == os.Getpid() || !alive(p.PID) {
			continue
		}
		args, _ := p.CmdLine()
		files, _ := p.FileDescriptorTargets()
		if strings.Contains(strings.Join(append(args, files...), "\n"), dir) {
			pids = append(pids, p.PID)
		}
	}
	return pids
}

// killMentioning kills what mentioning finds, so that a failed test leaves nothing running.
func killMentioning(t testing.TB, dir string) {
	for _, pid := range mentioning(t, dir) {
		t.Errorf("killing leftover pid %d", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
