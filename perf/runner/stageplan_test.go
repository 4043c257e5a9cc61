package runner_test

import (
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf/plan"

	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// TestRunStagePlan runs two fixed-rate stages against an app with a 1 ms delay through the
// runner: each is a load of its own in the result file, with its own figures and its own
// passing mean bound; the summary has a line per stage. The bounds are loose (500 ms): what is
// tested is that each stage is gated on its own mean, not how fast this machine is.
func TestRunStagePlan(t *testing.T) {
	if testing.Short() {
		t.Skip("2 s of load")
	}
	sc := perf.Scenario{
		Test: "stages", Transport: perf.HTTP,
		Apps:   []perf.App{{Name: "tester", Kind: perf.Tester}, {Name: "slow", Kind: perf.HTTPApp, Args: []string{"-delay=1ms"}}},
		Tester: "tester", Main: perf.Route{To: "slow"},
		MainOptions:   []perf.Option{perf.WithConnections(4)},
		WarmupOptions: []perf.Option{perf.WithQPS(10), perf.WithConnections(2), perf.WithDuration(time.Second)},
		Plan:          &plan.StagePlan{Stages: []perf.Stage{{Name: "fast", QPS: 100, Samples: 100, PayloadBytes: 16}, {Name: "slow-rate", QPS: 20, Samples: 20}}},
		Thresholds: []perf.Threshold{
			{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "test"},
			{Figure: perf.StageMeanFigure("fast"), Op: perf.AtMost, Limit: 0.5, Source: "test"},
			{Figure: perf.StageMeanFigure("slow-rate"), Op: perf.AtMost, Limit: 0.5, Source: "test"},
		},
		SampleInterval: 200 * time.Millisecond,
	}
	dir := t.TempDir()
	rep := runner.Run(t, sc, runner.WithPlatform(&fakePlatform{}), runner.WithReportDir(dir))
	back, err := report.ReadReport(rep.RunPath(dir))
	require.NoError(t, err)
	assert.Equal(t, perf.KindStages, back.Plan)
	require.Len(t, back.Loads, 2)
	assert.Equal(t, "fast", back.Loads[0].Name)
	assert.Equal(t, 100.0, back.Loads[0].RequestedQPS)
	assert.Equal(t, 16, back.Loads[0].Params.PayloadBytes)
	assert.Equal(t, 4, back.Loads[1].Params.Connections, "the scenario's 4 connections, fewer than the rate")
	for _, l := range back.Loads {
		mean := back.Figures.Gates[perf.StageMeanFigure(l.Name)]
		assert.Greater(t, mean, 0.0009, "stage %s: mean of a 1 ms delay", l.Name)
		assert.Less(t, mean, 0.5, "stage %s", l.Name)
	}
	require.Len(t, back.Verdicts, 3)
	assert.True(t, back.Pass, "%v %v", back.Validity.Reasons, back.Verdicts)
	s := report.Summary(back)
	assert.Contains(t, s, "stage plan: 2 stage(s)")
	assert.Contains(t, s, "slow-rate")
}
