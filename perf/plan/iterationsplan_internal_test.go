package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/hdr"
)

func iterationsScenario(runs ...perf.IterationRun) perf.Scenario {
	return perf.Scenario{Test: "iterations", Transport: perf.HTTP, Tester: "tester", Main: perf.Route{To: "app", Method: "sum_series_wf"},
		MainOptions:   []perf.Option{perf.WithPayload("100")},
		WarmupOptions: []perf.Option{perf.WithExecutor(driver.Executor{Kind: driver.SharedIterations, VUs: 2, Iterations: 4, Duration: time.Minute})},
		Plan:          &IterationsPlan{Runs: runs}}
}

// TestScaledIterations: under DAPR_TEST_DURATION a run does its share of Dapr's maxDuration,
// at least one iteration, never more than Dapr's.
func TestScaledIterations(t *testing.T) {
	for _, c := range []struct {
		n      int64
		max, d time.Duration
		want   int64
	}{
		{300, 200 * time.Second, 10 * time.Second, 15},
		{300, 380 * time.Second, 10 * time.Second, 8},
		{1400, 1000 * time.Second, 10 * time.Second, 14},
		{10000, 3600 * time.Second, 10 * time.Second, 28},
		{3, 3600 * time.Second, time.Second, 1},
		{300, 200 * time.Second, time.Hour, 300},
		{300, 200 * time.Second, 0, 300},
	} {
		assert.Equal(t, c.want, ScaledIterations(c.n, c.max, c.d), "%d over %v at %v", c.n, c.max, c.d)
	}
}

// TestIterationsLoads: each run is a shared-iterations executor with Dapr's VUs, iterations and
// maxDuration; the smoke overrides scale the iterations (VUs capped at them), note what they did
// and did not apply, and DAPR_PAYLOAD_SIZE is refused.
func TestIterationsLoads(t *testing.T) {
	runs := []perf.IterationRun{{Name: "t_30_300", VUs: 30, Iterations: 300, MaxDuration: 200 * time.Second, Fresh: false}, {Name: "t_350_1400", VUs: 350, Iterations: 1400, MaxDuration: 1000 * time.Second, Fresh: true}}
	configure := func(t *testing.T) (*iterationsRun, []string) {
		t.Helper()
		sc := iterationsScenario(runs...)
		var cfg perf.RunConfig
		return mustConfigure(t, planOf(sc), sc, &cfg).(*iterationsRun), cfg.Notes
	}
	exec := func(ip *iterationsRun) []driver.Executor {
		var out []driver.Executor
		for _, p := range ip.loads {
			out = append(out, p.Executor)
		}
		return out
	}
	t.Run("Dapr's size", func(t *testing.T) {
		ip, notes := configure(t)
		assert.Equal(t, []driver.Executor{
			{Kind: driver.SharedIterations, VUs: 30, Iterations: 300, Duration: 200 * time.Second},
			{Kind: driver.SharedIterations, VUs: 350, Iterations: 1400, Duration: 1000 * time.Second},
		}, exec(ip))
		assert.Empty(t, notes)
		assert.Equal(t, [][]int{{0}, {1}}, ip.groups(), "the fresh run starts a deployment of its own")
	})
	t.Run("smoke", func(t *testing.T) {
		t.Setenv(perf.EnvDuration, "10s")
		t.Setenv(perf.EnvQPS, "100")
		ip, all := configure(t)
		assert.Equal(t, []driver.Executor{
			{Kind: driver.SharedIterations, VUs: 15, Iterations: 15, Duration: 200 * time.Second},
			{Kind: driver.SharedIterations, VUs: 14, Iterations: 14, Duration: 1000 * time.Second},
		}, exec(ip))
		notes := strings.Join(all, "\n")
		assert.Contains(t, notes, "DAPR_PERF_QPS=100 not applied")
		assert.Contains(t, notes, "t_30_300 15 of 300, t_350_1400 14 of 1400")
	})
	t.Run("payload size refused", func(t *testing.T) {
		t.Setenv(perf.EnvPayloadSize, "10")
		sc := iterationsScenario(runs...)
		err := configureErr(planOf(sc), sc, &perf.RunConfig{})
		assert.ErrorContains(t, err, "DAPR_PAYLOAD_SIZE is not applied")
	})
}

func TestIterationsPlanErrorsNameTheField(t *testing.T) {
	sc := iterationsScenario(perf.IterationRun{Name: "ok", VUs: 1, Iterations: 1, MaxDuration: time.Second, Fresh: false}, perf.IterationRun{Name: "ok", VUs: 1, Iterations: 1, MaxDuration: time.Second, Fresh: false},
		perf.IterationRun{Name: "Bad", VUs: 1, Iterations: 1, MaxDuration: time.Second, Fresh: false}, perf.IterationRun{Name: "v", VUs: 0, Iterations: 1, MaxDuration: time.Second, Fresh: false},
		perf.IterationRun{Name: "i", VUs: 1, Iterations: 0, MaxDuration: time.Second, Fresh: false}, perf.IterationRun{Name: "d", VUs: 1, Iterations: 1, MaxDuration: 0, Fresh: false})
	sc.WarmupOptions = nil
	err := configureErr(planOf(sc), sc, &perf.RunConfig{})
	require.Error(t, err)
	for _, w := range []string{`Runs[1] ("ok").Name = "ok": must be distinct`, `Runs[2] ("Bad").Name`, `Runs[3] ("v").VUs = 0: must be from 1`,
		`Runs[4] ("i").Iterations = 0`, `Runs[5] ("d").MaxDuration = 0s`, "WarmupOptions must set a driver executor"} {
		assert.Contains(t, err.Error(), w)
	}
}

// TestIterationsFigures: per run its rate and percentiles; errors and unfinished iterations
// (dropped or interrupted: planned minus completed) summed over the runs.
func TestIterationsFigures(t *testing.T) {
	load := func(name string, ms []int, failed int64, planned int64, elapsed time.Duration) perf.NamedLoad {
		h := hdr.New()
		for _, v := range ms {
			h.Record(time.Duration(v) * time.Millisecond)
		}
		lat, err := perf.NewLatency(h, []float64{50, 90, 95, 99})
		require.NoError(t, err)
		codes := map[string]int64{"200": int64(len(ms)) - failed}
		if failed > 0 {
			codes["500"] = failed
		}
		return perf.NamedLoad{Name: name, Result: perf.Result{Requests: int64(len(ms)), RetCodes: codes, Latency: lat,
			ActualDuration: elapsed, ActualQPS: float64(len(ms)) / elapsed.Seconds(),
			Executor: &perf.ExecutorStats{Kind: driver.SharedIterations, Iterations: int64(len(ms)), Scheduled: planned, MaxVUs: 2}}}
	}
	ms := make([]int, 100)
	for i := range ms {
		ms[i] = i + 1 // 1..100 ms
	}
	r := &perf.Report{Plan: perf.KindIterations, Loads: []perf.NamedLoad{load("a", ms, 0, 100, 10*time.Second), load("b", ms[:10], 2, 12, time.Second)}}
	f := report.DeriveFigures(r)
	assert.InDelta(t, 10.0, f.Gates[perf.RunFigureRate("a")], 1e-9)
	assert.InDelta(t, 0.050, f.Gates[perf.RunFigurePercentile("a", 50)], 0.001)
	assert.InDelta(t, 0.095, f.Gates[perf.RunFigurePercentile("a", 95)], 0.001)
	assert.InDelta(t, 0.099, f.Gates[perf.RunFigurePercentile("a", 99)], 0.001)
	assert.Equal(t, 2.0, f.Gates["errors"])
	assert.Equal(t, 2.0, f.Gates[perf.IterationsUnfinishedFigure], "run b completed 10 of 12")
	assert.Equal(t, "run.a.p99_9", perf.RunFigurePercentile("a", 99.9))
	s := report.Summary(r)
	assert.Contains(t, s, "iterations plan: 2 run(s)")
	assert.Regexp(t, `a\s+2\s+100\s+100\s+0\s+10.00\s+10.00\s+50.0`, s)
}
