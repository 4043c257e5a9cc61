package perf

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// EnvReportDir overrides the report root (default: <repo>/reports); runs write under
// <root>/runs/<run id>/ (RunPath), published references live in <root>/v<version>/.
const EnvReportDir = "DAPR_PERF_REPORT_DIR"

// startTimeout bounds the platform's start-up and health checks.
const startTimeout = 3 * time.Minute

// RunOption configures Run.
type RunOption func(*runConfig)

// WithPlatform sets the platform the scenario runs on (required).
func WithPlatform(p Platform) RunOption { return func(c *runConfig) { c.platform = p } }

// WithReportDir sets the root of the report directories, overriding DAPR_PERF_REPORT_DIR.
func WithReportDir(dir string) RunOption { return func(c *runConfig) { c.reportRoot = dir } }

type runConfig struct {
	platform     Platform
	reportRoot   string
	push         PushConfig
	main, warmup Params
	thresholds   []Threshold
	rounds       int
	idle         time.Duration
	preflight    bool // EnvPreflight=ladder (preflight.go)
	runID        string
}

// Run runs sc on a platform: start the apps, then for each round a baseline (tester -> app)
// and a main phase (tester -> its daprd -> the app's daprd -> app), with one warmup through the
// sidecars before the first main phase, its results discarded. When the platform runs a second
// daprd build beside the first (SideB), each round also has a main phase through build B's
// sidecars (see SideB). It computes the sidecar overhead, applies the thresholds, writes the result
// file first, then pushes to the Pushgateway when one is configured, logs a summary, and fails t
// once per failed bound. Every configuration error (env overrides, thresholds, repeats, run id)
// fails t before any process starts. The result file (RunPath) is created before the platform
// starts and rewritten after every phase, marked incomplete until the end, so a run cut short
// keeps what it measured. It returns the report, also when t has failed.
func Run(t *testing.T, sc Scenario, opts ...RunOption) *Report {
	t.Helper()
	cfg, err := newRunConfig(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	rep := newReport(sc, cfg, nil)
	rep.Command = commandFromEnv()
	rf, err := createRunFile(cfg.reportRoot, rep)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run %s: result file %s", rep.RunID, rf.Path())
	defer rf.stopped(t, rep) // a fatal error or a panic: keep what was measured, marked incomplete

	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	apps := withTesterLimits(sc.Apps, cfg.main, cfg.warmup) // the baseline is cfg.main too
	dep := cfg.platform.Start(ctx, t, apps...)              // ready, or t.Fatal; teardown is in t.Cleanup
	cancel()
	rep.Environment.DaprVersion = dep.DaprVersion()
	checkpoint(t, rf, rep, "platform start")

	prog := newProgress(t, sc, cfg) // the plan, then a line per phase (progress.go)
	pf, err := applyPreflight(t.Context(), t, dep, sc, &cfg, prog)
	if err != nil {
		t.Errorf("%s/%s: %v", sc.Test, sc.Transport, err)
		rep.InfraErrors = append(rep.InfraErrors, "preflight: "+err.Error())
	}
	rep.Preflight = pf
	rep.Params = cfg.main // the preflight may have lowered its QPS
	if b, ok := SideB(dep); ok {
		err = runAB(t, rf, rep, dep, b, sc, cfg)
	} else {
		rep.Rounds, rep.PartialRound, err = runRounds(t.Context(), t, dep, sc, cfg, prog, func(done []Round, partial *Round, phase string) {
			rep.Rounds, rep.PartialRound = done, partial
			checkpoint(t, rf, rep, phase)
		})
	}
	if err != nil {
		t.Errorf("%s/%s: load: %v", sc.Test, sc.Transport, err)
	} else if cfg.idle > 0 {
		done := prog.phase("idle window: sampling resources with no load", cfg.idle)
		rep.Idle = sampleIdle(t.Context(), dep, cfg.idle, sc)
		done()
	}
	exits, exitErr := dep.Exits(t.Context())
	if exitErr != nil {
		t.Errorf("%s/%s: read exits: %v", sc.Test, sc.Transport, exitErr)
		rep.InfraErrors = append(rep.InfraErrors, "read exits: "+exitErr.Error())
	}
	rep.Exits = exits
	rep.finish(sc, cfg.thresholds)
	rep.AB.finish(rep, sc, cfg)
	markEnd(rep, cfg.rounds, err)

	if werr := rf.finish(rep); werr != nil { // first: nothing after it can lose the figures
		t.Errorf("%v", werr)
	} else {
		t.Logf("result file: %s", rf.Path())
	}
	if perr := pushReport(t, cfg.push, rep); perr != nil {
		rep.InfraErrors = append(rep.InfraErrors, "push: "+perr.Error())
		rep.Pass = false
		if werr := rf.finish(rep); werr != nil {
			t.Errorf("%v", werr)
		}
	}
	t.Log("\n" + Summary(rep))
	failOn(t, rep)
	return rep
}

// checkpoint rewrites the run's result file after phase; a failed write fails t, and the run
// goes on.
func checkpoint(t *testing.T, rf *runFile, rep *Report, phase string) {
	t.Helper()
	if err := rf.checkpoint(rep, phase); err != nil {
		t.Errorf("%v", err)
	}
}

func newRunConfig(sc Scenario, opts []RunOption) (runConfig, error) {
	cfg := runConfig{reportRoot: os.Getenv(EnvReportDir)}
	for _, o := range opts {
		o(&cfg)
	}
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	var err error
	cfg.main, err = NewParams(sc.MainOptions...)
	add(err)
	cfg.warmup, err = NewWarmupParams(sc.WarmupOptions...)
	add(err)
	cfg.thresholds, err = ThresholdsFromEnv(sc.Thresholds)
	add(err)
	cfg.rounds, err = RepeatsFromEnv()
	add(err)
	cfg.idle, err = sc.IdleWindowFromEnv()
	add(err)
	cfg.push, err = PushConfigFromEnv()
	add(err)
	cfg.preflight, err = preflightFromEnv()
	add(err)
	cfg.runID, err = RunIDFromEnv()
	add(err)
	if cfg.platform == nil {
		add(errors.New("perf: no platform: pass perf.WithPlatform"))
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

// progressFunc is told of every completed phase: the complete rounds so far, the unfinished
// round's completed phases (nil between rounds), and the phase's name ("round 2 baseline").
type progressFunc func(done []Round, partial *Round, phase string)

// runRounds runs the interleaved rounds, B M B M ..., with the warmup before the first M. It
// stops at the first load that fails and returns the rounds completed so far, and the baseline
// of the round it stopped in (nil when it stopped between rounds). prog logs each phase;
// checkpointFn is called after each phase with what is complete so far.
func runRounds(ctx context.Context, t *testing.T, dep Deployment, sc Scenario, cfg runConfig, prog *progress, checkpointFn progressFunc) ([]Round, *Round, error) {
	t.Helper()
	tester, err := NewTesterClient(dep, sc.Tester)
	if err != nil {
		return nil, nil, err
	}
	baseline, err := routed(dep, sc, sc.Baseline, cfg.main)
	if err != nil {
		return nil, nil, err
	}
	main, err := routed(dep, sc, sc.Main, cfg.main)
	if err != nil {
		return nil, nil, err
	}
	warmup, err := routed(dep, sc, sc.Main, cfg.warmup)
	if err != nil {
		return nil, nil, err
	}
	interval := sc.sampleInterval()
	var rounds []Round
	for i := range cfg.rounds {
		done := prog.phase(fmt.Sprintf("round %d/%d: baseline, %d QPS to %s", i+1, cfg.rounds, baseline.QPS, baseline.Target), baseline.Duration)
		b, err := RunLoad(ctx, tester, baseline)
		done()
		if err != nil {
			return rounds, nil, fmt.Errorf("round %d baseline: %w", i+1, err)
		}
		partial := &Round{Baseline: b}
		checkpointFn(rounds, partial, fmt.Sprintf("round %d baseline", i+1))
		if i == 0 {
			done := prog.phase(fmt.Sprintf("warmup (discarded), %d QPS to %s", warmup.QPS, warmup.Target), warmup.Duration)
			_, err := RunLoad(ctx, tester, warmup)
			done()
			if err != nil {
				return rounds, partial, fmt.Errorf("warmup: %w", err)
			}
		}
		done = prog.phase(fmt.Sprintf("round %d/%d: main, %d QPS to %s", i+1, cfg.rounds, main.QPS, main.Target), main.Duration)
		rec := Record(ctx, dep, interval, sc.Roles())
		m, err := RunLoad(ctx, tester, main)
		series, sampleErrs := rec.Stop()
		done()
		if len(sampleErrs) > 0 {
			t.Logf("round %d: %d resource readings failed, first: %v", i+1, len(sampleErrs), sampleErrs[0])
		}
		if err != nil {
			return rounds, partial, fmt.Errorf("round %d main: %w", i+1, err)
		}
		rounds = append(rounds, Round{Baseline: b, Main: m, Resources: series})
		checkpointFn(rounds, nil, fmt.Sprintf("round %d main", i+1))
	}
	return rounds, nil, nil
}

// withTesterLimits returns a copy of apps in which each tester without TesterLimits has
// TesterLimitsFor(loads...): the platform caps it at the scenario's own load times
// TesterLoadMargin.
func withTesterLimits(apps []App, loads ...Params) []App {
	out := make([]App, len(apps))
	for i, a := range apps {
		if a.Kind == Tester && a.TesterLimits == nil {
			l := TesterLimitsFor(loads...)
			a.TesterLimits = &l
		}
		out[i] = a
	}
	return out
}

// sampleIdle samples resources for window with no load.
func sampleIdle(ctx context.Context, dep Deployment, window time.Duration, sc Scenario) []Series {
	interval := sc.sampleInterval()
	rec := Record(ctx, dep, interval, sc.Roles())
	select {
	case <-ctx.Done():
	case <-time.After(window):
	}
	series, _ := rec.Stop()
	return series
}

// routed returns p aimed at route r of the deployment.
func routed(dep Deployment, sc Scenario, r Route, p Params) (Params, error) {
	p.Protocol = sc.Transport
	p.Method = r.Method
	if p.Method == "" {
		p.Method = "test"
	}
	var err error
	switch {
	case sc.Transport == HTTP && r.ThroughSidecar:
		p.Target, err = dep.Endpoint(sc.Tester, SidecarHTTP)
		p.Target += "/v1.0/invoke/" + r.To + "/method/" + p.Method
	case sc.Transport == HTTP:
		p.Target, err = dep.Endpoint(r.To, AppHTTP)
		p.Target += "/" + p.Method
	case r.ThroughSidecar:
		p.Target, err = dep.Endpoint(sc.Tester, SidecarGRPC)
		p.AppID = r.To
	default:
		p.Target, err = dep.Endpoint(r.To, AppGRPC)
	}
	if err != nil {
		return Params{}, err
	}
	return p, p.Validate()
}

var noPushOnce sync.Once

// pushReport pushes rep when a Pushgateway is configured; a failed push is a test error with
// the server's message, and is returned. Without one it says so, once per test binary.
func pushReport(t *testing.T, cfg PushConfig, rep *Report) error {
	t.Helper()
	if !cfg.Enabled() {
		first := false
		noPushOnce.Do(func() { first = true })
		if first {
			t.Logf("no Pushgateway configured (%s unset): results are not pushed", EnvPushgatewayURL)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := Push(ctx, cfg, rep); err != nil {
		t.Errorf("%s/%s: %v", rep.Test, rep.Transport, err)
		return err
	}
	t.Logf("pushed to %s (run_id %s)", cfg.URL, rep.RunID)
	return nil
}

// failOn fails t once per failed bound that is not warn-only, and once if the run is invalid;
// never stopping at the first.
func failOn(t *testing.T, rep *Report) {
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
}
