package perf_test

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// calibration routes the baseline to a plain httpapp and the "sidecar" path to one with a fixed
// 1 ms delay: the overhead Run measures must then be 1 ms.
func calibration() perf.Scenario {
	return perf.Scenario{
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
	}
}

func TestRunMeasuresAKnownOverhead(t *testing.T) {
	if testing.Short() {
		t.Skip("three rounds of 2 s load")
	}
	t.Setenv(perf.EnvRepeats, "3")
	dir := t.TempDir()
	rep := perf.Run(t, calibration(), perf.WithPlatform(&fakePlatform{}), perf.WithReportDir(dir))

	require.Len(t, rep.Rounds, 3)
	p50, ok := rep.OverheadOf("p50")
	require.True(t, ok)
	assert.GreaterOrEqual(t, p50.MedianSeconds, 0.0009, "p50 overhead of a 1 ms delay")
	assert.LessOrEqual(t, p50.MedianSeconds, 0.0012, "p50 overhead of a 1 ms delay")
	assert.True(t, p50.HasInterval)
	assert.LessOrEqual(t, p50.LowSeconds, p50.MedianSeconds, "the interval contains the median")
	assert.GreaterOrEqual(t, p50.HighSeconds, p50.MedianSeconds, "the interval contains the median")
	assert.Equal(t, p50.HighSeconds, p50.GateSeconds(), "with 3 rounds the gate is the upper bound")

	back, err := perf.ReadReport(rep.RunPath(dir))
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
		perf.Run(t, calibration(), perf.WithPlatform(p), perf.WithReportDir(t.TempDir()))
		return
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestBadEnvFailsBeforeAnyProcessStarts$", "-test.v")
	cmd.Env = append(os.Environ(), "DAPRPERF_CHILD=bad-env", "DAPR_PERF_QPS=abc")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the child must fail:\n%s", out)
	assert.Contains(t, string(out), `DAPR_PERF_QPS="abc"`)
	assert.NotContains(t, string(out), "PLATFORM STARTED")
}
