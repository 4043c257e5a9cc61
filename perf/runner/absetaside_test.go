package runner_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"
)

// An A/B run whose build B stalls in its first main phase: ten requests held 150 ms each on 2
// connections with a 20 ms slot (100 QPS) leave most of that phase's schedule behind. The run
// sets that round aside, keeps its phases in the result file, runs the round again (build B no
// longer stalls) and is valid on the rounds it kept. The stall starts at B's 40th request:
// after its warmup's (10 QPS x 1 s on 2 connections) and within its first main phase's 100.
// A busy machine may also leave a 1 s phase one request behind (1 %): up to 3 rounds may be
// set aside, and the stalled phase must be among them.
func TestABRoundThatFellBehindIsSetAsideAndRunAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("an A/B run of 1 s phases, one round run twice")
	}
	t.Setenv(perf.EnvABMaxRounds, "1")
	t.Setenv(perf.EnvABSetAside, "3")
	sc := calibration()
	sc.Test = "setaside"
	sc.MainOptions = []perf.Option{perf.WithQPS(100), perf.WithConnections(2), perf.WithDuration(time.Second)}
	sc.WarmupOptions = []perf.Option{perf.WithQPS(10), perf.WithConnections(2), perf.WithDuration(time.Second)}
	sc.Thresholds = []perf.Threshold{{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "test"}}
	dir := t.TempDir()
	fp := &fakePlatform{stallB: &stall{from: 40, to: 50, hold: 150 * time.Millisecond}}
	rep := runner.Run(t, sc, runner.WithPlatform(fp), runner.WithReportDir(dir))

	require.NotNil(t, rep.AB, "an A/B run")
	assert.Len(t, rep.Rounds, 1, "build A's rounds counted")
	assert.Len(t, rep.AB.Rounds, 1, "build B's rounds counted")
	require.NotEmpty(t, rep.AB.SetAside, "the stalled round set aside")
	stalled := -1
	for i, sa := range rep.AB.SetAside {
		assert.Equal(t, 1, sa.Round)
		assert.Equal(t, "AB", sa.Order)
		require.NotEmpty(t, sa.Reasons)
		assert.Contains(t, sa.Reasons[0], "round 1 "+sa.Phase)
		require.NotNil(t, sa.Baseline, "a set-aside round keeps its baseline")
		if sa.Phase == perf.SetAsideMainB && stalled < 0 {
			stalled = i
		}
	}
	require.GreaterOrEqual(t, stalled, 0, "build B's stalled main phase set its round aside: %+v", rep.AB.SetAside)
	sa := rep.AB.SetAside[stalled]
	require.NotNil(t, sa.A, "the round keeps build A's main phase")
	require.NotNil(t, sa.B, "and build B's, the one that fell behind")
	assert.Greater(t, sa.B.Schedule.BehindFraction(), 0.3, "the stall left most of B's schedule behind")
	assert.Empty(t, report.PhaseInvalidReasons("B", &rep.AB.Rounds[0].Main), "the round run again kept its schedule")
	assert.True(t, rep.Validity.Valid, "valid on the rounds kept: %v", rep.Validity.Reasons)
	require.NotNil(t, rep.AB.Stop)
	assert.Equal(t, len(rep.AB.SetAside), rep.AB.Stop.SetAside)
	assert.Equal(t, 3, rep.AB.Stop.SetAsideLimit)
	assert.Contains(t, report.StopLine(rep.AB.Stop), "set aside and run again")

	back, err := report.ReadReport(rep.RunPath(dir))
	require.NoError(t, err, "the result file is written and parses")
	require.NotNil(t, back.AB)
	require.Len(t, back.AB.SetAside, len(rep.AB.SetAside), "the set-aside rounds are in the result file")
	assert.Equal(t, sa.B.Requests, back.AB.SetAside[stalled].B.Requests)
}

func TestABSetAsideFromEnv(t *testing.T) {
	ptr := func(n int) *int { return &n }
	for _, c := range []struct {
		set       *int
		maxRounds int
		want      int
	}{
		{nil, 1, 1}, {nil, 16, 2}, {nil, 80, 10}, {ptr(0), 80, 0}, {ptr(3), 16, 3},
	} {
		assert.Equal(t, c.want, perf.ABSetAsideFromEnv(perf.Env{ABSetAside: c.set}, c.maxRounds), "set %v, budget %d", c.set, c.maxRounds)
	}
}
