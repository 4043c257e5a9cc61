package report_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// probe is a search load at qps whose app used appMicros of CPU per request.
func probe(qps int, appMicros float64, kept bool) perf.CurveProbe {
	ratio := 1.0
	if !kept {
		ratio = 0.8
	}
	return perf.CurveProbe{OfferedQPS: qps, AchievedQPS: float64(qps) * ratio, KeptRatio: ratio,
		CPU: []perf.ProcessUse{{Process: "testapp", Role: perf.RoleApp, Cores: appMicros * 1e-6 * float64(qps) * ratio}}}
}

// The machine's drift is read from the app's CPU per request at the rates every search kept:
// a third search whose app costs 40 % more per request says the machine slowed under it.
func TestCurveMachineDriftReadsTheAppsCost(t *testing.T) {
	c := &perf.CurveReport{Bound: perf.CurveBound{P99Seconds: 0.025, KeptRatio: 0.99}}
	c.Searches = []perf.RateSearch{
		{Steps: []perf.CurveProbe{probe(250, 60, true), probe(500, 55, true), probe(4000, 20, false)}, HighestQPS: 2500},
		{Steps: []perf.CurveProbe{probe(250, 62, true), probe(500, 56, true), probe(1000, 50, true)}, HighestQPS: 2200},
		{Steps: []perf.CurveProbe{probe(250, 84, true), probe(500, 77, true)}, HighestQPS: 2000},
	}
	d, ok := report.CurveMachineDrift(c)
	require.True(t, ok)
	assert.InDelta(t, 57.5, d.Fastest, 1e-9, "the median of 250 and 500 requests/s, the rates all three kept")
	assert.Equal(t, 1, d.FastestSearch)
	assert.InDelta(t, 80.5, d.Slowest, 1e-9)
	assert.Equal(t, 3, d.SlowestSearch)
	assert.InDelta(t, 0.4, d.Change, 1e-9)
	assert.Equal(t, "the app's CPU per request was 58 µs in search 1 and 80 µs in search 3 (+40 %)", d.String())

	rep := &perf.Report{Plan: perf.KindCurve, Curve: c}
	assert.Contains(t, report.Finding(rep), "the machine's speed moved under them: the app's CPU per request was 58 µs in search 1")

	_, ok = report.CurveMachineDrift(&perf.CurveReport{Searches: c.Searches[:1]})
	assert.False(t, ok, "one search has nothing to drift from")
}
