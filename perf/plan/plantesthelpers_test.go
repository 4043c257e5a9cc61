package plan

import (
	"context"
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
)

// planOf is sc's plan, or the overhead plan when it names none (as these tests' scenarios do;
// the runner refuses a nil Plan).
func planOf(sc perf.Scenario) perf.Plan {
	if sc.Plan == nil {
		return OverheadPlan{}
	}
	return sc.Plan
}

// testPlatform is a Platform that only has a name: for a plan's configuration, which may
// depend on the platform.
type testPlatform string

func (p testPlatform) Name() string                                              { return string(p) }
func (testPlatform) Start(context.Context, perf.TB, ...perf.App) perf.Deployment { return nil }

// configure is p.Configure of sc with cfg's Env read from the process environment as a run
// reads it (runner.LoadEnv): the tests set variables with t.Setenv. A bad value is LoadEnv's
// error, as a run's configuration fails with.
func configure(p perf.Plan, sc perf.Scenario, cfg *perf.RunConfig) (perf.PlanRun, error) {
	env, err := runner.LoadEnv()
	if err != nil {
		return nil, err
	}
	cfg.Env = env
	return p.Configure(sc, cfg)
}

// configureErr is configure's error alone.
func configureErr(p perf.Plan, sc perf.Scenario, cfg *perf.RunConfig) error {
	_, err := configure(p, sc, cfg)
	return err
}

// mustConfigure is configure, failing t on an error.
func mustConfigure(t *testing.T, p perf.Plan, sc perf.Scenario, cfg *perf.RunConfig) perf.PlanRun {
	t.Helper()
	run, err := configure(p, sc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return run
}
