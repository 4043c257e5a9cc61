package runner_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
)

// envNow is the process environment as a run reads it (runner.LoadEnv), failing t on a bad
// value: the tests set variables with t.Setenv and hand the platform the result.
func envNow(t testing.TB) perf.Env {
	t.Helper()
	env, err := runner.LoadEnv()
	if err != nil {
		t.Fatal(err)
	}
	return env
}
