package local_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// killAtMain wraps the local platform: the process named victim (a sidecar, an app or a
// backend) is killed when the main phase starts (the first resource reading), so the run sees
// an unexpected exit mid-test.
type killAtMain struct {
	*local.Platform
	victim string
}

func (k killAtMain) Start(ctx context.Context, t perf.TB, apps ...perf.App) perf.Deployment {
	t.Helper()
	dep := k.Platform.Start(ctx, t, apps...)
	return &killingDeployment{Deployment: dep.(*local.Deployment), t: t, victim: k.victim}
}

type killingDeployment struct {
	*local.Deployment
	t      perf.TB
	victim string
	once   sync.Once
}

func (d *killingDeployment) Usage(ctx context.Context) (map[string]perf.Usage, error) {
	d.once.Do(func() {
		if err := d.Kill(d.victim); err != nil {
			d.t.Errorf("kill %s: %v", d.victim, err)
		}
	})
	return d.Deployment.Usage(ctx)
}

// TestKilledSidecarFailsTheRunAndTheResultIsWritten runs a short HTTP service-invocation
// scenario in a child test process whose callee daprd is killed as the main phase starts. The
// child must fail with an unexpected-exit verdict naming the sidecar, and its result file must
// exist under its run id and record the exit. It is a test of the local platform, so it lives
// here and runs with make test, not among the perf scenarios.
func TestKilledSidecarFailsTheRunAndTheResultIsWritten(t *testing.T) {
	if dir := os.Getenv("DAPRPERF_KILL_CHILD_DIR"); dir != "" {
		// This child fails on purpose, and a failed test keeps its run dir: put it in the
		// parent's temporary dir, which the parent removes.
		p, err := local.New(local.WithEnv(runner.EnvFor(t)), local.WithRunDirParent(dir))
		require.NoError(t, err)
		runner.Run(t, scenarios.ServiceInvocation(perf.HTTP), runner.WithPlatform(killAtMain{p, perf.SidecarName(scenarios.TargetApp)}), runner.WithReportDir(dir))
		return
	}
	if testing.Short() {
		t.Skip("starts daprd")
	}
	if _, err := local.New(local.WithEnv(runner.EnvFor(t))); err != nil && os.Getenv("CI") == "" {
		t.Skipf("no daprd: %v (run make daprd)", err)
	}
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestKilledSidecarFailsTheRunAndTheResultIsWritten$", "-test.v")
	cmd.Env = append(os.Environ(), "DAPRPERF_KILL_CHILD_DIR="+dir,
		"DAPR_TEST_DURATION=3s", "DAPR_PERF_QPS=100", "DAPR_PERF_WARMUP_DURATION=1s", "DAPR_PERF_REPEATS=1",
		"DAPR_PERF_OVERHEAD_GATE=warn")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the child run must fail:\n%s", out)
	assert.Contains(t, string(out), "UNEXPECTED EXIT: testapp-daprd")
	assert.Contains(t, string(out), "restarts = 1, at most 0 (Dapr v1.17 perf suite): FAIL")

	files, _ := filepath.Glob(filepath.Join(dir, perf.RunsDir, "*", "service_invocation", "http", "result.json"))
	require.Len(t, files, 1, "the result file is written:\n%s", out)
	rep, err := report.ReadReport(files[0])
	require.NoError(t, err)
	require.Len(t, rep.Exits, 1)
	assert.Equal(t, "testapp-daprd", rep.Exits[0].Process)
	assert.False(t, rep.Pass)
	for _, v := range rep.Verdicts {
		if v.Figure == "restarts" {
			assert.False(t, v.Pass)
			assert.Equal(t, 1.0, v.Got)
		}
	}
}

// TestKilledBackendFailsTheRun runs a short HTTP service-invocation scenario, whose callee's
// daprd also loads a state.redis component, in a child test process; Redis is killed as the
// main phase starts. The child must fail with an unexpected-exit verdict naming redis, and its
// result file must record the exit.
func TestKilledBackendFailsTheRun(t *testing.T) {
	if dir := os.Getenv("DAPRPERF_KILL_BACKEND_CHILD_DIR"); dir != "" {
		p, err := local.New(local.WithEnv(runner.EnvFor(t)), local.WithRunDirParent(dir), local.WithoutDaprdB())
		require.NoError(t, err)
		sc := scenarios.ServiceInvocation(perf.HTTP)
		for i, a := range sc.Apps {
			if a.Name == scenarios.TargetApp {
				sc.Apps[i].Sidecar.Components = []perf.Component{{Name: "statestore", Type: perf.StateRedis}}
			}
		}
		runner.Run(t, sc, runner.WithPlatform(killAtMain{p, "redis"}), runner.WithReportDir(dir))
		return
	}
	if testing.Short() {
		t.Skip("starts daprd and Redis")
	}
	newPlatform(t) // skips without daprd, as the child would
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestKilledBackendFailsTheRun$", "-test.v")
	cmd.Env = append(os.Environ(), "DAPRPERF_KILL_BACKEND_CHILD_DIR="+dir,
		"DAPR_TEST_DURATION=3s", "DAPR_PERF_QPS=100", "DAPR_PERF_WARMUP_DURATION=1s", "DAPR_PERF_REPEATS=1",
		"DAPR_PERF_OVERHEAD_GATE=warn", "DAPR_PERF_PREFLIGHT=off")
	out, err := cmd.CombinedOutput()
	rep := killedRedisReport(t, dir, "service_invocation", out, err)
	require.Len(t, rep.Environment.Backends, 2, "the environment records the backend, and sentry")
	assert.Equal(t, perf.Backend("redis"), rep.Environment.Backends[0].Backend)
	assert.Equal(t, perf.ControlSentry, rep.Environment.Backends[1].Backend)
	assert.Contains(t, rep.Environment.Backends[0].Version, "7.", "Debian 12's redis-server 7.0")
	assert.False(t, rep.Pass)
	assert.Empty(t, mentioning(t, dir), "processes of the child's run still running")
}

// killedRedisReport checks a child run in which Redis was killed: it failed (err), named the
// unexpected exit and the missed restarts bound in its output, and wrote exactly one result
// file for test under dir, which records the SIGKILL of redis. It returns that report.
func killedRedisReport(t *testing.T, dir, test string, out []byte, err error) *perf.Report {
	t.Helper()
	require.Error(t, err, "the child run must fail:\n%s", out)
	assert.Contains(t, string(out), "UNEXPECTED EXIT: redis")
	assert.Contains(t, string(out), "restarts = 1, at most 0")
	files, _ := filepath.Glob(filepath.Join(dir, perf.RunsDir, "*", test, "http", "result.json"))
	require.Len(t, files, 1, "the result file is written:\n%s", out)
	rep, err := report.ReadReport(files[0])
	require.NoError(t, err)
	require.Len(t, rep.Exits, 1)
	assert.Equal(t, "redis", rep.Exits[0].Process)
	assert.Equal(t, "signal SIGKILL", rep.Exits[0].Reason)
	return rep
}
