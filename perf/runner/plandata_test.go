package runner_test

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"
)

// TestOneScenarioRunsTwiceAndTwoAtOnce: plans are data. One scenario value, whose stage plan
// resolves each stage's load per run, runs twice in a row and then in two runs at once, each
// run under its own environment (runner.WithEnv: DAPR_PERF_QPS caps every stage's rate). Each
// result has its own run's loads, and the plan value is the same after the four runs as before.
func TestOneScenarioRunsTwiceAndTwoAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("four runs of 1 s stages")
	}
	sc := perf.Scenario{
		Test: "stages", Transport: perf.HTTP,
		Apps:   []perf.App{{Name: "tester", Kind: perf.Tester}, {Name: "app", Kind: perf.HTTPApp}},
		Tester: "tester", Main: perf.Route{To: "app"},
		MainOptions:   []perf.Option{perf.WithConnections(2)},
		WarmupOptions: []perf.Option{perf.WithQPS(10), perf.WithConnections(2), perf.WithDuration(time.Second)},
		Plan:          &plan.StagePlan{Stages: []perf.Stage{{Name: "a", QPS: 80, Samples: 80}, {Name: "b", QPS: 40, Samples: 40}}},
		Thresholds:    []perf.Threshold{{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "test"}},
		IdleWindow:    time.Nanosecond, // the idle window is not what this test is about
	}
	before, err := json.Marshal(sc.Plan)
	require.NoError(t, err)

	// run runs sc under DAPR_PERF_QPS=qps and DAPR_TEST_DURATION=1s, and checks that each stage
	// ran at its own rate capped at qps.
	run := func(t *testing.T, qps int) {
		d := time.Second
		dir := t.TempDir()
		rep := runner.Run(t, sc, runner.WithPlatform(&fakePlatform{}), runner.WithReportDir(dir),
			runner.WithEnv(perf.Env{QPS: &qps, Duration: &d}))
		back, err := report.ReadReport(rep.RunPath(dir))
		require.NoError(t, err)
		require.Len(t, back.Loads, 2)
		assert.Equal(t, float64(min(80, qps)), back.Loads[0].RequestedQPS, "stage a under DAPR_PERF_QPS=%d", qps)
		assert.Equal(t, float64(min(40, qps)), back.Loads[1].RequestedQPS, "stage b under DAPR_PERF_QPS=%d", qps)
		assert.Contains(t, back.Load.Overrides, "DAPR_PERF_QPS="+strconv.Itoa(qps), "the result records its own run's override")
	}
	t.Run("twice", func(t *testing.T) {
		t.Run("first", func(t *testing.T) { run(t, 60) })
		t.Run("second", func(t *testing.T) { run(t, 30) })
	})
	t.Run("two at once", func(t *testing.T) {
		t.Run("a", func(t *testing.T) { t.Parallel(); run(t, 50) })
		t.Run("b", func(t *testing.T) { t.Parallel(); run(t, 20) })
	})
	after, err := json.Marshal(sc.Plan)
	require.NoError(t, err)
	assert.JSONEq(t, string(before), string(after), "the plan value is never written by a run")
}
