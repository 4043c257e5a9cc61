package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf/push"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// envRunChild makes TestRunChild run the calibration scenario into the report root it names,
// with the rounds of DAPR_PERF_REPEATS. A child's run may fail (a busy machine makes 2 s runs
// invalid); the tests below only look at the files it leaves.
const envRunChild = "DAPRPERF_RUN_CHILD"

// runChild starts TestRunChild with root, run id and extra environment, and returns the
// command (started) and its combined output.
func runChild(t *testing.T, root, runID string, env ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestRunChild$", "-test.v")
	cmd.Env = append(os.Environ(), envRunChild+"="+root, runner.EnvRunID+"="+runID, perf.EnvRepeats+"=1")
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) // a no-op once it has exited
	return cmd, &out
}

// envRunChildFailStart makes TestRunChild's platform fail its start with t.Fatal.
const envRunChildFailStart = "DAPRPERF_RUN_CHILD_FAIL_START"

// TestRunChild is the run of a child started by runChild.
func TestRunChild(t *testing.T) {
	root := os.Getenv(envRunChild)
	if root == "" {
		return // only a child process started by its parent test runs it; not a skipped test
	}
	var p perf.Platform = &fakePlatform{}
	if os.Getenv(envRunChildFailStart) != "" {
		p = failingPlatform{}
	}
	runner.Run(t, calibration(), runner.WithPlatform(p), runner.WithReportDir(root))
}

// failingPlatform's Start fails the test, as a platform whose daprd does not come up does.
type failingPlatform struct{}

func (failingPlatform) Name() string { return "failing" }
func (failingPlatform) Start(_ context.Context, t perf.TB, _ ...perf.App) perf.Deployment {
	t.Fatal("failing platform: testapp-daprd did not become healthy")
	return nil
}

// TestAFailedStartStillWritesAResult: a platform that fails its start (t.Fatal) leaves a result
// file saying so: incomplete, with an infrastructure error, so make perf's exit code is 5.
func TestAFailedStartStillWritesAResult(t *testing.T) {
	root := t.TempDir()
	cmd, out := runChild(t, root, "failed-start", envRunChildFailStart+"=1")
	require.Error(t, cmd.Wait(), "%s", out)
	rep, err := report.ReadReport(filepath.Join(root, "runs", "failed-start", "calibration", "http", "result.json"))
	require.NoError(t, err, "%s", out)
	assert.True(t, rep.Incomplete)
	assert.Contains(t, rep.IncompleteReason, "before any phase completed")
	require.Len(t, rep.InfraErrors, 1)
	outcome, why := rep.Outcome()
	assert.Equal(t, perf.OutcomeInfra, outcome, why)
	assert.Equal(t, "failing", rep.Environment.Platform)
}

// TestTwoRunsBothKept: two runs with different run ids keep a file each; a third with the same
// run id as the first takes result-2.json and leaves the first file byte for byte.
func TestTwoRunsBothKept(t *testing.T) {
	if testing.Short() {
		t.Skip("three runs of 2 s load")
	}
	root := t.TempDir()
	run := func(id string) {
		cmd, out := runChild(t, root, id)
		_ = cmd.Wait()
		t.Logf("run %s:\n%s", id, out)
	}
	run("run-one")
	firstPath := filepath.Join(root, "runs", "run-one", "calibration", "http", "result.json")
	firstBytes, err := os.ReadFile(firstPath)
	require.NoError(t, err)

	run("run-two")
	run("run-one")
	for _, path := range []string{
		firstPath,
		filepath.Join(root, "runs", "run-two", "calibration", "http", "result.json"),
		filepath.Join(root, "runs", "run-one", "calibration", "http", "result-2.json"),
	} {
		rep, err := report.ReadReport(path)
		require.NoError(t, err, "every run keeps its file")
		assert.False(t, rep.Incomplete, "%s: %s", path, rep.IncompleteReason)
		assert.Len(t, rep.Rounds, 1, path)
		require.NotNil(t, rep.Command, path)
		assert.Contains(t, rep.Command.Args, "-test.run=^TestRunChild$", "the command is recorded")
		assert.Equal(t, "1", rep.Command.Env[perf.EnvRepeats], "the settings are recorded")
	}
	now, err := os.ReadFile(firstPath)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(firstBytes, now), "the first run's file is untouched by a run with the same id")
	leftovers, _ := filepath.Glob(filepath.Join(root, "runs", "*", "*", "*", ".result-*"))
	assert.Empty(t, leftovers, "no temporary files left")
}

func TestRunIDFromEnvIsChecked(t *testing.T) {
	for _, bad := range []string{"../up", "a/b", ".hidden", "with space", strings.Repeat("a", 200)} {
		t.Setenv(runner.EnvRunID, bad)
		_, err := runner.RunIDFromEnv(runner.EnvFor(t))
		require.Error(t, err, "%q", bad)
		assert.Contains(t, err.Error(), runner.EnvRunID)
	}
	t.Setenv(runner.EnvRunID, "")
	a, err := runner.RunIDFromEnv(runner.EnvFor(t))
	require.NoError(t, err)
	b, _ := runner.RunIDFromEnv(runner.EnvFor(t))
	assert.Equal(t, a, b, "unset: one id for the whole test binary")
	assert.Regexp(t, `^\d{8}T\d{6}Z-[0-9a-f]{4}$`, a)
}

// TestSIGINTKeepsThePartialRunAndTouchesNothingElse runs a complete calibration run, then a
// second one with the same run id and three rounds, interrupted by SIGINT once its first
// round's baseline is in its file (its main phase still running). The earlier file must be
// untouched; the interrupted run's own file (result-2.json) must hold that baseline, marked
// incomplete.
func TestSIGINTKeepsThePartialRunAndTouchesNothingElse(t *testing.T) {
	if testing.Short() {
		t.Skip("a run of 2 s load, then an interrupted one")
	}
	root := t.TempDir()
	earlier, out := runChild(t, root, "shared")
	_ = earlier.Wait()
	earlierPath := filepath.Join(root, "runs", "shared", "calibration", "http", "result.json")
	earlierBytes, err := os.ReadFile(earlierPath)
	require.NoError(t, err, "%s", out)
	rep, err := report.ReadReport(earlierPath)
	require.NoError(t, err)
	require.False(t, rep.Incomplete, "the earlier run is complete")

	cmd, out := runChild(t, root, "shared", perf.EnvRepeats+"=3")
	partial := filepath.Join(root, "runs", "shared", "calibration", "http", "result-2.json")
	deadline := time.Now().Add(30 * time.Second)
	for {
		require.True(t, time.Now().Before(deadline), "no baseline in %s within 30 s:\n%s", partial, out)
		var seen perf.Report
		if b, err := os.ReadFile(partial); err == nil && json.Unmarshal(b, &seen) == nil && seen.PartialRound != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err = cmd.Wait()
	var exitErr *exec.ExitError
	require.ErrorAs(t, err, &exitErr, "%s", out)
	ws := exitErr.Sys().(syscall.WaitStatus)
	assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGINT, "the run dies of SIGINT: %v\n%s", err, out)

	now, err := os.ReadFile(earlierPath)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(earlierBytes, now), "the earlier complete result is untouched")

	got, err := report.ReadReport(partial)
	require.NoError(t, err, "the partial result parses")
	assert.True(t, got.Incomplete)
	assert.Contains(t, got.IncompleteReason, "round 1 baseline")
	assert.False(t, got.Pass)
	require.NotNil(t, got.PartialRound, "the completed baseline of the unfinished round is kept")
	assert.Positive(t, got.PartialRound.Baseline.Requests)
	assert.Empty(t, got.Rounds, "no round was complete")
	outcome, why := got.Outcome()
	assert.Equal(t, perf.OutcomeInfra, outcome, why) // no signal handler here (the local platform has one): not marked interrupted
}

// TestOutcomesOfRealFailingRuns runs the calibration scenario in a child test binary four
// times, each failing in its own way for real, and checks what each result file says happened
// (the exit code of make perf): a pass, a missed bound (p50 overhead of a 1 ms delay against
// 0.1 ms), an invalid run (one connection at 2000 QPS to an app that takes 1 ms: the
// generator falls behind) and an infrastructure error (a push to a port nobody listens on).
func TestOutcomesOfRealFailingRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("four runs of 2 s load")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := l.Addr().String()
	require.NoError(t, l.Close())
	// 50 QPS over 8 connections: a request may take 160 ms before the schedule slips.
	slow := perf.EnvQPS + "=50"
	cmd := func(name, root string, env []string) *exec.Cmd {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestRunChild$", "-test.v")
		cmd.Env = append(os.Environ(), envRunChild+"="+root, runner.EnvRunID+"=outcome-"+name, perf.EnvRepeats+"=1")
		cmd.Env = append(cmd.Env, env...)
		return cmd
	}
	for _, c := range []struct {
		name string
		env  []string
		want perf.Outcome
		why  string
	}{
		{"pass", []string{slow}, perf.OutcomePass, "every bound kept"},
		{"bound", []string{slow, perf.EnvMaxOverheadPrefix + "P50=100us"}, perf.OutcomeMissedBound, "overhead.p50"},
		{"invalid", []string{perf.EnvQPS + "=2000", perf.EnvConnections + "=1"}, perf.OutcomeInvalid, "fell behind"},
		{"infra", []string{slow, push.EnvPushgatewayURL + "=http://" + closed}, perf.OutcomeInfra, "push"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			var got perf.Outcome
			var why string
			// A busy machine can make a 2 s run invalid; the cases that must be valid get three
			// tries, each a run of its own (the failed tries' files stay, as result-N.json).
			for try := 1; try <= 3; try++ {
				out, runErr := cmd(c.name, root, c.env).CombinedOutput()
				if c.want != perf.OutcomePass {
					require.Error(t, runErr, "the child run fails:\n%s", out)
				}
				name := "result.json"
				if try > 1 {
					name = fmt.Sprintf("result-%d.json", try)
				}
				rep, err := report.ReadReport(filepath.Join(root, "runs", "outcome-"+c.name, "calibration", "http", name))
				require.NoError(t, err, "%s", out)
				got, why = rep.Outcome()
				if got != perf.OutcomeInvalid || c.want == perf.OutcomeInvalid {
					if c.want == perf.OutcomePass {
						require.NoError(t, runErr, "a passing run's child passes:\n%s", out)
					}
					break
				}
				t.Logf("try %d: invalid on a busy machine (%s); again", try, why)
			}
			assert.Equal(t, c.want, got, "%s (exit code %d): %s", got, int(got), why)
			assert.Contains(t, why, c.why)
		})
	}
}
