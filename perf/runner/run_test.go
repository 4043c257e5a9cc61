package runner_test

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
)

// calibration routes the baseline to a plain httpapp and the "sidecar" path to one with a fixed
// 1 ms delay: the overhead Run measures must then be 1 ms.
func calibration() perf.Scenario {
	return perf.Scenario{
		Plan:      plan.OverheadPlan{},
		Test:      "calibration",
		Transport: perf.HTTP,
		Apps: []perf.App{
			{Name: "tester", Kind: perf.Tester},
			{Name: "fast", Kind: perf.HTTPApp},
			{Name: "slow", Kind: perf.HTTPApp, Args: []string{"-delay=1ms"}},
		},
		Tester:        "tester",
		Baseline:      perf.Route{To: "fast"},
		Main:          perf.Route{To: "slow"},
		MainOptions:   []perf.Option{perf.WithQPS(200), perf.WithConnections(8), perf.WithDuration(2 * time.Second)},
		WarmupOptions: []perf.Option{perf.WithQPS(100), perf.WithConnections(8), perf.WithDuration(time.Second)},
		Thresholds: []perf.Threshold{
			{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "test"},
			{Figure: "overhead.p50", Op: perf.AtMost, Limit: 0.0012, Source: "test"},
		},
		SampleInterval: 200 * time.Millisecond,
		// 10 samples at 200 ms. The runner's tests are not about the idle window (10 s unless a
		// scenario says otherwise), which would be most of each child run's time.
		IdleWindow: 2 * time.Second,
	}
}

func TestRunMeasuresAKnownOverhead(t *testing.T) {
	if testing.Short() {
		t.Skip("three rounds of 2 s load")
	}
	t.Setenv(perf.EnvRepeats, "3")
	dir := t.TempDir()
	fp := &fakePlatform{}
	rep := runner.Run(t, calibration(), runner.WithPlatform(fp), runner.WithReportDir(dir))
	// The tester was capped at twice the scenario's largest load (main 200 QPS x 8 x 2 s,
	// warmup 100 x 8 x 1 s; 400 planned requests), and every load got through its token check.
	assert.Equal(t, &perf.TesterLimits{MaxQPS: 400, MaxConnections: 16, MaxDuration: 4 * time.Second, MaxIterations: 800}, fp.limits["tester"])
	assert.Nil(t, calibration().Apps[0].TesterLimits, "the scenario itself is not changed")

	require.Len(t, rep.Rounds, 3)
	p50, ok := rep.OverheadOf("p50")
	require.True(t, ok)
	assert.GreaterOrEqual(t, p50.MedianSeconds, 0.0009, "p50 overhead of a 1 ms delay")
	assert.LessOrEqual(t, p50.MedianSeconds, 0.0012, "p50 overhead of a 1 ms delay")
	assert.True(t, p50.HasInterval)
	assert.LessOrEqual(t, p50.LowSeconds, p50.MedianSeconds, "the interval contains the median")
	assert.GreaterOrEqual(t, p50.HighSeconds, p50.MedianSeconds, "the interval contains the median")
	assert.Equal(t, p50.HighSeconds, p50.GateSeconds(), "with 3 rounds the gate is the upper bound")

	back, err := report.ReadReport(rep.RunPath(dir))
	require.NoError(t, err, "the result file is written and parses")
	assert.Equal(t, rep.RunID, back.RunID)
	assert.Len(t, back.Rounds[0].Resources, 3, "a series per process")
	assert.True(t, back.Validity.Valid, "%v", back.Validity.Reasons)
}

// TestBadEnvFailsBeforeAnyProcessStarts runs Run in a child test process with a bad
// DAPR_PERF_QPS and checks that it failed naming it, without starting the platform.
func TestBadEnvFailsBeforeAnyProcessStarts(t *testing.T) {
	if os.Getenv("DAPRPERF_CHILD") == "bad-env" {
		p := &fakePlatform{}
		defer func() {
			if p.started.Load() > 0 {
				os.Stdout.WriteString("PLATFORM STARTED\n")
			}
		}()
		runner.Run(t, calibration(), runner.WithPlatform(p), runner.WithReportDir(t.TempDir()))
		return
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestBadEnvFailsBeforeAnyProcessStarts$", "-test.v")
	cmd.Env = append(os.Environ(), "DAPRPERF_CHILD=bad-env", "DAPR_PERF_QPS=abc")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the child must fail:\n%s", out)
	assert.Contains(t, string(out), `DAPR_PERF_QPS="abc"`)
	assert.NotContains(t, string(out), "PLATFORM STARTED")
}

// ladderScenario loads, through its "sidecar" route, an app that answers in 20 ms on 4
// connections: at most 200 QPS. From 1000 QPS the preflight must step down to 100, where each
// connection has a 40 ms slot for a 20 ms request, over 4 s phases (400 requests): 20 ms of slack
// for the scheduler, and 4 late requests still within the 1 % limit (10 ms on 2 connections over
// 2 s leaves too little room for a busy machine's noise). The last request's 20 ms is 0.5 % of a
// phase, under the 1 % the QPS ratio allows.
func ladderScenario() perf.Scenario {
	sc := calibration()
	sc.Test = "ladder"
	sc.Apps[2].Args = []string{"-delay=20ms"}
	sc.MainOptions = []perf.Option{perf.WithQPS(1000), perf.WithConnections(4), perf.WithDuration(4 * time.Second)}
	sc.WarmupOptions = []perf.Option{perf.WithQPS(50), perf.WithConnections(4), perf.WithDuration(time.Second)}
	sc.Thresholds = []perf.Threshold{{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "test"}}
	return sc
}

func TestPreflightStepsDownTheLadder(t *testing.T) {
	if testing.Short() {
		t.Skip("up to four 2 s preflight loads and a round")
	}
	t.Setenv(perf.EnvPreflight, "ladder")
	dir := t.TempDir()
	rep := runner.Run(t, ladderScenario(), runner.WithPlatform(&fakePlatform{}), runner.WithReportDir(dir))

	pf := rep.Preflight
	require.NotNil(t, pf, "the preflight ran")
	assert.Equal(t, []int{1000, 500, 250, 100}, pf.Ladder)
	require.Len(t, pf.Steps, 4, "%+v", pf.Steps)
	for i, s := range pf.Steps[:3] {
		assert.False(t, s.Kept, "step %d (%d QPS) on a 200 QPS app: %+v", i, s.QPS, s)
		assert.Less(t, s.ActualQPS, 0.99*float64(s.QPS), "step %d", i)
	}
	assert.True(t, pf.Steps[3].Kept, "100 QPS on a 200 QPS app: %+v", pf.Steps[3])
	assert.Equal(t, 100, pf.ChosenQPS)
	assert.Equal(t, 100, rep.Params.QPS, "the run used the chosen load")
	assert.Equal(t, 100, rep.Rounds[0].Main.Params.QPS)
	assert.Contains(t, pf.Note, "Dapr's 1000 QPS needs more than this machine's")
	assert.Contains(t, pf.Note, "ran at 100 QPS")
	assert.True(t, rep.Validity.Valid, "%v", rep.Validity.Reasons)
	assert.Contains(t, report.Summary(rep), pf.Note)

	back, err := report.ReadReport(rep.RunPath(dir))
	require.NoError(t, err)
	require.NotNil(t, back.Preflight, "the result file keeps the preflight")
	assert.Equal(t, pf.Note, back.Preflight.Note)
}

// With PreflightBaseline and its own Ladder, a scenario whose baseline route is the slow one
// (2 connections to a 10 ms app: at most 200 QPS) steps down its own ladder until the
// baseline keeps the load too, though the main route (a fast app) keeps every rung.
func TestPreflightProbesTheBaselineRoute(t *testing.T) {
	if testing.Short() {
		t.Skip("up to six 2 s preflight loads and a round")
	}
	t.Setenv(perf.EnvPreflight, "ladder")
	sc := ladderScenario()
	sc.Baseline, sc.Main = perf.Route{To: "slow"}, perf.Route{To: "fast"}
	sc.MainOptions = []perf.Option{perf.WithQPS(400), perf.WithConnections(4), perf.WithDuration(4 * time.Second)}
	sc.Ladder = []int{400, 100}
	sc.PreflightBaseline = true
	rep := runner.Run(t, sc, runner.WithPlatform(&fakePlatform{}), runner.WithReportDir(t.TempDir()))

	pf := rep.Preflight
	require.NotNil(t, pf, "the preflight ran")
	assert.Equal(t, []int{400, 100}, pf.Ladder)
	require.Len(t, pf.Steps, 2, "%+v", pf.Steps)
	assert.False(t, pf.Steps[0].Kept, "400 QPS: the baseline's 200 QPS app cannot keep it: %+v", pf.Steps[0])
	assert.Less(t, pf.Steps[0].ActualQPS, 0.99*400, "a rung's QPS is its worst route's")
	assert.True(t, pf.Steps[1].Kept, "%+v", pf.Steps[1])
	assert.Equal(t, 100, rep.Params.QPS)
	assert.Contains(t, pf.Note, "ran at 100 QPS")
}

func TestPreflightKeepsARequestedLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("a round of 2 s loads")
	}
	t.Setenv(perf.EnvPreflight, "ladder")
	t.Setenv(perf.EnvQPS, "100")
	rep := runner.Run(t, ladderScenario(), runner.WithPlatform(&fakePlatform{nodes: map[string]string{"tester": "node-a", "testapp": "node-b"}}), runner.WithReportDir(t.TempDir()))
	assert.Equal(t, map[string]string{"tester": "node-a", "testapp": "node-b"}, rep.Environment.Nodes, "a placed deployment's nodes are in the result")
	assert.Nil(t, rep.Preflight, "DAPR_PERF_QPS set: no preflight")
	assert.Equal(t, 100, rep.Params.QPS)
	if assert.NotNil(t, rep.Load, "the result says whose load ran") {
		assert.Contains(t, rep.Load.Overrides, "DAPR_PERF_QPS=100")
	}
}

// With DAPR_PERF_TESTER_REPLICAS=2 the runner starts two testers, splits every phase between
// them, and the result file keeps the merge and each tester's share.
func TestTwoTestersShareEachPhase(t *testing.T) {
	if testing.Short() {
		t.Skip("a round of 2 s loads")
	}
	t.Setenv(perf.EnvTesterReplicas, "2")
	dir := t.TempDir()
	fp := &fakePlatform{}
	sc := calibration()
	sc.Thresholds = sc.Thresholds[:1] // errors only: this test is about the split, not the overhead
	rep := runner.Run(t, sc, runner.WithPlatform(fp), runner.WithReportDir(dir))
	assert.Contains(t, fp.limits, "tester-2", "the second tester was started")
	back, err := report.ReadReport(rep.RunPath(dir))
	require.NoError(t, err)
	require.Len(t, back.Rounds, 1)
	for _, res := range []perf.Result{back.Rounds[0].Baseline, back.Rounds[0].Main} {
		require.Len(t, res.Testers, 2)
		assert.Equal(t, 200, res.Params.QPS)
		assert.Equal(t, res.Testers[0].Requests+res.Testers[1].Requests, res.Requests)
		assert.Equal(t, 100, res.Testers[1].Params.QPS)
		assert.Equal(t, 4, res.Testers[1].Params.Connections)
		assert.EqualValues(t, 400, res.Requests)
	}
	require.NotNil(t, back.Load)
	assert.Equal(t, 2, back.Load.Testers)
	assert.Contains(t, back.Load.Overrides, "DAPR_PERF_TESTER_REPLICAS=2")
	assert.Contains(t, report.Summary(back), "split over 2 testers")
	assert.Contains(t, report.Summary(back), "the testers' starts at most")
	assert.Equal(t, perf.RoleTester, back.Rounds[0].Resources[3].Role, "%+v", back.Rounds[0].Resources)
}
