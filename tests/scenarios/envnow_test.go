package scenarios

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

// shaped is sc as a run under the process environment shapes it (Scenario.ForEnv), failing t
// on an error.
func shaped(t testing.TB, sc perf.Scenario) perf.Scenario {
	t.Helper()
	if sc.ForEnv == nil {
		return sc
	}
	out, err := sc.ForEnv(envNow(t), sc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// workflowBackendNow is WorkflowBackendFromEnv of the process environment, or LoadEnv's error.
func workflowBackendNow() (string, error) {
	env, err := runner.LoadEnv()
	if err != nil {
		return "", err
	}
	return WorkflowBackendFromEnv(env)
}
