package local_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/plan"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// shortDoubleActivation is scenarios.ActorDoubleActivation at a few VUs for a few seconds,
// its hosts started with hostArgs.
func shortDoubleActivation(hostArgs ...string) perf.Scenario {
	sc := scenarios.ActorDoubleActivation()
	sc.Apps = slices.Clone(sc.Apps)
	for i := range sc.Apps {
		if sc.Apps[i].Kind == perf.ActorApp {
			sc.Apps[i].Args = append(slices.Clone(sc.Apps[i].Args), hostArgs...)
		}
	}
	fp := *sc.Plan.(*plan.FaultPlan)
	ramp := func(peak int) driver.Executor {
		return driver.Executor{Kind: driver.RampingVUs, Stages: []driver.Stage{{Duration: time.Second, Target: peak / 2}, {Duration: time.Second, Target: peak}}, GracefulStop: 10 * time.Second}
	}
	fp.Base, fp.Faults, fp.Window = ramp(20), ramp(10), 2*time.Second
	sc.Plan = &fp
	return sc
}

// TestDoubleActivationGateFailsOnErrorsOutsideTheInjection runs a short actor_double_activation
// in child test processes, on the real daprd, placement and hosts: with hosts that answer 2 %
// of their calls 500 on their own (outside the fault window, uncounted by the injector) the
// child fails on errors.other and writes its result; with healthy hosts the same run passes,
// every client 500 one the host injected.
func TestDoubleActivationGateFailsOnErrorsOutsideTheInjection(t *testing.T) {
	if dir := os.Getenv("DAPRPERF_FAULT_GATE_DIR"); dir != "" {
		p, err := local.New(local.WithEnv(runner.EnvFor(t)), local.WithRunDirParent(dir))
		require.NoError(t, err)
		var args []string
		if f := os.Getenv("DAPRPERF_FAULT_GATE_HOST_FAIL"); f != "" {
			args = []string{"-fail-fraction", f}
		}
		runner.Run(t, shortDoubleActivation(args...), runner.WithPlatform(p), runner.WithReportDir(dir))
		return
	}
	if testing.Short() {
		t.Skip("starts daprd, placement, redis and four apps")
	}
	if _, err := local.New(local.WithEnv(runner.EnvFor(t))); err != nil && os.Getenv("CI") == "" {
		t.Skipf("no daprd: %v (run make daprd)", err)
	}
	run := func(t *testing.T, hostFail string) (*perf.Report, []byte, error) {
		dir := t.TempDir()
		// The run dir's parent (dir) is private, so PostgreSQL's data goes to a folder of its
		// own in TMPDIR: one the child must remove, also when its test fails.
		tmp, terr := os.MkdirTemp("", "daprperf-gate-tmp-*")
		require.NoError(t, terr)
		t.Cleanup(func() { _ = os.RemoveAll(tmp) })
		require.NoError(t, os.Chmod(tmp, 0o755))
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestDoubleActivationGateFailsOnErrorsOutsideTheInjection$", "-test.v")
		cmd.Env = append(os.Environ(), "DAPRPERF_FAULT_GATE_DIR="+dir, "DAPRPERF_FAULT_GATE_HOST_FAIL="+hostFail, "DAPR_PERF_WARMUP_DURATION=1s", "TMPDIR="+tmp)
		out, err := cmd.CombinedOutput()
		left, _ := filepath.Glob(filepath.Join(tmp, "daprperf-postgresql-*"))
		assert.Empty(t, left, "the child's PostgreSQL data folders are removed, whether it passed or failed")
		files, _ := filepath.Glob(filepath.Join(dir, perf.RunsDir, "*", "actor_double_activation", "http", "result.json"))
		require.Len(t, files, 1, "the result file is written:\n%s", out)
		rep, rerr := report.ReadReport(files[0])
		require.NoError(t, rerr)
		require.NotNil(t, rep.Figures, "%s", out)
		g := rep.Figures.Gates
		t.Logf("host -fail-fraction %q: errors %.0f, client 500s %.0f, injected %.0f, other %.0f, double activations %.0f, pass %v",
			hostFail, g["errors"], g["errors.500"], g["errors.injected"], g["errors.other"], g["actors.doubleActivations"], rep.Pass)
		return rep, out, err
	}
	t.Run("HostFailingOnItsOwn", func(t *testing.T) {
		rep, out, err := run(t, "0.02")
		var exitErr *exec.ExitError
		require.True(t, errors.As(err, &exitErr), "the child run must fail:\n%s", out)
		g := rep.Figures.Gates
		assert.Positive(t, g["errors.injected"], "the window injected its 500s")
		assert.Positive(t, g["errors.other"], "the host's own 500s are not excused")
		assert.Equal(t, g["errors.500"]-g["errors.injected"], g["errors.other"], "every client error was a 500")
		assert.Zero(t, g["actors.doubleActivations"])
		assert.False(t, rep.Pass)
		assert.Contains(t, string(out), "errors.other = ")
		assert.Contains(t, string(out), "at most 0")
	})
	t.Run("HealthyHosts", func(t *testing.T) {
		rep, out, err := run(t, "")
		require.NoError(t, err, "%s", out)
		g := rep.Figures.Gates
		assert.Positive(t, g["errors.injected"])
		assert.Equal(t, g["errors.injected"], g["errors.500"], "daprd relays every injected 500 to the client, none retried")
		assert.Zero(t, g["errors.other"])
		assert.True(t, rep.Pass)
	})
}
