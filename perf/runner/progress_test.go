package runner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf/plan"

	"github.com/daprperf/daprperf/perf"
)

// logTB records Logf lines.
type logTB struct {
	testing.TB
	lines []string
}

func (l *logTB) Logf(format string, args ...any) {
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logTB) Helper() {}

func TestProgressPlanAndPhases(t *testing.T) {
	t.Setenv(perf.EnvQPS, "") // set and empty, then unset: the plan has a preflight only without it
	os.Unsetenv(perf.EnvQPS)
	cfg := perf.RunConfig{Platform: namedPlatform("local"), PreflightLadder: true, Rounds: 2}
	cfg.Main = perf.DefaultParams()
	cfg.Main.QPS, cfg.Main.Duration = 1000, time.Minute
	cfg.Warmup = perf.DefaultParams()
	cfg.Warmup.QPS, cfg.Warmup.Duration = 100, 10*time.Second
	steps := plan.OverheadPlan{}.Steps(perf.Scenario{Plan: plan.OverheadPlan{}}, cfg)
	var names []string
	var total time.Duration
	for _, ph := range steps {
		names = append(names, ph.Name)
		total += ph.Duration
	}
	want := []string{
		"preflight (up to 4 loads of 6s: 1000, 500, 250, 100 QPS)",
		"round 1/2 baseline, 1000 QPS x 1m0s", "warmup, 100 QPS x 10s", "round 1/2 main, 1000 QPS x 1m0s",
		"round 2/2 baseline, 1000 QPS x 1m0s", "round 2/2 main, 1000 QPS x 1m0s",
	}
	if fmt.Sprint(names) != fmt.Sprint(want) || total != 24*time.Second+4*time.Minute+10*time.Second {
		t.Errorf("plan %q (%v), want %q (4m34s)", names, total, want)
	}

	tb := &logTB{TB: t}
	p := newProgress(tb, perf.Scenario{Plan: plan.OverheadPlan{}, Test: "service_invocation", Transport: perf.HTTP}, steps, cfg.Platform.Name())
	if !strings.Contains(tb.lines[0], "plan: service_invocation/http on local, 6 phases, expected about 4m37s after start-up") {
		t.Errorf("plan line %q", tb.lines[0])
	}
	done := p.phase("round 1/2: baseline", time.Minute)
	done()
	done()                                             // idempotent
	p.phase("round 1/2: main", 100*time.Millisecond)() // short: no ticker
	if len(tb.lines) != 3 || !strings.HasPrefix(tb.lines[1], "[0s elapsed, about 4m37s left] round 1/2: baseline (1m0s)") ||
		!strings.Contains(tb.lines[2], "about 3m37s left] round 1/2: main") {
		t.Errorf("phase lines %q", tb.lines[1:])
	}
	qps := 500
	cfg.Env.QPS = &qps
	if ph := (plan.OverheadPlan{}).Steps(perf.Scenario{Plan: plan.OverheadPlan{}}, cfg); strings.HasPrefix(ph[0].Name, "preflight") {
		t.Errorf("DAPR_PERF_QPS set: the plan starts with %q, want no preflight", ph[0].Name)
	}
	var nilProgress *progress
	nilProgress.phase("x", time.Second)()
}

// namedPlatform is a Platform that only has a name.
type namedPlatform string

func (n namedPlatform) Name() string { return string(n) }

func (namedPlatform) Start(context.Context, perf.TB, ...perf.App) perf.Deployment { return nil }
