package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func stageScenario(stages ...perf.Stage) perf.Scenario {
	return perf.Scenario{Test: "stages", Transport: perf.HTTP, Tester: "tester", Main: perf.Route{To: "app", ThroughSidecar: true},
		MainOptions: []perf.Option{perf.WithConnections(16)}, WarmupOptions: []perf.Option{perf.WithQPS(10), perf.WithDuration(time.Second)},
		Plan: &StagePlan{Stages: stages}}
}

// TestStageLoads: a stage lasts Samples/QPS (at least 1 s), with at most as many connections as
// its rate; DAPR_TEST_DURATION cuts a longer stage and DAPR_PERF_QPS caps the rate.
func TestStageLoads(t *testing.T) {
	stages := []perf.Stage{{Name: "a", QPS: 200, Samples: 200, PayloadBytes: 2048}, {Name: "b", QPS: 10, Samples: 200, PayloadBytes: 31744}, {Name: "c", QPS: 1, Samples: 200, PayloadBytes: 0}, {Name: "d", QPS: 400, Samples: 100, PayloadBytes: 1}}
	loads := func(t *testing.T) []perf.Params {
		t.Helper()
		sc := stageScenario(stages...)
		var cfg perf.RunConfig
		return mustConfigure(t, planOf(sc), sc, &cfg).(*stageRun).loads
	}
	type want struct {
		qps, conns, payload int
		d                   time.Duration
	}
	got := func(ps []perf.Params) []want {
		var out []want
		for _, p := range ps {
			out = append(out, want{p.QPS, p.Connections, p.PayloadBytes, p.Duration})
		}
		return out
	}
	t.Run("Dapr's length", func(t *testing.T) {
		assert.Equal(t, []want{{200, 16, 2048, time.Second}, {10, 10, 31744, 20 * time.Second}, {1, 1, 0, 200 * time.Second}, {400, 16, 1, time.Second}}, got(loads(t)))
	})
	t.Run("smoke", func(t *testing.T) {
		t.Setenv(perf.EnvDuration, "10s")
		t.Setenv(perf.EnvQPS, "100")
		assert.Equal(t, []want{{100, 16, 2048, 2 * time.Second}, {10, 10, 31744, 10 * time.Second}, {1, 1, 0, 10 * time.Second}, {100, 16, 1, time.Second}}, got(loads(t)))
	})
}

func TestStagePlanErrorsNameTheField(t *testing.T) {
	sc := stageScenario(perf.Stage{Name: "ok", QPS: 10, Samples: 10, PayloadBytes: 0}, perf.Stage{Name: "ok", QPS: 10, Samples: 10, PayloadBytes: 0}, perf.Stage{Name: "Bad Name", QPS: 10, Samples: 10, PayloadBytes: 0}, perf.Stage{Name: "q", QPS: 0, Samples: 10, PayloadBytes: 0}, perf.Stage{Name: "s", QPS: 10, Samples: 0, PayloadBytes: 0}, perf.Stage{Name: "p", QPS: 10, Samples: 10, PayloadBytes: -1})
	err := configureErr(planOf(sc), sc, &perf.RunConfig{})
	require.Error(t, err)
	for _, w := range []string{`Stages[1] ("ok").Name = "ok": must be distinct`, `Stages[2] ("Bad Name").Name`, `Stages[3] ("q").QPS = 0: must be from 1`,
		`Stages[4] ("s").Samples = 0: must be at least 1`, `Stages[5] ("p").PayloadBytes = -1`} {
		assert.Contains(t, err.Error(), w)
	}
	t.Setenv(perf.EnvPayloadSize, "10")
	sc = stageScenario(perf.Stage{Name: "ok", QPS: 10, Samples: 10, PayloadBytes: 0})
	err = configureErr(planOf(sc), sc, &perf.RunConfig{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "DAPR_PAYLOAD_SIZE and DAPR_PAYLOAD are not applied")
	empty := stageScenario()
	assert.ErrorContains(t, configureErr(planOf(empty), empty, &perf.RunConfig{}), "Stages is empty")
}

// TestStageFigures: each stage is a phase of the figures under its name, gated on its own mean.
func TestStageFigures(t *testing.T) {
	load := func(name string, mean float64, qps float64, errs int64) perf.NamedLoad {
		codes := map[string]int64{"200": 100 - errs}
		if errs > 0 {
			codes["503"] = errs
		}
		return perf.NamedLoad{Name: name, Result: perf.Result{RequestedQPS: 10, ActualQPS: qps, Requests: 100, RetCodes: codes, Latency: perf.Latency{AvgSeconds: mean}}}
	}
	r := &perf.Report{Plan: perf.KindStages, Loads: []perf.NamedLoad{load("a", 0.0004, 10, 0), load("b", 0.0021, 9.5, 3)}}
	f := report.DeriveFigures(r)
	assert.Equal(t, 0.0004, f.Gates[perf.StageMeanFigure("a")])
	assert.Equal(t, 0.0021, f.Gates[perf.StageMeanFigure("b")])
	assert.Equal(t, 3.0, f.Gates["errors"])
	assert.Equal(t, 0.95, f.Gates["qps.ratio"])
	require.Len(t, f.Phases, 2)
	assert.Equal(t, "b", f.Phases[1].Phase)
	assert.NotEmpty(t, f.NoOverhead)
	vs := report.Evaluate([]perf.Threshold{{Figure: perf.StageMeanFigure("a"), Op: perf.AtMost, Limit: 0.001}, {Figure: perf.StageMeanFigure("b"), Op: perf.AtMost, Limit: 0.001}}, f.Gates)
	assert.True(t, vs[0].Pass)
	assert.False(t, vs[1].Pass)
	assert.True(t, strings.HasPrefix(vs[1].String(), "stage.b.mean = 2.100 ms, at most 1.000 ms"), vs[1].String())
}
