package report_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

func TestCurveKeeps(t *testing.T) {
	bound := perf.CurveBound{P99Seconds: 0.025, KeptRatio: 0.99, Source: "test"}
	res := func(p99 float64, ok, failed int64, achieved float64) *perf.Result {
		return &perf.Result{RequestedQPS: 100, ActualQPS: achieved, Requests: ok + failed, RetCodes: map[string]int64{"200": ok, "503": failed},
			Latency:      perf.Latency{Percentiles: []perf.PercentileValue{{P: 99, Seconds: p99 / 2}}},
			ResponseTime: &perf.Latency{Percentiles: []perf.PercentileValue{{P: 99, Seconds: p99}}}}
	}
	pass, why := report.CurveKeeps(res(0.020, 1000, 0, 100), bound)
	assert.True(t, pass, why)
	pass, why = report.CurveKeeps(res(0.030, 995, 5, 97), bound)
	assert.False(t, pass)
	assert.Equal(t, "5 errors; 97.0 % of the rate kept, under 99 %; response-time p99 30.00 ms, above 25.00 ms", why)
}

// TestCurvePoints: each rate's medians over its rounds, and each process's CPU per request:
// the median of the rounds' mean cores over their achieved rate, with its interval (with 5
// rounds their range).
func TestCurvePoints(t *testing.T) {
	round := func(ach, p50, cores float64, pass bool) perf.CurveProbe {
		return perf.CurveProbe{OfferedQPS: 500, AchievedQPS: ach, P50: p50, P90: 2 * p50, P99: 3 * p50, ResponseP99: 4 * p50, Pass: pass,
			CPU: []perf.ProcessUse{{Process: "tester-daprd", Role: perf.RoleCallerSidecar, Cores: cores}}}
	}
	r := &perf.Report{Plan: perf.KindCurve, Curve: &perf.CurveReport{Points: []perf.CurvePoint{{OfferedQPS: 500, Rounds: []perf.CurveProbe{
		round(500, 0.004, 0.10, true), round(498, 0.005, 0.11, true), round(499, 0.003, 0.09, false), round(500, 0.006, 0.12, true), round(500, 0.004, 0.10, true),
	}}}, Searches: []perf.RateSearch{{HighestQPS: 1000}, {HighestQPS: 1040}, {HighestQPS: 1020}}}}
	pts := report.CurvePoints(r)
	require.Len(t, pts, 1)
	p := pts[0]
	assert.Equal(t, 5, p.Rounds)
	assert.Equal(t, 4, p.Passed)
	assert.Equal(t, 500.0, p.AchievedQPS)
	assert.Equal(t, 0.004, p.P50)
	assert.Equal(t, 0.016, p.ResponseP99)
	require.Len(t, p.CPU, 1)
	c := p.CPU[0]
	assert.InDelta(t, 200, c.Micros(), 1e-9, "0.10 cores at 500 requests/s")
	assert.InDelta(t, 0.09/499, c.Low, 1e-12)
	assert.InDelta(t, 0.12/500, c.High, 1e-12)
	assert.InDelta(t, 0.9375, c.Confidence, 1e-9, "the range of 5 rounds: 1 − 2 × 0.5^5")

	rates, median, spread, ok := report.CurveHighest(r.Curve)
	assert.True(t, ok)
	assert.Equal(t, []int{1000, 1040, 1020}, rates)
	assert.Equal(t, 1020.0, median)
	assert.InDelta(t, 40.0/1020, spread, 1e-12)
	f := report.DeriveFigures(r)
	assert.Equal(t, 1020.0, f.Gates[perf.CurveHighestFigure])
	assert.NotEmpty(t, f.NoOverhead)

	assert.Empty(t, report.CurveInvalid(r.Curve, 3))
	assert.Equal(t, []string{"curve: 3 of 4 searches ran"}, report.CurveInvalid(r.Curve, 4))
	r.Curve.Searches[1] = perf.RateSearch{Reason: "the first rate failed"}
	assert.Equal(t, []string{"curve: search 2 found no rate that kept the bound: the first rate failed"}, report.CurveInvalid(r.Curve, 3))
	assert.Equal(t, []string{"curve: no rate was measured"}, report.CurveInvalid(nil, 0))
}
