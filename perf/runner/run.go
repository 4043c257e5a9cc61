package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
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
	retries     int // DAPR_PERF_INVALID_RETRIES: runs again after an invalid run (retry.go)
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

// planChecksPass is false when a plan's own check failed (Kind.Failures: the growth
// detector's), or a bound of build B in an A/B run (the report's verdicts are build A's).
func planChecksPass(r *perf.Report) bool {
	return len(report.KindOf(r).Failures(r)) == 0 && (r.AB == nil || report.ABVerdictsPass(r.AB))
}

// Run is the one runner, for every kind of scenario. In order:
//  1. the configuration: env overrides, thresholds, run id, the push and the plan's own
//     settings, all validated: any error fails t before a process starts;
//  2. the result file, created under the run's id (RunPath) before anything starts;
//  3. the scenario's plan (Scenario.Plan, which must be set), which starts its
//     deployments on the platform (each stamps the environment) and runs its phases,
//     checkpointing the result file after each, so a run cut short keeps what it measured;
//  4. exits and restarts of every deployment;
//  5. the figures, derived once (report.DeriveFigures), and the verdicts on them;
//  6. the result file's final write, then the push to the Pushgateway when one is configured
//     (a failed push is an infrastructure error, written to the file too), then the remote
//     write to a Prometheus when one is configured (a failed write is a warning, written to
//     the file too), then the summary;
//  7. one test error per failed bound, per failed plan check, and for an invalid or
//     incomplete run.
//
// It returns the report, also when t has failed. Under DAPR_PERF_PLAN_ONLY=1 it only prints
// the plan (runPlanOnly, planonly.go) and returns nil, with no platform needed or started.
//
// When the preflight picks the load (make perf: EnvPreflight=ladder, no DAPR_PERF_QPS) and a
// full-length run at that load is invalid, Run runs the scenario again at the ladder's next
// load, each attempt a subtest with its own deployment (runLadder, stepdown.go). Otherwise,
// under DAPR_PERF_INVALID_RETRIES=N, an invalid run runs again at the same load, at most N
// times, each attempt a subtest (runRetried, retry.go).
func Run(t *testing.T, sc perf.Scenario, opts ...RunOption) *perf.Report {
	t.Helper()
	env, unknown, err := runEnv(options(opts))
	if err != nil {
		t.Fatalf("%s/%s: configuration: %v", sc.Test, sc.Transport, err)
	}
	if PlanOnlyFromEnv(env) {
		runPlanOnly(t, sc, env, unknown, opts)
		return nil
	}
	if sc, err = scenarioFor(env, sc); err != nil {
		skipOrFatal(t, err)
	}
	cfg, err := newRunConfig(sc, env, opts, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range unknown { // a misspelled variable: said, and kept in the result
		t.Logf("warning: %s", u)
		cfg.Notes = append(cfg.Notes, u)
	}
	if stepDownPossible(sc, cfg) {
		return runLadder(t, sc, cfg)
	}
	if cfg.retries > 0 {
		return runRetried(t, sc, cfg, cfg.retries)
	}
	rep, rf := runAttempt(t, sc, cfg)
	conclude(t, cfg, rep, rf)
	return rep
}

// runAttempt is steps 2 to 6 of Run up to the result file's final write: the run itself, with
// cfg as configured. It returns the report and its file.
func runAttempt(t *testing.T, sc perf.Scenario, cfg runConfig) (*perf.Report, *runFile) {
	t.Helper()
	plan := cfg.planRun
	rep := newReport(sc, cfg)
	rep.Command = commandFromEnv(cfg.Env)
	rf, err := createRunFile(cfg.reportRoot, rep)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run %s: result file %s", rep.RunID, rf.Path())
	defer rf.stopped(t, rep) // a fatal error or a panic: keep what was measured, marked incomplete

	s := &session{t: t, sc: sc, cfg: &cfg, rep: rep, rf: rf}
	s.prog = newProgress(t, sc, plan.Steps(sc, cfg.RunConfig), cfg.Platform.Name()) // the plan, then a line per phase
	runErr := plan.Run(s)
	if runErr != nil { // the plan's Finish records it
		t.Errorf("%s/%s: load: %v", sc.Test, sc.Transport, runErr)
	}
	s.readActorStats()
	s.readAllExits()
	plan.Finish(s, runErr)
	rep.Warnings = append(rep.Warnings, cfg.Notes...) // what the overrides did, for every plan
	report.Judge(rep, cfg.Thresholds)
	rep.Pass = rep.Pass && planChecksPass(rep)

	if werr := rf.finish(rep); werr != nil { // first: nothing after it can lose the figures
		t.Errorf("%v", werr)
	} else {
		t.Logf("result file: %s", rf.Path())
	}
	return rep, rf
}

// conclude is the end of Run once the result file is written: the push (a failed one is
// written to the file too), the remote write (a failed one is a warning in the file), the
// summary, and the test errors (failOn).
func conclude(t *testing.T, cfg runConfig, rep *perf.Report, rf *runFile) {
	t.Helper()
	perr, werr := publish(t, cfg, rep)
	if perr != nil {
		rep.InfraErrors = append(rep.InfraErrors, "push: "+perr.Error())
		rep.Pass = false
	}
	if werr != nil {
		rep.Warnings = append(rep.Warnings, werr.Error())
	}
	if perr != nil || werr != nil {
		if ferr := rf.finish(rep); ferr != nil {
			t.Errorf("%v", ferr)
		}
	}
	t.Log("\n" + report.Summary(rep))
	failOn(t, rep)
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

// noPushOnce is set once the missing Pushgateway was said, once per test binary.
var noPushOnce atomic.Bool

// publish sends rep, after its result file is written, to the Pushgateway and to the
// Prometheus remote-write endpoint, each when configured. A failed push is a test error with the
// server's message (pushErr); a failed write is logged as a warning (writeErr), since the run's
// figures are in its result file already and a history can load it later (cmd/promhistory).
// Without a Pushgateway it says so, once per test binary.
func publish(t *testing.T, cfg runConfig, rep *perf.Report) (pushErr, writeErr error) {
	t.Helper()
	if cfg.push.Enabled() {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		pushErr = push.Push(ctx, cfg.push, rep)
		cancel()
		if pushErr != nil {
			t.Errorf("%s/%s: %v", rep.Test, rep.Transport, pushErr)
		} else {
			t.Logf("pushed to %s (run_id %s)", cfg.push.URL, rep.RunID)
		}
	} else if first := noPushOnce.CompareAndSwap(false, true); first {
		t.Logf("no Pushgateway configured (%s unset): results are not pushed", push.EnvPushgatewayURL)
	}
	if cfg.write.Enabled() {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		writeErr = push.Write(ctx, cfg.write, rep)
		cancel()
		if writeErr != nil {
			t.Logf("warning: %s/%s: %v (load the result file later with go run ./cmd/promhistory)", rep.Test, rep.Transport, writeErr)
		} else {
			t.Logf("written to %s (run_id %s, at %s)", cfg.write.URL, rep.RunID, rep.Environment.StartTime.UTC().Format(time.RFC3339))
		}
	}
	return pushErr, writeErr
}

// failOn fails t once per failed bound that is not warn-only, once per failed check of the
// growth detector, and once if the run is invalid or incomplete; never stopping at the first.
func failOn(t *testing.T, rep *perf.Report) {
	t.Helper()
	if rep.Incomplete {
		t.Errorf("%s/%s: INCOMPLETE run: %s", rep.Test, rep.Transport, rep.IncompleteReason)
	}
	if !rep.Validity.Valid {
		t.Errorf("%s/%s: INVALID run: %v", rep.Test, rep.Transport, rep.Validity.Reasons)
	}
	for _, v := range rep.Verdicts {
		switch {
		case !v.Pass && !v.WarnOnly:
			t.Errorf("%s/%s: %s", rep.Test, rep.Transport, v)
		case !v.Pass:
			t.Logf("%s/%s: %s: this bound comes from 8-vCPU cluster nodes; on a machine with %d CPUs the tester, both sidecars and the app share the cores", rep.Test, rep.Transport, v, rep.Environment.CPUs)
		}
	}
	for _, f := range report.KindOf(rep).Failures(rep) {
		t.Errorf("%s/%s: %s", rep.Test, rep.Transport, f)
	}
}
