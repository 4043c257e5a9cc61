package plan

import (
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"

	"github.com/stretchr/testify/assert"
)

// fortio plans whole calls per connection: 20 QPS over 16 connections for 10 s is 12 calls
// each, 192 of 200. A load that sent all 192 on schedule is valid though its QPS ratio to the
// request is below 0.99; one that fell behind its plan is not.
func TestPlannedQPSRatio(t *testing.T) {
	kept := perf.Result{Params: perf.Params{QPS: 20, Connections: 16, Duration: 10 * time.Second},
		RequestedQPS: 20, ActualQPS: 19.57, Requests: 192, Schedule: perf.Schedule{Scheduled: 192}}
	assert.Less(t, kept.QPSRatio(), report.MinValidQPSRatio)
	assert.InDelta(t, 19.57/19.2, kept.PlannedQPSRatio(), 1e-9)
	assert.True(t, report.PhaseValidity([]report.NamedResult{{Name: "round 1 baseline", Res: &kept}}).Valid)

	slow := kept
	slow.ActualQPS = 15
	assert.InDelta(t, 15/19.2, slow.PlannedQPSRatio(), 1e-9)
	v := report.PhaseValidity([]report.NamedResult{{Name: "round 1 baseline", Res: &slow}})
	assert.False(t, v.Valid)
	assert.Contains(t, v.Reasons[0], "achieved 15.0 of 20 QPS (ratio to the planned 192 requests 0.7812 < 0.99, the last request's 0 ms allowed for)")

	// Without a schedule (an old result file) it is the plain ratio.
	old := perf.Result{RequestedQPS: 100, ActualQPS: 98}
	assert.InDelta(t, 0.98, old.PlannedQPSRatio(), 1e-9)
}

// A preflight step allows for its last request's own time: 144 of 144 planned requests on
// schedule in 3 s at 48/s, the last taking 0.17 s, is kept; the same step behind schedule is
// not.
func TestPreflightStepAllowsTheLastRequest(t *testing.T) {
	r := perf.Result{Params: perf.Params{QPS: 50, Connections: 16, Duration: 3 * time.Second},
		RequestedQPS: 50, ActualQPS: 46.8, Requests: 144, Schedule: perf.Schedule{Scheduled: 144},
		Latency: perf.Latency{MaxSeconds: 0.17}}
	assert.Less(t, r.PlannedQPSRatio(), report.MinValidQPSRatio)
	assert.True(t, stepKept(r))
	r.Schedule.Late = 20
	assert.False(t, stepKept(r))
	r.Schedule.Late, r.ActualQPS = 0, 40
	assert.False(t, stepKept(r), "40 of the planned 48/s is not kept")
}

// The bulk-publish baseline of the smoke on a slow machine: 480 requests of 100 single
// publishes, every one on its slot, in 30.4 s (fortio's last call starts at 30 s and took up
// to 0.42 s). Judged by ActualQPS that is 0.9869 of the plan, invalid; with the last
// request's time allowed for it is kept. The same phase 0.58 s further behind is not.
func TestValidityAllowsTheLastRequest(t *testing.T) {
	r := perf.Result{Params: perf.Params{QPS: 16, Connections: 16, Duration: 30 * time.Second},
		RequestedQPS: 16, ActualQPS: 480 / 30.4, Requests: 480, Schedule: perf.Schedule{Scheduled: 480},
		Latency: perf.Latency{MaxSeconds: 0.42}}
	assert.Less(t, r.PlannedQPSRatio(), report.MinValidQPSRatio)
	assert.InDelta(t, 30.42/30.4, r.KeptQPSRatio(), 1e-9)
	assert.True(t, report.PhaseValidity([]report.NamedResult{{Name: "round 1 baseline", Res: &r}}).Valid)

	r.ActualQPS = 480 / 31.0 // 0.58 s behind beyond the last request's own time
	v := report.PhaseValidity([]report.NamedResult{{Name: "round 1 baseline", Res: &r}})
	assert.False(t, v.Valid)
	assert.Contains(t, v.Reasons[0], "the last request's 420 ms allowed for")
}
