package scenarios

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
)

// shaped is sc as a run under the process environment shapes it (Scenario.ForEnv), failing t
// on an error.
func shaped(t testing.TB, sc perf.Scenario) perf.Scenario {
	t.Helper()
	if sc.ForEnv == nil {
		return sc
	}
	out, err := sc.ForEnv(runner.EnvFor(t), sc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
