package runner

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/push"
	"github.com/daprperf/daprperf/perf/report"
)

// EnvReportDir overrides the report root (default: <repo>/reports); runs write under
// <root>/runs/<run id>/ (RunPath), published references live in <root>/v<version>/.
const EnvReportDir = "DAPR_PERF_REPORT_DIR"

// startTimeout bounds the platform's start-up and health checks.
const startTimeout = 3 * time.Minute

// RunOption configures Run.
type RunOption func(*runConfig)

// WithPlatform sets the platform the scenario runs on (this or WithPlatformFrom is required).
func WithPlatform(p perf.Platform) RunOption { return func(c *runConfig) { c.Platform = p } }

// WithPlatformFrom makes Run build the platform from the run's environment, once it has read
// it and only when the run starts one (not under DAPR_PERF_PLAN_ONLY). single is true for a
// plan that runs one daprd build (perf.SingleBuild). An error fails the test before anything
// starts.
func WithPlatformFrom(f func(env perf.Env, single bool) (perf.Platform, error)) RunOption {
	return func(c *runConfig) { c.newPlatform = f }
}

// WithEnv sets the run's environment instead of reading it (LoadEnv): a caller that sets a
// run's settings without the process environment.
func WithEnv(env perf.Env) RunOption { return func(c *runConfig) { c.env = &env } }

// WithReportDir sets the root of the report directories, overriding DAPR_PERF_REPORT_DIR.
func WithReportDir(dir string) RunOption { return func(c *runConfig) { c.reportRoot = dir } }

// runConfig is the run's configuration: the plan's (perf.RunConfig) and the runner's own.
type runConfig struct {
	perf.RunConfig
	reportRoot  string
	push        push.PushConfig
	write       push.WriteConfig // the remote write to a Prometheus (DAPR_PERF_PROMETHEUS_WRITE_URL)
	runID       string
	retries     int // DAPR_PERF_INVALID_RETRIES: runs again after an invalid run (runRetried)
	env         *perf.Env
	newPlatform func(perf.Env, bool) (perf.Platform, error)
	// planRun is what the scenario's plan configured for this run (Plan.Configure): every
	// attempt of the run (step-down, retry) runs it; the plan value itself is never written.
	planRun perf.PlanRun
}

// options applies opts to an empty runConfig.
func options(opts []RunOption) runConfig {
	var c runConfig
	for _, o := range opts {
		o(&c)
	}
	return c
}

// runEnv is the env WithEnv set, else the process environment read once (LoadEnv), with the
// names of the DAPR_PERF_* variables that are set but unknown (a typo).
func runEnv(c runConfig) (perf.Env, []string, error) {
	if c.env != nil {
		return *c.env, nil, nil
	}
	env, err := LoadEnv()
	return env, perf.UnknownEnv(os.Environ()), err
}

// newRunConfig resolves sc's run from env: the options, the thresholds, the plan's Configure,
// the push and the run id, then (with start) the platform WithPlatformFrom builds. Every error
// is joined into one, naming the scenario.
func newRunConfig(sc perf.Scenario, env perf.Env, opts []RunOption, start bool) (runConfig, error) {
	cfg := runConfig{reportRoot: perf.Val(env.ReportDir)}
	if env.InvalidRetries != nil {
		cfg.retries = *env.InvalidRetries
	}
	for _, o := range opts {
		o(&cfg)
	}
	cfg.Env = env
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	var err error
	if cfg.Platform == nil && cfg.newPlatform != nil && start {
		single, _ := sc.Plan.(perf.SingleBuild)
		cfg.Platform, err = cfg.newPlatform(env, single != nil && single.SingleBuild())
		add(err)
	}
	cfg.Thresholds = report.ThresholdsFromEnv(env, sc.Thresholds)
	switch {
	case sc.Plan == nil:
		add(errors.New("Scenario.Plan is not set: name the plan (plan.OverheadPlan{} for baseline and main rounds)"))
	case cfg.Platform != nil:
		cfg.planRun, err = sc.Plan.Configure(sc, &cfg.RunConfig)
		add(err)
	}
	cfg.push, err = push.PushConfigFromEnv(env)
	add(err)
	cfg.write, err = push.WriteConfigFromEnv(env)
	add(err)
	cfg.runID, err = RunIDFromEnv(env)
	add(err)
	if cfg.Platform == nil && cfg.newPlatform == nil {
		add(errors.New("perf: no platform: pass runner.WithPlatform or runner.WithPlatformFrom"))
	}
	if cfg.reportRoot == "" {
		cfg.reportRoot, err = defaultReportRoot()
		add(err)
	}
	if err := errors.Join(errs...); err != nil {
		return runConfig{}, fmt.Errorf("%s/%s: configuration: %w", sc.Test, sc.Transport, err)
	}
	return cfg, nil
}

// skipOrFatal skips t when err is a *perf.SkipError (Scenario.ForEnv asked for it), and fails
// it otherwise.
func skipOrFatal(t *testing.T, err error) {
	t.Helper()
	var skip *perf.SkipError
	if errors.As(err, &skip) {
		t.Skip(skip.Reason)
	}
	t.Fatal(err)
}

// scenarioFor returns sc as env shapes it: Scenario.ForEnv's scenario when it has one, then
// with its testers (Scenario.WithTesters): as many as DAPR_PERF_TESTER_REPLICAS or the
// scenario asks. Errors name the scenario and the variable.
func scenarioFor(env perf.Env, sc perf.Scenario) (perf.Scenario, error) {
	if sc.ForEnv != nil {
		out, err := sc.ForEnv(env, sc)
		if err != nil {
			return sc, fmt.Errorf("%s/%s: configuration: %w", sc.Test, sc.Transport, err)
		}
		out.ForEnv = nil // applied
		sc = out
	}
	if perf.ProfilesFromEnv(env) {
		sc = withProfiling(sc)
	}
	n := sc.TesterReplicasFromEnv(env)
	if n == 1 && sc.TesterReplicas <= 1 {
		return sc, nil
	}
	out, err := sc.WithTesters(n)
	if err != nil {
		return sc, fmt.Errorf("%s/%s: configuration: %w", sc.Test, sc.Transport, err)
	}
	return out, nil
}

// withProfiling is sc with every sidecar's profiling port on (DAPR_PERF_PROFILES=on), sc's own
// apps not written.
func withProfiling(sc perf.Scenario) perf.Scenario {
	apps := make([]perf.App, len(sc.Apps))
	for i, a := range sc.Apps {
		if a.Sidecar != nil {
			side := *a.Sidecar
			side.Profiling = true
			a.Sidecar = &side
		}
		apps[i] = a
	}
	sc.Apps = apps
	return sc
}

// withTesterLimits returns a copy of apps in which each tester without TesterLimits has
// TesterLimitsFor(loads...): the platform caps it at the scenario's own load times
// perf.TesterLoadMargin.
func withTesterLimits(apps []perf.App, loads ...perf.Params) []perf.App {
	out := make([]perf.App, len(apps))
	for i, a := range apps {
		if a.Kind == perf.Tester && a.TesterLimits == nil {
			l := perf.TesterLimitsFor(loads...)
			a.TesterLimits = &l
		}
		out[i] = a
	}
	return out
}
