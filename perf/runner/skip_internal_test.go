package runner

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
)

// A Scenario.ForEnv that returns a *perf.SkipError skips the scenario, in a run and in the plan
// pass alike, instead of failing it.
func TestForEnvSkipSkipsTheScenario(t *testing.T) {
	sc := perf.Scenario{Test: "skipped", Transport: perf.HTTP, ForEnv: func(perf.Env, perf.Scenario) (perf.Scenario, error) {
		return perf.Scenario{}, &perf.SkipError{Reason: "DAPR_PERF_X=y: not here"}
	}}
	for _, planOnly := range []string{"0", "1"} {
		t.Setenv(perf.EnvPlanOnly, planOnly)
		var inner *testing.T
		t.Run("plan only "+planOnly, func(t *testing.T) {
			inner = t
			Run(t, sc)
		})
		if !inner.Skipped() || inner.Failed() {
			t.Errorf("%s=%s: skipped %v, failed %v; want skipped", perf.EnvPlanOnly, planOnly, inner.Skipped(), inner.Failed())
		}
	}
}
