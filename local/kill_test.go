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

// killAtMain wraps the local platform: the callee's daprd is killed when the main phase starts
// (the first resource reading), so the run sees an unexpected exit mid-test.
type killAtMain struct{ *local.Platform }

func (k killAtMain) Start(ctx context.Context, t testing.TB, apps ...perf.App) perf.Deployment {
	t.Helper()
	dep := k.Platform.Start(ctx, t, apps...)
	return &killingDeployment{Deployment: dep.(*local.Deployment), t: t}
}

type killingDeployment struct {
	*local.Deployment
	t    testing.TB
	once sync.Once
}

func (d *killingDeployment) Usage(ctx context.Context) (map[string]perf.Usage, error) {
	d.once.Do(func() {
		if err := d.Kill(perf.SidecarName(scenarios.TargetApp)); err != nil {
			d.t.Errorf("kill: %v", err)
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
		p, err := local.New(local.WithRunDirParent(dir))
		require.NoError(t, err)
		runner.Run(t, scenarios.ServiceInvocation(perf.HTTP), runner.WithPlatform(killAtMain{p}), runner.WithReportDir(dir))
		return
	}
	if testing.Short() {
		t.Skip("starts daprd")
	}
	if _, err := local.New(); err != nil && os.Getenv("CI") == "" {
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
