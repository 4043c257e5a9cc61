package runner_test

import (
	"context"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"
)

// hookPlatform is a fakePlatform that keeps the interrupt hook of each start context.
type hookPlatform struct {
	*fakePlatform
	hooks []func(os.Signal)
}

func (p *hookPlatform) Start(ctx context.Context, t perf.TB, apps ...perf.App) perf.Deployment {
	t.Helper()
	p.hooks = append(p.hooks, perf.InterruptHook(ctx))
	return p.fakePlatform.Start(ctx, t, apps...)
}

// TestDeployHandsThePlatformTheInterruptHook: every start context carries the run's interrupt
// hook (perf.WithInterruptHook), nothing is registered beyond it, and once the run's final
// write is done the hook leaves the result file alone.
func TestDeployHandsThePlatformTheInterruptHook(t *testing.T) {
	if testing.Short() {
		t.Skip("a run of 2 s loads")
	}
	// This test is about the hook, not the schedule: a run made invalid by a stall of the
	// loaded machine runs again (a fresh deployment, its own hook) rather than fail it.
	t.Setenv(perf.EnvInvalidRetries, "2")
	dir := t.TempDir()
	fp := &hookPlatform{fakePlatform: &fakePlatform{}}
	rep := runner.Run(t, calibration(), runner.WithPlatform(fp), runner.WithReportDir(dir))
	require.NotEmpty(t, fp.hooks, "a deployment")
	assert.LessOrEqual(t, len(fp.hooks), 3, "one deployment per attempt")
	for i, hook := range fp.hooks {
		require.NotNil(t, hook, "deployment %d's start context carries the hook", i+1)
	}

	path := rep.RunPath(dir)
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	fp.hooks[len(fp.hooks)-1](syscall.SIGINT)
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "a finished result file is left alone")
	got, err := report.ReadReport(path)
	require.NoError(t, err)
	assert.Empty(t, got.InterruptedBy)
}
