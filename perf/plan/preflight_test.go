package plan

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
)

func TestLadderFrom(t *testing.T) {
	for qps, want := range map[int]string{1000: "[1000 500 250 100]", 500: "[500 250 100]", 700: "[700 500 250 100]", 100: "[100]", 50: "[50]"} {
		if got := fmt.Sprint(ladderFrom(qps, nil)); got != want {
			t.Errorf("ladderFrom(%d) = %s, want %s", qps, got, want)
		}
	}
	// A scenario's own ladder (Scenario.Ladder) replaces QPSLadder.
	if got := fmt.Sprint(ladderFrom(200, []int{200, 100, 50, 20, 10})); got != "[200 100 50 20 10]" {
		t.Errorf("ladderFrom(200, bulk ladder) = %s", got)
	}
	// ... and may start below the scenario's QPS (the jobs scheduling ladder), or above it.
	if got := fmt.Sprint(ladderFrom(1000, []int{500, 250, 100})); got != "[500 250 100]" {
		t.Errorf("ladderFrom(1000, [500 250 100]) = %s", got)
	}
	if got := fmt.Sprint(ladderFrom(300, []int{500, 250, 100})); got != "[300 250 100]" {
		t.Errorf("ladderFrom(300, [500 250 100]) = %s", got)
	}
	if got := preflightStepLength(4, time.Minute); got != 6*time.Second {
		t.Errorf("4 steps before a 1 min phase: %v, want 6 s", got)
	}
	if got := preflightStepLength(10, time.Minute); got != 3*time.Second {
		t.Errorf("10 steps: %v, want 3 s (30 s budget)", got)
	}
	if got := preflightStepLength(4, 2*time.Second); got != 2*time.Second {
		t.Errorf("before a 2 s phase: %v, want 2 s", got)
	}
}

func TestPreflightFromEnv(t *testing.T) {
	for v, want := range map[string]bool{"": false, "off": false, "ladder": true} {
		t.Setenv(perf.EnvPreflight, v)
		env, err := runner.LoadEnv()
		if got := preflightFromEnv(env); err != nil || got != want {
			t.Errorf("%s=%q: %v, %v; want %v", perf.EnvPreflight, v, got, err, want)
		}
	}
	t.Setenv(perf.EnvPreflight, "yes")
	if _, err := runner.LoadEnv(); err == nil || !strings.Contains(err.Error(), `DAPR_PERF_PREFLIGHT="yes"`) {
		t.Errorf("bad value: %v, want an error naming the variable", err)
	}
}

func TestPreflightNote(t *testing.T) {
	steps := func(kept ...bool) []perf.PreflightStep {
		var out []perf.PreflightStep
		for i, k := range kept {
			out = append(out, perf.PreflightStep{QPS: perf.QPSLadder[i], Seconds: 6, Kept: k})
		}
		return out
	}
	for _, tc := range []struct {
		pf   perf.Preflight
		want string
	}{
		{perf.Preflight{RequestedQPS: 1000, ChosenQPS: 500, Ladder: perf.QPSLadder, Steps: steps(false, true)},
			"preflight: Dapr's 1000 QPS needs more than this machine's 2 CPUs; ran at 500 QPS, the highest of the ladder 1000, 500, 250, 100 that a 6 s load through the sidecars kept on schedule"},
		{perf.Preflight{RequestedQPS: 1000, ChosenQPS: 1000, Ladder: perf.QPSLadder, Steps: steps(true)},
			"preflight: this machine (2 CPUs) kept Dapr's 1000 QPS on schedule in 6 s through the sidecars; ran at 1000 QPS"},
		{perf.Preflight{RequestedQPS: 1000, ChosenQPS: 100, Ladder: perf.QPSLadder, Steps: steps(false, false, false, false)},
			"preflight: no load of the ladder 1000, 500, 250, 100 kept its schedule on this machine's 2 CPUs; ran at the lowest, 100 QPS (expect an invalid run)"},
		{perf.Preflight{RequestedQPS: 1000, ChosenQPS: 500, Ladder: []int{500, 250, 100}, LadderNote: "why", Steps: []perf.PreflightStep{{QPS: 500, Seconds: 6, Kept: true}}},
			"preflight: the ladder starts below Dapr's 1000 QPS (why); ran at 500 QPS, the highest of the ladder 500, 250, 100 that a 6 s load through the sidecars kept on schedule on this machine's 2 CPUs"},
	} {
		if got := preflightNote(tc.pf, 2); got != tc.want {
			t.Errorf("note\n got %s\nwant %s", got, tc.want)
		}
	}
	one := preflightNote(perf.Preflight{RequestedQPS: 1000, ChosenQPS: 500, Ladder: perf.QPSLadder, Steps: steps(false, true)}, 1)
	if !strings.Contains(one, "needs more than this machine's 1 CPU;") {
		t.Errorf("one CPU: %s", one)
	}
}

// A scenario whose figure is its rate (perf.Scenario.RateIsMeasured) runs its own target under
// DAPR_PERF_PREFLIGHT=ladder, and the run's notes say why; any other keeps the preflight.
func TestRateIsMeasuredSkipsThePreflight(t *testing.T) {
	t.Setenv(perf.EnvPreflight, "ladder")
	sc := perf.Scenario{Test: "jobs", Transport: perf.HTTP, Tester: "tester", Baseline: perf.Route{To: "app"}, Main: perf.Route{To: "app", ThroughSidecar: true},
		MainOptions: []perf.Option{perf.WithQPS(1000), perf.WithConnections(16), perf.WithDuration(time.Minute)}}
	for _, measured := range []bool{false, true} {
		sc.RateIsMeasured = measured
		cfg := perf.RunConfig{Env: runner.EnvFor(t)}
		if _, err := (OverheadPlan{}).Configure(sc, &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg.PreflightLadder == measured {
			t.Errorf("RateIsMeasured %v: preflight %v", measured, cfg.PreflightLadder)
		}
		noted := strings.Contains(strings.Join(cfg.Notes, "\n"), "DAPR_PERF_PREFLIGHT=ladder not applied")
		if noted != measured {
			t.Errorf("RateIsMeasured %v: notes %q", measured, cfg.Notes)
		}
	}
}
