package runner_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
)

// A plan-only run prints the plan and starts nothing: the platform is never asked to start,
// and no result file (nor its run folder) is written.
func TestPlanOnlyRunStartsNothing(t *testing.T) {
	t.Setenv(perf.EnvPlanOnly, "1")
	dir := t.TempDir()
	fp := &fakePlatform{}
	rep := runner.Run(t, calibration(), runner.WithPlatform(fp), runner.WithReportDir(dir))
	assert.Nil(t, rep, "a plan-only run has no report")
	assert.Zero(t, fp.started.Load(), "the platform was started")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "a plan-only run wrote under the report root")
}

// The expected time of an overhead plan is the sum of its phases computed here from the
// scenario and the overrides, each phase plus the 0.5 s a phase costs beyond its length.
func TestPlanOfOverheadScenarioSumsItsPhases(t *testing.T) {
	t.Setenv(perf.EnvPreflight, "ladder")
	t.Setenv(perf.EnvRepeats, "2")
	t.Setenv(perf.EnvIdleWindow, "7s")
	sc := calibration()
	sc.MainOptions = []perf.Option{perf.WithQPS(1000), perf.WithConnections(16), perf.WithDuration(time.Minute)}
	l, err := runner.PlanOf(sc, runner.EnvFor(t))
	require.NoError(t, err)

	// The preflight: 1000, 500, 250, 100 QPS, each min(6 s, 30 s / 4) = 6 s.
	preflight := 4 * 6.0
	// Two rounds of a 60 s baseline and a 60 s main phase, the warmup (1 s, calibration's)
	// before the first main phase, then the 7 s idle window.
	loads := 2*(60.0+60.0) + 1.0 + 7.0
	phases := 1 + 2*2 + 1 + 1
	assert.Len(t, l.Phases, phases)
	assert.InDelta(t, preflight+loads+0.5*float64(phases), l.ExpectedSeconds, 1e-9)
	assert.Zero(t, l.UpToSeconds)
	assert.Equal(t, "overhead", l.Plan)
	assert.Equal(t, "local", l.Platform)
	assert.Equal(t, 1000, l.QPS)
	assert.Equal(t, 16, l.Connections)
	assert.Equal(t, 60.0, l.DurationSeconds)
	assert.Equal(t, 100, l.WarmupQPS)

	// DAPR_PERF_QPS names the load: no preflight, and the main phases at that rate and length.
	t.Setenv(perf.EnvQPS, "100")
	t.Setenv(perf.EnvDuration, "10s")
	env := runner.EnvFor(t)
	kubernetes := "kubernetes"
	env.Platform = &kubernetes
	l, err = runner.PlanOf(sc, env)
	require.NoError(t, err)
	assert.Len(t, l.Phases, 6)
	assert.InDelta(t, 2*(10.0+10.0)+1.0+7.0+0.5*6, l.ExpectedSeconds, 1e-9)
	assert.Equal(t, 100, l.QPS)
	assert.Equal(t, "kubernetes", l.Platform)
}

// The line is the prefix and the JSON of the PlanLine, on one line.
func TestPlanLineString(t *testing.T) {
	l, err := runner.PlanOf(calibration(), runner.EnvFor(t))
	require.NoError(t, err)
	s := l.String()
	require.True(t, strings.HasPrefix(s, perf.PlanLinePrefix), s)
	assert.NotContains(t, s, "\n")
	var back perf.PlanLine
	require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(s, perf.PlanLinePrefix)), &back))
	assert.Equal(t, l, back)
}

func TestPlanOnlyBadValueNamesTheVariable(t *testing.T) {
	t.Setenv(perf.EnvPlanOnly, "yes")
	_, err := runner.LoadEnv()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `DAPR_PERF_PLAN_ONLY="yes": must be 1 or true (print the plan, start nothing), 0 or false`)
	for v, want := range map[string]bool{"1": true, "true": true, "0": false, "false": false, "": false} {
		t.Setenv(perf.EnvPlanOnly, v)
		assert.Equal(t, want, runner.PlanOnlyFromEnv(runner.EnvFor(t)), v)
	}
}

// A bad override fails the plan-only run as it would fail the run, before anything starts:
// reading the environment names a bad value, and PlanOf names what the plan refuses.
func TestPlanOfReportsConfigurationErrors(t *testing.T) {
	t.Setenv(perf.EnvRepeats, "0")
	_, err := runner.LoadEnv()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "DAPR_PERF_REPEATS")

	sc := calibration()
	sc.Tester = ""
	_, err = runner.PlanOf(sc, perf.Env{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "overhead plan: Tester, Baseline.To and Main.To must name apps")

	sc = calibration()
	sc.Plan = nil
	_, err = runner.PlanOf(sc, perf.Env{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Scenario.Plan is not set")
}
