package report

import (
	"fmt"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEvaluateAndString(t *testing.T) {
	vs := Evaluate(perf.DefaultThresholds(perf.HTTP), map[string]float64{"errors": 0, "restarts": 1, "qps.ratio": 0.995, "overhead.p90": 0.00148})
	require.Len(t, vs, 5)
	assert.Equal(t, "errors = 0, at most 0 (Dapr v1.17 perf suite): pass", vs[0].String())
	assert.Equal(t, "restarts = 1, at most 0 (Dapr v1.17 perf suite): FAIL", vs[1].String())
	assert.True(t, vs[2].Pass)
	assert.Equal(t, "overhead.p90 = 1.480 ms, above 0.000 ms (Dapr v1.17 perf suite: the sidecars add time): pass", vs[3].String())
	assert.Equal(t, "overhead.p90 = 1.480 ms, at most 2.000 ms (Dapr v1.17 perf suite): pass", vs[4].String())

	missing := Evaluate(perf.DefaultThresholds(perf.GRPC), map[string]float64{})
	assert.False(t, missing[0].Pass, "a figure that was not measured fails")
	assert.Contains(t, missing[4].String(), "not measured")
	assert.InDelta(t, 0.0025, missing[4].Limit, 1e-12, "gRPC p90 bound")
}

// Dapr's comparisons, strict and not, at their limits: > 0.99 fails at exactly 0.99, <= 2 ms
// passes at exactly 2 ms, > 0 fails at 0 (a sidecar that adds no time), < 15 ms fails at 15 ms.
func TestStrictAndNonStrictBounds(t *testing.T) {
	for _, tc := range []struct {
		op          perf.Op
		limit, got  float64
		pass, upper bool
	}{
		{perf.Above, 0.99, 0.99, false, false},
		{perf.Above, 0.99, 0.9901, true, false},
		{perf.AtLeast, 0.99, 0.99, true, false},
		{perf.AtMost, 0.002, 0.002, true, true},
		{perf.Above, 0, 0, false, false},
		{perf.Above, 0, -0.0001, false, false},
		{perf.Below, 0.015, 0.015, false, true},
		{perf.Below, 0.015, 0.0149, true, true},
	} {
		v := Evaluate([]perf.Threshold{{Figure: "f", Op: tc.op, Limit: tc.limit}}, map[string]float64{"f": tc.got})
		if v[0].Pass != tc.pass || tc.op.Upper() != tc.upper {
			t.Errorf("%v %v %v: pass %v, upper %v; want %v, %v", tc.got, tc.op, tc.limit, v[0].Pass, tc.op.Upper(), tc.pass, tc.upper)
		}
	}
}

func TestThresholdsFromEnv(t *testing.T) {
	p90, p999, ratio, gate := 6*time.Millisecond, 20*time.Millisecond, 0.95, "warn"
	env := perf.Env{MaxOverheadP90: &p90, MaxOverheadP999: &p999, MinQPSRatio: &ratio, OverheadGate: &gate}
	ths := ThresholdsFromEnv(env, append(perf.DefaultThresholds(perf.HTTP), perf.Threshold{Figure: perf.StageMeanFigure("2kb-200ps"), Op: perf.AtMost, Limit: 0.001},
		perf.Threshold{Figure: "latency.p99", Op: perf.AtMost, Limit: 0.035}, perf.Threshold{Figure: "delivery.p95", Op: perf.AtMost, Limit: 1.5},
		perf.Threshold{Figure: "reminders.triggerRate", Op: perf.AtLeast, Limit: 6860}, perf.Threshold{Figure: "reminders.missing", Op: perf.AtMost, Limit: 0}))
	byFigure := map[string]perf.Threshold{}
	for _, th := range ths {
		byFigure[th.Figure] = th
	}
	assert.InDelta(t, 0.006, byFigure["overhead.p90"].Limit, 1e-12)
	assert.Equal(t, "DAPR_PERF_MAX_OVERHEAD_P90", byFigure["overhead.p90"].Source)
	var bounds []string
	for _, th := range ths {
		if th.Figure == "overhead.p90" {
			bounds = append(bounds, fmt.Sprintf("%s %g", th.Op, th.Limit))
		}
	}
	assert.Equal(t, []string{"above 0", "at most 0.006"}, bounds, "the override replaces Dapr's upper bound and keeps its lower one")
	assert.InDelta(t, 0.02, byFigure["overhead.p99.9"].Limit, 1e-12)
	assert.True(t, byFigure["overhead.p99.9"].WarnOnly)
	assert.Equal(t, 0.95, byFigure["qps.ratio"].Limit)
	assert.True(t, byFigure["stage.2kb-200ps.mean"].WarnOnly, "a latency-mean bound is as machine-bound")
	assert.True(t, byFigure["latency.p99"].WarnOnly, "an absolute latency bound is as machine-bound")
	assert.False(t, byFigure["delivery.p95"].WarnOnly, "a delivery bound gates: Dapr's 1.5 s is far from a machine's limit")
	assert.True(t, byFigure["reminders.triggerRate"].WarnOnly, "a trigger rate is a capacity of Dapr's 8-vCPU nodes")
	assert.False(t, byFigure["reminders.missing"].WarnOnly, "a missed fire gates")
	assert.False(t, byFigure["errors"].WarnOnly, "only overhead, latency and trigger-rate bounds are warn-only")
}

// A bound override set suite-wide meets plans that do not measure its figure: it must bound
// the plans that do, and neither fail nor pass the others, which get a warning instead.
func TestEnvBoundOnlyWhereMeasured(t *testing.T) {
	ratio := 0.97
	env := perf.Env{MinQPSRatio: &ratio}
	closedLoop := []perf.Threshold{{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "s"}, {Figure: "latency.mean", Op: perf.AtMost, Limit: 0.06, Source: "s"}}
	ths := ThresholdsFromEnv(env, closedLoop)
	require.Len(t, ths, 3)
	assert.True(t, ths[2].IfMeasured)
	assert.False(t, ths[0].IfMeasured, "a scenario's own bound fails when its figure is missing")

	figures := map[string]float64{"errors": 0, "latency.mean": 0.01}
	vs := Evaluate(ths, figures)
	require.Len(t, vs, 2, "no verdict on a figure the plan does not measure")
	for _, v := range vs {
		assert.True(t, v.Pass, v.String())
	}
	assert.Equal(t, []string{"DAPR_PERF_MIN_QPS_RATIO: this plan measures no qps.ratio; its bound (at least 0.9700) does not apply"}, NotApplied(ths, figures))

	figures["qps.ratio"] = 0.96
	vs = Evaluate(ths, figures)
	require.Len(t, vs, 3)
	assert.False(t, vs[2].Pass, "where measured, the added bound gates: "+vs[2].String())
	assert.Empty(t, NotApplied(ths, figures))

	// Replacing a bound the scenario has keeps it strict.
	ths = ThresholdsFromEnv(env, perf.DefaultThresholds(perf.HTTP))
	vs = Evaluate(ths, map[string]float64{"errors": 0, "restarts": 0, "overhead.p90": 0.001})
	require.Len(t, vs, 5)
	assert.Equal(t, "qps.ratio", vs[2].Figure)
	assert.False(t, vs[2].Pass, "a replaced bound on a missing figure still fails")
	assert.Equal(t, perf.EnvMinQPSRatio, vs[2].Source)
}
