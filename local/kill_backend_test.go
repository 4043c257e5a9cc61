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

// killBackendAtMain wraps the local platform: Redis is killed when the main phase starts (the
// first resource reading).
type killBackendAtMain struct{ *local.Platform }

func (k killBackendAtMain) Start(ctx context.Context, t testing.TB, apps ...perf.App) perf.Deployment {
	t.Helper()
	dep := k.Platform.Start(ctx, t, apps...)
	return &killingBackend{Deployment: dep.(*local.Deployment), t: t}
}

type killingBackend struct {
	*local.Deployment
	t    testing.TB
	once sync.Once
}

func (d *killingBackend) Usage(ctx context.Context) (map[string]perf.Usage, error) {
	d.once.Do(func() {
		if err := d.Kill("redis"); err != nil {
			d.t.Errorf("kill: %v", err)
		}
	})
	return d.Deployment.Usage(ctx)
}

// TestKilledBackendFailsTheRun runs a short HTTP service-invocation scenario, whose callee's
// daprd also loads a state.redis component, in a child test process; Redis is killed as the
// main phase starts. The child must fail with an unexpected-exit verdict naming redis, and its
// result file must record the exit.
func TestKilledBackendFailsTheRun(t *testing.T) {
	if dir := os.Getenv("DAPRPERF_KILL_BACKEND_CHILD_DIR"); dir != "" {
		p, err := local.New(local.WithRunDirParent(dir), local.WithoutDaprdB())
		require.NoError(t, err)
		sc := scenarios.ServiceInvocation(perf.HTTP)
		for i, a := range sc.Apps {
			if a.Name == scenarios.TargetApp {
				sc.Apps[i].Sidecar.Components = []perf.Component{{Name: "statestore", Type: perf.StateRedis}}
			}
		}
		runner.Run(t, sc, runner.WithPlatform(killBackendAtMain{p}), runner.WithReportDir(dir))
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
	require.Len(t, rep.Environment.Backends, 1, "the environment records the backend")
	assert.Equal(t, perf.Backend("redis"), rep.Environment.Backends[0].Backend)
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
