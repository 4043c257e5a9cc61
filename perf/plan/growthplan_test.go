package plan

import (
	"math"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf/growth"
)

// linearRSS is four readings 3,000 requests apart, RSS rising kib KiB per round from 90 MiB.
func linearRSS(kib float64) []growth.Point {
	out := make([]growth.Point, 4)
	for i := range out {
		out[i] = growth.Point{Requests: int64(3000 * i), Seconds: float64(10 * i), RSSBytes: uint64(90<<20 + float64(i)*kib*1024)}
	}
	return out
}

func TestGrowthThresholdEnv(t *testing.T) {
	t.Setenv(perf.EnvGrowthThreshold, "abc")
	_, err := growthThreshold("a-fixed", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), perf.EnvGrowthThreshold)
	t.Setenv(perf.EnvGrowthThreshold, "-1")
	_, err = growthThreshold("a-fixed", nil)
	require.Error(t, err)
	t.Setenv(perf.EnvGrowthThreshold, "300")
	d, err := growthThreshold("a-fixed", [][]growth.Point{linearRSS(900)})
	require.NoError(t, err)
	assert.Equal(t, 300.0, d.KiBPer1000)
	assert.Equal(t, "env", d.Rule)
	assert.Contains(t, d.Text, perf.EnvGrowthThreshold)
	assert.Contains(t, d.Text, "margin 1.0x, BELOW the stated 2x")
}

// On the published runs' own readings, the derived threshold gives the published verdicts,
// with at least 2x over every fixed-method slope and 3x under every distinct-path slope.
func TestGrowthThresholdOnPublishedRuns(t *testing.T) {
	for _, version := range []string{"v1.16.5", "v1.17.5"} {
		rep, err := report.ReadReport("../../reports/" + version + "/memory_growth/http/result.json")
		require.NoError(t, err)
		var reference [][]growth.Point
		for _, v := range rep.Growth.Variants {
			if v.Name == "a-fixed" {
				for _, s := range v.Sidecars {
					reference = append(reference, s.LoadPoints())
				}
			}
		}
		require.Len(t, reference, 2, version)
		d, err := growthThreshold("a-fixed", reference)
		require.NoError(t, err)
		for _, v := range rep.Growth.Variants {
			for _, s := range v.Sidecars {
				g := growth.Classify(s.LoadPoints(), s.Idle, d.KiBPer1000)
				assert.Equal(t, s.Growth.Verdict, g.Verdict, "%s %s %s", version, v.Name, s.Role)
				if g.Verdict == growth.Growing {
					assert.GreaterOrEqual(t, math.Min(g.SlopeKiBPer1000, g.TailSlopeKiBPer1000), 3*d.KiBPer1000, "%s %s %s", version, v.Name, s.Role)
				}
				if v.Name == "a-fixed" {
					assert.LessOrEqual(t, 2*math.Max(g.SlopeKiBPer1000, g.TailSlopeKiBPer1000), d.KiBPer1000, "%s %s", version, s.Role)
				}
			}
		}
	}
}

// A growth round that sent requests late stays valid with a warning naming it; one that did not
// reach its rate is invalid.
func TestGrowthValidity(t *testing.T) {
	late := perf.Result{RequestedQPS: 500, ActualQPS: 499.6, Schedule: perf.Schedule{Scheduled: 3000, Late: 82}}
	slow := perf.Result{RequestedQPS: 500, ActualQPS: 430, Schedule: perf.Schedule{Scheduled: 3000}}
	ok := perf.Result{RequestedQPS: 500, ActualQPS: 499.9, Schedule: perf.Schedule{Scheduled: 3000, Late: 3}}
	v, w := growthValidity([]report.NamedResult{{Name: "e round 1", Res: &late}, {Name: "e round 2", Res: &ok}})
	assert.True(t, v.Valid, "%v", v.Reasons)
	require.Len(t, w, 1)
	assert.Contains(t, w[0], "e round 1: 2.73 % of 3000 requests went out late")
	v, _ = growthValidity([]report.NamedResult{{Name: "b round 3", Res: &slow}})
	assert.False(t, v.Valid)
	require.Len(t, v.Reasons, 1)
	assert.Contains(t, v.Reasons[0], "b round 3: achieved 430.0 of 500 QPS")
}

// A short round is judged with its last request's time allowed for, as an overhead run's
// validity judges it: a 2 s round of 1,000 requests at 500 QPS whose last call ends 68 ms after
// the phase shows 483.6 QPS by fortio's elapsed time, which alone would call it invalid.
// A round behind by more than that one request's time stays invalid.
func TestGrowthValidityAllowsTheLastRequest(t *testing.T) {
	round := func(actual, lastSeconds float64) *perf.Result {
		return &perf.Result{Params: perf.Params{Duration: 2 * time.Second}, RequestedQPS: 500, ActualQPS: actual,
			Schedule: perf.Schedule{Scheduled: 1000}, Latency: perf.Latency{MaxSeconds: lastSeconds}}
	}
	v, _ := growthValidity([]report.NamedResult{{Name: "e round 2", Res: round(1000/2.068, 0.068)}})
	assert.True(t, v.Valid, "%v", v.Reasons)
	v, _ = growthValidity([]report.NamedResult{{Name: "e round 2", Res: round(1000/2.2, 0.068)}})
	assert.False(t, v.Valid, "0.13 s behind beyond the last request's 68 ms")
	require.Len(t, v.Reasons, 1)
	assert.Contains(t, v.Reasons[0], "the last request's 68 ms allowed for")
}
