package plan

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"
)

// fakeRounds plays an A/B run's rounds with figures the test sets: round i of A has p50 and
// p90 latencies about 1 ms and 2 ms (±2 % by round), and B's are A's times b50(i) and b90(i).
// It records the round indices it ran and fails at round failAt (when > 0).
type fakeRounds struct {
	rep      *perf.Report
	b50, b90 func(i int) float64
	ran      []int
	failAt   int
	gated    []string // report.ABGatedFigures when nil
}

func (f *fakeRounds) round(i int) error {
	if f.failAt > 0 && i == f.failAt {
		return errors.New("load failed")
	}
	f.ran = append(f.ran, i)
	s := 1 + 0.02*float64(i%3-1)
	res := func(p50, p90 float64) perf.Result {
		var r perf.Result
		r.Latency.Percentiles = []perf.PercentileValue{{P: 50, Seconds: p50}, {P: 90, Seconds: p90}}
		r.Latency.AvgSeconds = p50
		return r
	}
	a50, a90 := 0.001*s, 0.002*s
	f.rep.Rounds = append(f.rep.Rounds, perf.Round{Main: res(a50, a90)})
	f.rep.AB.Rounds = append(f.rep.AB.Rounds, perf.Round{Main: res(a50*f.b50(i), a90*f.b90(i))})
	return nil
}

// run plays planned rounds, then extendAB up to maxRounds.
func (f *fakeRounds) run(t *testing.T, planned, maxRounds int) error {
	t.Helper()
	rule := report.ABRule(planned, maxRounds)
	f.rep = &perf.Report{AB: &perf.ABReport{Rule: &rule}}
	for i := range planned {
		if err := f.round(i); err != nil {
			t.Fatal(err)
		}
	}
	gated := f.gated
	if gated == nil {
		gated = report.ABGatedFigures()
	}
	return extendAB(f.rep, planned, maxRounds, gated, f.round, t.Logf)
}

func factor(f float64) func(int) float64 { return func(int) float64 { return f } }

// alternating is 1 + x in odd rounds and 1 − x in even ones.
func alternating(x float64) func(int) float64 {
	return func(i int) float64 { return 1 + x*float64(2*(i%2)-1) }
}

func TestABRoundsStopWhenDecided(t *testing.T) {
	// The same build (±1 % per round) from 6 rounds, budget 16 (6 looks): same needs a 98.3 %
	// interval, which 6 rounds cannot give (1 − 2/2^6 = 96.9 %) and 8 can: one pair added.
	f := &fakeRounds{b50: alternating(0.01), b90: alternating(0.01)}
	if err := f.run(t, 6, 16); err != nil {
		t.Fatal(err)
	}
	stop := f.rep.AB.Stop
	if stop.Reason != perf.ABStopDecided || stop.Ran != 8 || len(stop.Undecided) != 0 || !slices.Equal(f.ran[6:], []int{6, 7}) {
		t.Errorf("same build: %+v, rounds %v; want decided after 8", stop, f.ran)
	}
	if stop.Planned != 6 || stop.MaxRounds != 16 || !slices.Equal(stop.Gated, []string{"latency p50", "latency p90"}) {
		t.Errorf("same build: %+v", stop)
	}

	// B 10 % slower at p90 (p50 the same) from 8 rounds, budget 16 (5 looks, 99.8 % each):
	// regressed first shows at 10 rounds (1 − 2/2^10), and the rounds stop there.
	f = &fakeRounds{b50: alternating(0.01), b90: factor(1.10)}
	if err := f.run(t, 8, 16); err != nil {
		t.Fatal(err)
	}
	stop = f.rep.AB.Stop
	if stop.Reason != perf.ABStopDecided || stop.Ran != 10 || len(f.ran) != 10 {
		t.Errorf("10 %% slower: %+v after rounds %v; want decided at 10", stop, f.ran)
	}
	ds := report.PairedDifferences(f.rep.Rounds, f.rep.AB.Rounds, *f.rep.AB.Rule)
	verdicts := map[string]string{}
	for _, d := range ds {
		verdicts[d.Figure] = d.Verdict
	}
	if verdicts["latency p90"] != perf.VerdictRegressed || verdicts["latency p50"] != perf.VerdictSame {
		t.Errorf("10 %% slower at p90: %v", verdicts)
	}

	// Decided by the planned rounds: nothing added.
	f = &fakeRounds{b50: factor(1.2), b90: factor(1.2)}
	if err := f.run(t, 12, 12); err != nil {
		t.Fatal(err)
	}
	if stop := f.rep.AB.Stop; stop.Reason != perf.ABStopDecided || stop.Ran != 12 || len(f.ran) != 12 {
		t.Errorf("20 %% slower in 12 rounds: %+v, rounds %v", f.rep.AB.Stop, f.ran)
	}
}

// DAPR_PERF_AB_GATE=p90 (a bisection of p90) stops the rounds once p90 is decided, while a
// p50 that stays undecided would run them to the budget under the default gate.
func TestABRoundsStopWhenTheGatedFigureIsDecided(t *testing.T) {
	f := &fakeRounds{b50: alternating(0.10), b90: factor(1.10)}
	if err := f.run(t, 8, 30); err != nil {
		t.Fatal(err)
	}
	if stop := f.rep.AB.Stop; stop.Reason != perf.ABStopBudget || stop.Ran != 30 || !slices.Equal(stop.Undecided, []string{"latency p50"}) {
		t.Errorf("p50 and p90 gated: %+v; want the budget spent on p50", stop)
	}
	f = &fakeRounds{b50: alternating(0.10), b90: factor(1.10), gated: report.ABGatedFiguresOf("p90")}
	if err := f.run(t, 8, 30); err != nil {
		t.Fatal(err)
	}
	stop := f.rep.AB.Stop
	if stop.Reason != perf.ABStopDecided || stop.Ran >= 30 || !slices.Equal(stop.Gated, []string{"latency p90"}) {
		t.Errorf("p90 gated: %+v; want decided before the budget", stop)
	}
	for gate, want := range map[string][]string{"p50": {"latency p50"}, "p99": {"latency p99"}, "p50+p90": report.ABGatedFigures(), "": report.ABGatedFigures()} {
		if got := report.ABGatedFiguresOf(gate); !slices.Equal(got, want) {
			t.Errorf("ABGatedFiguresOf(%q) = %v, want %v", gate, got, want)
		}
	}
}

func TestABRoundsStopAtTheBudget(t *testing.T) {
	// p90 of B ±10 % by round never decides; p50 is same. From 6, at most 11: pairs, then the
	// one round the budget leaves, each index once and in order (the A B / B A alternation
	// follows the index).
	f := &fakeRounds{b50: alternating(0.01), b90: alternating(0.10)}
	if err := f.run(t, 6, 11); err != nil {
		t.Fatal(err)
	}
	stop := f.rep.AB.Stop
	if stop.Reason != perf.ABStopBudget || stop.Ran != 11 || !slices.Equal(stop.Undecided, []string{"latency p90"}) {
		t.Errorf("never decided: %+v", stop)
	}
	if !slices.Equal(f.ran, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) {
		t.Errorf("rounds run: %v", f.ran)
	}

	// A budget equal to the rounds asked for adds none.
	f = &fakeRounds{b50: alternating(0.10), b90: alternating(0.10)}
	if err := f.run(t, 6, 6); err != nil {
		t.Fatal(err)
	}
	if stop := f.rep.AB.Stop; stop.Reason != perf.ABStopBudget || stop.Ran != 6 || len(f.ran) != 6 {
		t.Errorf("no budget: %+v, rounds %v", stop, f.ran)
	}

	// A load that fails in an added round stops the rounds, marked failed.
	f = &fakeRounds{b50: alternating(0.10), b90: alternating(0.10), failAt: 7}
	err := f.run(t, 6, 16)
	if err == nil || !strings.Contains(err.Error(), "load failed") {
		t.Fatalf("failing round: %v", err)
	}
	if stop := f.rep.AB.Stop; stop.Reason != perf.ABStopFailed || stop.Ran != 7 {
		t.Errorf("failing round: %+v", stop)
	}
}

// TestABMaxRoundsEnv: DAPR_PERF_AB_MAX_ROUNDS out of its range, or below the rounds asked
// for, is an error naming it and what it accepts; unset, the budget is 16, or the rounds asked
// for when more.
func TestABMaxRoundsEnv(t *testing.T) {
	sc := perf.Scenario{Test: "ab", Transport: perf.HTTP, Tester: "tester",
		Apps:     []perf.App{{Name: "tester", Kind: perf.Tester}, {Name: "app", Kind: perf.HTTPApp}},
		Baseline: perf.Route{To: "app"}, Main: perf.Route{To: "app"}}
	for _, bad := range []string{"0", "101", "many"} {
		t.Run(bad, func(t *testing.T) {
			t.Setenv(perf.EnvABMaxRounds, bad)
			err := configureErr(OverheadPlan{}, sc, &perf.RunConfig{Platform: testPlatform("local")})
			if err == nil || !strings.Contains(err.Error(), `DAPR_PERF_AB_MAX_ROUNDS="`+bad+`": must be an integer from 1 to 100, at least DAPR_PERF_REPEATS`) {
				t.Errorf("%s: %v", bad, err)
			}
		})
	}
	t.Run("below the repeats", func(t *testing.T) {
		t.Setenv(perf.EnvRepeats, "6")
		t.Setenv(perf.EnvABMaxRounds, "4")
		err := configureErr(OverheadPlan{}, sc, &perf.RunConfig{Platform: testPlatform("local")})
		if err == nil || !strings.Contains(err.Error(), "DAPR_PERF_AB_MAX_ROUNDS=4: must be at least the rounds asked for (DAPR_PERF_REPEATS or its default: 6)") {
			t.Errorf("4 below 6: %v", err)
		}
	})
	for _, c := range []struct {
		repeats, max string
		want         int
	}{{"6", "", 16}, {"20", "", 20}, {"6", "10", 10}, {"6", "6", 6}} {
		t.Run(c.repeats+"/"+c.max, func(t *testing.T) {
			t.Setenv(perf.EnvRepeats, c.repeats)
			if c.max != "" {
				t.Setenv(perf.EnvABMaxRounds, c.max)
			}
			env, err := runner.LoadEnv()
			if err != nil {
				t.Fatal(err)
			}
			got, err := perf.ABMaxRoundsFromEnv(env, perf.RepeatsFromEnv(env), report.DefaultABMaxRounds)
			if err != nil || got != c.want {
				t.Errorf("REPEATS=%s MAX=%q: %d, %v; want %d", c.repeats, c.max, got, err, c.want)
			}
		})
	}
}

// DAPR_PERF_AB_GATE picks the figures an A/B run adds rounds for; a value it does not accept is
// an error naming it and what it accepts.
func TestABGateEnv(t *testing.T) {
	sc := perf.Scenario{Test: "ab", Transport: perf.HTTP, Tester: "tester",
		Apps:     []perf.App{{Name: "tester", Kind: perf.Tester}, {Name: "app", Kind: perf.HTTPApp}},
		Baseline: perf.Route{To: "app"}, Main: perf.Route{To: "app"}}
	cfg := perf.RunConfig{Platform: testPlatform("local")}
	mustConfigure(t, OverheadPlan{}, sc, &cfg)
	if !slices.Equal(cfg.ABGated, report.ABGatedFigures()) {
		t.Errorf("unset: %v", cfg.ABGated)
	}
	t.Setenv(perf.EnvABGate, "p90")
	cfg = perf.RunConfig{Platform: testPlatform("local")}
	mustConfigure(t, OverheadPlan{}, sc, &cfg)
	if !slices.Equal(cfg.ABGated, []string{"latency p90"}) {
		t.Errorf("p90: %v", cfg.ABGated)
	}
	t.Setenv(perf.EnvABGate, "p95")
	err := configureErr(OverheadPlan{}, sc, &perf.RunConfig{Platform: testPlatform("local")})
	if err == nil || !strings.Contains(err.Error(), `DAPR_PERF_AB_GATE="p95"`) || !strings.Contains(err.Error(), "p50+p90, p50, p90 or p99") {
		t.Errorf("p95: %v", err)
	}
}
