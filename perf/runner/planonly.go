package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// PlanOnlyFromEnv reports whether env's EnvPlanOnly asks for a plan-only run ("1" or "true").
func PlanOnlyFromEnv(env perf.Env) bool {
	v := perf.Val(env.PlanOnly)
	return v == "1" || v == "true"
}

// planOnlyPlatform stands in for the platform of a plan-only run, whose configuration needs
// one: it has the name of the platform the run would use, and starting it fails the test
// (nothing may start in a plan-only run).
type planOnlyPlatform struct{ name string }

func (p planOnlyPlatform) Name() string { return p.name }

func (p planOnlyPlatform) Start(_ context.Context, t perf.TB, _ ...perf.App) perf.Deployment {
	t.Helper()
	t.Fatalf("perf: %s is set: a plan-only run starts no platform", perf.EnvPlanOnly)
	return nil
}

// PlanOf configures sc under env exactly as Run would (the overrides applied and validated:
// the same error Run fails with) and returns its plan line, without starting anything. The
// platform named is env's DAPR_PERF_PLATFORM ("local" when unset), or that of a platform among
// opts (Run's options). Package and Test are left empty.
func PlanOf(sc perf.Scenario, env perf.Env, opts ...RunOption) (perf.PlanLine, error) {
	sc, err := scenarioFor(env, sc)
	if err != nil {
		return perf.PlanLine{}, err
	}
	cfg, err := newRunConfig(sc, env, planOnlyOptions(env, opts), false)
	if err != nil {
		return perf.PlanLine{}, err
	}
	return planLine(sc, cfg), nil
}

// planOnlyOptions is opts with a planOnlyPlatform named as the run's platform would be: env's
// DAPR_PERF_PLATFORM ("local" when unset), or the name of a platform among opts.
func planOnlyOptions(env perf.Env, opts []RunOption) []RunOption {
	platform := perf.Val(env.Platform)
	if platform == "" {
		platform = "local"
	}
	if p := options(opts).Platform; p != nil {
		platform = p.Name()
	}
	return append(append([]RunOption(nil), opts...), WithPlatform(planOnlyPlatform{name: platform}))
}

// planLine is the plan line of sc configured as cfg (newRunConfig with a planOnlyPlatform).
func planLine(sc perf.Scenario, cfg runConfig) perf.PlanLine {
	plan := sc.Plan // set: newRunConfig refuses a nil one
	upTo := false   // its runs are planned at their maxDuration
	if u, ok := plan.(perf.UpperBounded); ok {
		upTo = u.StepsAreUpperBounds()
	}
	l := perf.PlanLine{
		Scenario: sc.Test, Transport: string(sc.Transport), Plan: plan.Kind(), Platform: cfg.Platform.Name(),
		QPS: cfg.Main.QPS, Connections: cfg.Main.Connections, DurationSeconds: cfg.Main.Duration.Seconds(),
		WarmupQPS: cfg.Warmup.QPS, WarmupSeconds: cfg.Warmup.Duration.Seconds(),
		PhaseOverheadSeconds: phaseOverhead.Seconds(),
	}
	if cfg.Main.MaxRate || cfg.Main.HasExecutor() || upTo {
		l.QPS = 0
	}
	if cfg.Warmup.HasExecutor() || upTo { // counted in iterations, not a rate and a length
		l.WarmupQPS, l.WarmupSeconds = 0, 0
	}
	var expected, bounded time.Duration
	for _, ph := range cfg.planRun.Steps(sc, cfg.RunConfig) {
		bound := upTo && ph.Duration > 0
		l.Phases = append(l.Phases, perf.PlanLinePhase{Name: ph.Name, Seconds: ph.Duration.Seconds(), UpTo: bound})
		expected += ph.Duration + phaseOverhead
		if bound {
			bounded += ph.Duration
		}
	}
	l.ExpectedSeconds = expected.Seconds()
	l.UpToSeconds = bounded.Seconds()
	return l
}

// printPlan is Run under EnvPlanOnly, once sc is configured as cfg (with a
// planOnlyPlatform): it prints sc's plan line on stdout (go test -v passes it through as one
// line), with unknown (the DAPR_PERF_* variables that are set but that daprperf does not read)
// in its warnings, and logs the plan as a run would. It starts nothing and writes no file.
func printPlan(t *testing.T, sc perf.Scenario, cfg runConfig, unknown []string) {
	t.Helper()
	l := planLine(sc, cfg)
	l.Test = t.Name()
	l.Package = testPackage()
	l.Warnings = unknown
	for _, u := range unknown {
		t.Logf("warning: %s", u)
	}
	fmt.Println(l.String())
	t.Logf("plan only (%s): %s/%s on %s, %d phases, expected about %v", perf.EnvPlanOnly, l.Scenario, l.Transport, l.Platform,
		len(l.Phases), (time.Duration(l.ExpectedSeconds * float64(time.Second))).Round(time.Second))
}

// testPackage is the test binary's package folder relative to the repository root (go test
// runs a test binary in its package's folder), or the folder's base name when no root is found.
func testPackage() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	if root, err := perf.RepoRootFrom(wd); err == nil {
		if rel, err := filepath.Rel(root, wd); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(wd)
}
