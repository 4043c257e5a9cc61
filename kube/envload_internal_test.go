package kube

import (
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
)

// fromEnv calls f with the process environment as a run reads it (runner.LoadEnv), or returns
// LoadEnv's error: the tests set variables with t.Setenv.
func fromEnv[T any](f func(perf.Env) (T, error)) (T, error) {
	env, err := runner.LoadEnv()
	if err != nil {
		var zero T
		return zero, err
	}
	return f(env)
}

// newFromEnv is New given the process environment as a run reads it (WithEnv(runner.LoadEnv())),
// or LoadEnv's error.
func newFromEnv() (*Platform, error) {
	return fromEnv(func(env perf.Env) (*Platform, error) { return New(WithEnv(env)) })
}
