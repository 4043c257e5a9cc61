package runner_test

import (
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/internal/promtest"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
	"github.com/daprperf/daprperf/perf/push"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"
)

// A run with DAPR_PERF_PROMETHEUS_WRITE_URL is written, after its result file, to a real
// Prometheus at its start time; a run whose write fails keeps its result and passes, the
// failure a warning in the result file.
func TestRunWritesToPrometheus(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs of 1 s stages")
	}
	prom := promtest.Start(t, promtest.Options{OutOfOrderWindow: "10y"})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + l.Addr().String() + "/api/v1/write"
	require.NoError(t, l.Close())

	sc := perf.Scenario{
		Test: "stages", Transport: perf.HTTP,
		Apps:   []perf.App{{Name: "tester", Kind: perf.Tester}, {Name: "app", Kind: perf.HTTPApp}},
		Tester: "tester", Main: perf.Route{To: "app"},
		MainOptions:   []perf.Option{perf.WithConnections(2)},
		WarmupOptions: []perf.Option{perf.WithQPS(10), perf.WithConnections(2), perf.WithDuration(time.Second)},
		Plan:          &plan.StagePlan{Stages: []perf.Stage{{Name: "a", QPS: 40, Samples: 40}}},
		Thresholds:    []perf.Threshold{{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "test"}},
		IdleWindow:    time.Nanosecond,
	}
	// A stall of a busy machine can leave a 1 s stage of 40 requests invalid (one request late
	// is 2.5 %); what is tested is the write, so an invalid run runs once more.
	run := func(t *testing.T, url, runID string) *perf.Report {
		d, retries := time.Second, 1
		dir := t.TempDir()
		rep := runner.Run(t, sc, runner.WithPlatform(&fakePlatform{}), runner.WithReportDir(dir),
			runner.WithEnv(perf.Env{Duration: &d, RunID: &runID, PrometheusWriteURL: &url, InvalidRetries: &retries}))
		back, err := report.ReadReport(rep.RunPath(dir))
		require.NoError(t, err)
		return back
	}

	t.Run("written", func(t *testing.T) {
		rep := run(t, prom.URL, "write-ok")
		got := prom.Query(t, `daprperf_load_qps{run_id="write-ok"}`, rep.Environment.StartTime)
		require.Len(t, got, 1, "the run's achieved rate at its start time")
		assert.Equal(t, rep.Loads[0].ActualQPS, got[0].Value)
		for k, want := range map[string]string{"load": "a", "platform": "fake", "transport": "http", "test": "stages_http", "job": push.PushJob} {
			assert.Equal(t, want, got[0].Labels[k], "label %s", k)
		}
		assert.Empty(t, prom.Query(t, `daprperf_load_qps{run_id="write-ok"}`, rep.Environment.StartTime.Add(-time.Minute)),
			"no sample before the run's start")
	})
	ok := t.Run("write fails", func(t *testing.T) {
		rep := run(t, closed, "write-fails")
		assert.True(t, rep.Pass, "a failed write does not fail the run")
		assert.Empty(t, rep.InfraErrors)
		assert.True(t, slices.ContainsFunc(rep.Warnings, func(w string) bool {
			return strings.Contains(w, "prometheus remote write to "+closed)
		}), "the result file's warnings name the failed write: %q", rep.Warnings)
	})
	assert.True(t, ok, "a run whose remote write failed passes")
}
