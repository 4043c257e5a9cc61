package runner_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
)

// DAPR_PERF_IDLE_WINDOW applies as it is, except that it never goes below what the scenario's
// own checks need (MinIdleWindow), and a raise comes with a note naming the variable.
func TestIdleWindowOverrideKeepsTheScenariosMinimum(t *testing.T) {
	timers := perf.Scenario{Plan: plan.OverheadPlan{}, IdleWindow: 15 * time.Second, MinIdleWindow: 15 * time.Second}
	cases := []struct {
		env    string // "" leaves the variable unset
		want   time.Duration
		raised bool
	}{
		{"", 15 * time.Second, false},
		{"2s", 15 * time.Second, true},
		{"0s", 15 * time.Second, true},
		{"15s", 15 * time.Second, false},
		{"20s", 20 * time.Second, false},
	}
	for _, tc := range cases {
		t.Run("env="+tc.env, func(t *testing.T) {
			t.Setenv(perf.EnvIdleWindow, tc.env)
			if tc.env == "" {
				require.NoError(t, os.Unsetenv(perf.EnvIdleWindow))
			}
			env, err := runner.LoadEnv()
			require.NoError(t, err)
			got, note := timers.IdleWindowFromEnv(env)
			assert.Equal(t, tc.want, got)
			if tc.raised {
				assert.Equal(t, perf.EnvIdleWindow+"="+tc.env+" raised to 15s: the scenario's own checks need that idle window after the last main phase", note)
			} else {
				assert.Empty(t, note)
			}
		})
	}

	// A scenario with no minimum takes the variable as it is, 0 s included.
	t.Setenv(perf.EnvIdleWindow, "0s")
	env, err := runner.LoadEnv()
	require.NoError(t, err)
	got, note := perf.Scenario{Plan: plan.OverheadPlan{}}.IdleWindowFromEnv(env)
	assert.Equal(t, time.Duration(0), got)
	assert.Empty(t, note)

	// A bad value is still an error naming the variable, minimum or not.
	t.Setenv(perf.EnvIdleWindow, "soon")
	_, err = runner.LoadEnv()
	require.Error(t, err)
	assert.Contains(t, err.Error(), perf.EnvIdleWindow)
}

// A run whose scenario needs a 2 s idle window, under DAPR_PERF_IDLE_WINDOW=0s, still samples
// resources with no load for 2 s after its main phase, plans that window, and says in its
// result's warnings that the variable was raised.
func TestRunIdlesForTheScenariosMinimum(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2 s run and a 2 s idle window")
	}
	t.Setenv(perf.EnvIdleWindow, "0s")
	sc := calibration()
	sc.MinIdleWindow = 2 * time.Second
	l, err := runner.PlanOf(sc, runner.EnvFor(t))
	require.NoError(t, err)
	assert.Equal(t, "idle window 2s", l.Phases[len(l.Phases)-1].Name, "the plan shows the raised window")

	dir := t.TempDir()
	rep := runner.Run(t, sc, runner.WithPlatform(&fakePlatform{}), runner.WithReportDir(dir))
	require.NotNil(t, rep)
	require.NotEmpty(t, rep.Idle, "resources were sampled in the idle window")
	for _, s := range rep.Idle {
		require.NotEmpty(t, s.Points, s.Process)
		span := s.Points[len(s.Points)-1].At.Sub(s.Points[0].At)
		assert.GreaterOrEqual(t, span, 1500*time.Millisecond, "%s: the idle window lasted about 2 s (samples every 200 ms)", s.Process)
	}
	back, err := report.ReadReport(rep.RunPath(dir))
	require.NoError(t, err)
	var found bool
	for _, w := range back.Warnings {
		found = found || strings.HasPrefix(w, perf.EnvIdleWindow+"=0s raised to 2s")
	}
	assert.True(t, found, "the result file's warnings name the raised variable: %q", back.Warnings)
}
