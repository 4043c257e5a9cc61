package perf

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// EnvPlanOnly turns on the plan-only dry run: "1" or "true" makes Run print the scenario's
// plan and return before anything starts (make perf-plan; scripts/perf.sh runs such a pass
// before every make perf). "0", "false" or unset run normally; any other value is an error
// naming the variable.
const EnvPlanOnly = "DAPR_PERF_PLAN_ONLY"

// PlanLinePrefix starts the one line a plan-only run prints per scenario, followed by the
// JSON of a PlanLine: cmd/perfplan finds the lines by it in go test's output.
const PlanLinePrefix = "daprperf-plan "

// PlanLine is a scenario's plan as the plan-only dry run prints it (PlanLinePrefix + JSON):
// what it would run and how long that is expected to take. Durations are in seconds.
type PlanLine struct {
	// Package is the test package, relative to the repository root ("tests/jobs"); Test the
	// go test name (t.Name(), with its subtests).
	Package string `json:"package"`
	Test    string `json:"test"`
	// Scenario and Transport name the result folder (Scenario.Test, Scenario.Transport).
	Scenario  string `json:"scenario"`
	Transport string `json:"transport"`
	// Plan is the plan's kind (Report.Plan); Platform where it would run.
	Plan     string `json:"plan"`
	Platform string `json:"platform"`
	// QPS, Connections and DurationSeconds are the main phase's load after the env overrides
	// (QPS 0 for a max-rate or closed-loop load); WarmupQPS and WarmupSeconds the warmup's.
	QPS             int     `json:"qps"`
	Connections     int     `json:"connections"`
	DurationSeconds float64 `json:"durationSeconds"`
	WarmupQPS       int     `json:"warmupQPS"`
	WarmupSeconds   float64 `json:"warmupSeconds"`
	// Phases are the plan's steps as the run's progress lines name them (Plan.steps), each
	// with its planned length.
	Phases []PlanLinePhase `json:"phases"`
	// PhaseOverheadSeconds is what each phase is expected to cost beyond its length
	// (phaseOverhead: the tester's start and answer, measured at about 0.5 s).
	PhaseOverheadSeconds float64 `json:"phaseOverheadSeconds"`
	// ExpectedSeconds = sum over Phases of (Seconds + PhaseOverheadSeconds): the same
	// expected time the run's own plan line logs ("expected about ..."). The platform's
	// start-up (about 1 s a deployment with the binaries built) and the go test binary's
	// build are not in it.
	ExpectedSeconds float64 `json:"expectedSeconds"`
	// UpToSeconds is the part of ExpectedSeconds that is an upper bound rather than an
	// expectation: closed-loop runs that end when their iterations are done, planned at
	// their maxDuration (IterationsPlan). 0 for plans of fixed-length phases.
	UpToSeconds float64 `json:"upToSeconds,omitempty"`
}

// PlanLinePhase is one step of a PlanLine.
type PlanLinePhase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	// UpTo is set when Seconds is the phase's bound, not its expected length.
	UpTo bool `json:"upTo,omitempty"`
}

// String is the line as printed: PlanLinePrefix and the JSON.
func (l PlanLine) String() string {
	b, err := json.Marshal(l)
	if err != nil { // a PlanLine has no values json cannot encode
		panic(fmt.Sprintf("perf: plan line: %v", err))
	}
	return PlanLinePrefix + string(b)
}

// PlanOnlyFromEnv reports whether EnvPlanOnly asks for a plan-only run ("1" or "true"). A bad
// value of any variable is LoadEnv's error, naming it and what it accepts.
func PlanOnlyFromEnv() (bool, error) {
	env, err := LoadEnv()
	if err != nil {
		return false, err
	}
	v := Val(env.PlanOnly)
	return v == "1" || v == "true", nil
}

// planOnlyPlatform stands in for the platform of a plan-only run, whose configuration needs
// one: it has the name of the platform the run would use, and starting it fails the test
// (nothing may start in a plan-only run).
type planOnlyPlatform struct{ name string }

func (p planOnlyPlatform) Name() string { return p.name }

func (p planOnlyPlatform) Start(_ context.Context, t testing.TB, _ ...App) Deployment {
	t.Helper()
	t.Fatalf("perf: %s is set: a plan-only run starts no platform", EnvPlanOnly)
	return nil
}

// PlanOf configures sc exactly as Run would (the env overrides applied and validated: the
// same error Run fails with) and returns its plan line, without starting anything. platform is
// the name of the platform the run would use ("local" when empty); opts are Run's options
// (a platform among them gives its name instead). Package and Test are left empty.
func PlanOf(sc Scenario, platform string, opts ...RunOption) (PlanLine, error) {
	if platform == "" {
		platform = "local"
	}
	probe := runConfig{}
	for _, o := range opts {
		o(&probe)
	}
	if probe.platform != nil {
		platform = probe.platform.Name()
	}
	opts = append(append([]RunOption(nil), opts...), WithPlatform(planOnlyPlatform{name: platform}))
	cfg, err := newRunConfig(sc, opts)
	if err != nil {
		return PlanLine{}, err
	}
	plan := sc.plan()
	_, upTo := plan.(*IterationsPlan) // its runs are planned at their maxDuration
	l := PlanLine{
		Scenario: sc.Test, Transport: string(sc.Transport), Plan: plan.Kind(), Platform: platform,
		QPS: cfg.main.QPS, Connections: cfg.main.Connections, DurationSeconds: cfg.main.Duration.Seconds(),
		WarmupQPS: cfg.warmup.QPS, WarmupSeconds: cfg.warmup.Duration.Seconds(),
		PhaseOverheadSeconds: phaseOverhead.Seconds(),
	}
	if cfg.main.MaxRate || cfg.main.HasExecutor() || upTo {
		l.QPS = 0
	}
	if cfg.warmup.HasExecutor() || upTo { // counted in iterations, not a rate and a length
		l.WarmupQPS, l.WarmupSeconds = 0, 0
	}
	var expected, bounded time.Duration
	for _, ph := range plan.steps(sc, cfg) {
		bound := upTo && ph.d > 0
		l.Phases = append(l.Phases, PlanLinePhase{Name: ph.name, Seconds: ph.d.Seconds(), UpTo: bound})
		expected += ph.d + phaseOverhead
		if bound {
			bounded += ph.d
		}
	}
	l.ExpectedSeconds = expected.Seconds()
	l.UpToSeconds = bounded.Seconds()
	return l, nil
}

// runPlanOnly is Run under EnvPlanOnly: it prints sc's plan line on stdout (go test -v passes
// it through as one line) and logs the plan as a run would, or fails t with the configuration
// error a run would fail with. It starts nothing and writes no file.
func runPlanOnly(t *testing.T, sc Scenario, opts []RunOption) {
	t.Helper()
	env, err := LoadEnv()
	if err != nil {
		t.Fatal(err)
	}
	l, err := PlanOf(sc, Val(env.Platform), opts...)
	if err != nil {
		t.Fatal(err)
	}
	l.Test = t.Name()
	l.Package = testPackage()
	fmt.Println(l.String())
	t.Logf("plan only (%s): %s/%s on %s, %d phases, expected about %v", EnvPlanOnly, l.Scenario, l.Transport, l.Platform,
		len(l.Phases), (time.Duration(l.ExpectedSeconds * float64(time.Second))).Round(time.Second))
}

// testPackage is the test binary's package folder relative to the repository root (go test
// runs a test binary in its package's folder), or the folder's base name when no root is found.
func testPackage() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	if root, err := RepoRootFrom(wd); err == nil {
		if rel, err := filepath.Rel(root, wd); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(wd)
}
