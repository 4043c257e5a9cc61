package runner_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"
)

// TestRunCurvePlan runs a short cost curve through the runner against an app with a 1 ms
// delay, with DAPR_PERF_QPS=80 capping it: 2 rounds at each of 20, 40 and 80 requests/s, then
// one search that doubles from 20 to the cap. Every load is in the result file, each round's
// figures and the app's CPU are in its curve, the search ends at the cap, and the summary has
// the curve's table. The bound is loose (500 ms): what is tested is the plan's course, not
// this machine's speed.
func TestRunCurvePlan(t *testing.T) {
	if testing.Short() {
		t.Skip("about 10 s of load")
	}
	t.Setenv(perf.EnvQPS, "80")
	sc := perf.Scenario{
		Test: "curve", Transport: perf.HTTP,
		Apps:   []perf.App{{Name: "tester", Kind: perf.Tester}, {Name: "slow", Kind: perf.HTTPApp, Args: []string{"-delay=1ms"}}},
		Tester: "tester", Main: perf.Route{To: "slow"},
		MainOptions:   []perf.Option{perf.WithConnections(4)},
		WarmupOptions: []perf.Option{perf.WithQPS(10), perf.WithConnections(2), perf.WithDuration(time.Second)},
		Plan: &plan.CurvePlan{Rates: []int{20, 40, 100}, Rounds: 2, Duration: time.Second, P99: 500 * time.Millisecond, BoundSource: "test",
			Searches: 1, SearchStart: 20, Resolution: 0.1},
		Thresholds:     []perf.Threshold{{Figure: perf.CurveSpreadFigure, Op: perf.AtMost, Limit: 0.05, Source: "test"}},
		SampleInterval: 200 * time.Millisecond,
	}
	dir := t.TempDir()
	rep := runner.Run(t, sc, runner.WithPlatform(&fakePlatform{}), runner.WithReportDir(dir))
	back, err := report.ReadReport(rep.RunPath(dir))
	require.NoError(t, err)
	assert.Equal(t, perf.KindCurve, back.Plan)
	require.NotNil(t, back.Curve)
	var offered []int
	for _, pt := range back.Curve.Points {
		offered = append(offered, pt.OfferedQPS)
		require.Len(t, pt.Rounds, 2)
		for _, rd := range pt.Rounds {
			assert.True(t, rd.Pass, "%s: %s", rd.Load, rd.Why)
			assert.Greater(t, rd.P50, 0.0009, "a 1 ms delay")
			require.NotEmpty(t, rd.CPU, "the app's CPU")
			assert.Equal(t, perf.RoleApp, rd.CPU[0].Role)
		}
	}
	assert.Equal(t, []int{20, 40, 80}, offered, "DAPR_PERF_QPS caps the rates and is offered itself")
	require.Len(t, back.Curve.Searches, 1)
	s := back.Curve.Searches[0]
	assert.Equal(t, 80, s.HighestQPS)
	var steps []int
	for _, st := range s.Steps {
		steps = append(steps, st.OfferedQPS)
	}
	assert.Equal(t, []int{20, 20, 40, 40, 80, 80}, steps, "two loads alike settle a rate")
	assert.Len(t, back.Loads, 3*2+6, "every load recorded")
	assert.Equal(t, "curve-20qps-r1", back.Loads[0].Name)
	assert.Equal(t, "search1-step5-80qps", back.Loads[10].Name)

	pts := report.CurvePoints(back)
	require.Len(t, pts, 3)
	require.NotEmpty(t, pts[2].CPU)
	assert.Greater(t, pts[2].CPU[0].Micros(), 0.0)
	assert.Equal(t, 80.0, back.Figures.Gates[perf.CurveHighestFigure])
	assert.Equal(t, 0.0, back.Figures.Gates[perf.CurveSpreadFigure])
	assert.True(t, back.Validity.Valid, back.Validity.Reasons)
	assert.True(t, back.Pass, "%v", back.Verdicts)
	sum := report.Summary(back)
	assert.Contains(t, sum, "curve plan: 3 rate(s)")
	assert.Contains(t, sum, "highest rate within the bound: 80 requests/s, the median of 1 searches [80]")
	assert.Contains(t, sum, "search 1: 20 pass, 20 pass, 40 pass, 40 pass, 80 pass, 80 pass; every rate up to the highest offered, 80 requests/s, kept the bound")
}
