package plan

import (
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func jobsScenario(p *JobTriggerPlan) perf.Scenario {
	return perf.Scenario{Test: "jobs", Transport: perf.HTTP, Main: perf.Route{To: "jobapp", ThroughSidecar: true},
		Apps:        []perf.App{{Name: "jobapp", Kind: perf.JobApp, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Scheduler: true}}},
		MainOptions: []perf.Option{perf.WithQPS(1000), perf.WithConnections(16), perf.WithDuration(time.Minute)},
		Plan:        p,
		Thresholds:  []perf.Threshold{{Figure: "jobs.triggerRate", Op: perf.AtLeast, Limit: 12_200, Source: "dapr"}}}
}

// The job count and the rate bound scale with DAPR_PERF_QPS x DAPR_TEST_DURATION against
// Dapr's 1000 QPS x 1 min, never above Dapr's, never below MinJobs; the bound is warn-only
// under DAPR_PERF_OVERHEAD_GATE=warn and enforced otherwise.
func TestJobsPlanScalesWithTheLoad(t *testing.T) {
	configure := func(t *testing.T) perf.RunConfig {
		t.Helper()
		sc := jobsScenario(&JobTriggerPlan{App: "jobapp"})
		env, err := runner.LoadEnv()
		require.NoError(t, err)
		cfg := perf.RunConfig{Thresholds: report.ThresholdsFromEnv(env, sc.Thresholds)} // as the runner, before the plan's configure
		require.NoError(t, configureErr(planOf(sc), sc, &cfg))
		return cfg
	}
	cfg := configure(t)
	assert.Equal(t, 1.0, loadFactor(cfg.Main))
	assert.Equal(t, 20_000, jobCount(defaultJobs, loadFactor(cfg.Main)))
	assert.Equal(t, 12_200.0, cfg.Thresholds[0].Limit)
	assert.False(t, cfg.Thresholds[0].WarnOnly)

	t.Setenv("DAPR_PERF_QPS", "100")
	t.Setenv("DAPR_TEST_DURATION", "10s")
	t.Setenv("DAPR_PERF_OVERHEAD_GATE", "warn")
	cfg = configure(t)
	f := loadFactor(cfg.Main)
	assert.InDelta(t, 1.0/60, f, 1e-12)
	assert.Equal(t, 333, jobCount(defaultJobs, f))
	assert.InDelta(t, 12_200.0/60, cfg.Thresholds[0].Limit, 1e-9)
	assert.Contains(t, cfg.Thresholds[0].Source, "scaled by the load factor")
	assert.True(t, cfg.Thresholds[0].WarnOnly)

	assert.Equal(t, perf.MinJobs, jobCount(defaultJobs, 0.0001))
	assert.Equal(t, 7, jobCount(7, 0.0001), "fewer than MinJobs asked: kept")
	t.Setenv("DAPR_PERF_QPS", "5000")
	t.Setenv("DAPR_TEST_DURATION", "2m")
	assert.Equal(t, 1.0, loadFactor(configure(t).Main), "never above Dapr's load")
}

// Bad plans name the field and what it accepts.
func TestJobsPlanRefusesBadFields(t *testing.T) {
	for _, tc := range []struct {
		plan JobTriggerPlan
		want string
	}{
		{JobTriggerPlan{App: "other"}, `App "other" must name the app Main.To names`},
		{JobTriggerPlan{App: "jobapp", DueIn: time.Millisecond}, "DueIn 1ms: must be at least 1s"},
		{JobTriggerPlan{App: "jobapp", Connections: 300}, "Connections 300: must be 1 .. 256"},
		{JobTriggerPlan{App: "jobapp", Fault: &perf.JobFault{Kind: "pause", After: time.Second}}, `Kind must be "restart" or "kill"`},
	} {
		sc := jobsScenario(&tc.plan)
		err := configureErr(planOf(sc), sc, &perf.RunConfig{})
		require.Error(t, err, "%+v", tc.plan)
		assert.Contains(t, err.Error(), tc.want)
	}
	sc := jobsScenario(&JobTriggerPlan{App: "jobapp"})
	sc.Apps[0].Sidecar.Scheduler = false
	err := configureErr(planOf(sc), sc, &perf.RunConfig{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "needs a sidecar with Scheduler true")
}
