package report

import (
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/hdr"
)

// closedLoopResult is a closed-loop main or baseline phase: 100 requests of 1..100 ms.
func closedLoopResult(t *testing.T, scale time.Duration) perf.Result {
	t.Helper()
	h := hdr.New()
	for i := 1; i <= 100; i++ {
		h.Record(time.Duration(i) * scale)
	}
	lat, err := perf.NewLatency(h, perf.DefaultPercentiles)
	require.NoError(t, err)
	p := perf.DefaultParams()
	p.Executor = driver.Executor{Kind: driver.RampingVUs, Stages: []driver.Stage{{Duration: 5 * time.Second, Target: 50}}}
	return perf.Result{Params: p, ActualQPS: 20, Requests: 100, Latency: lat, RetCodes: map[string]int64{"200": 100},
		Executor: &perf.ExecutorStats{Kind: driver.RampingVUs, Iterations: 100, Dropped: 3, MaxVUs: 50, MaxActiveVUs: 50}}
}

// A closed loop has no target rate: it is valid without one, has no qps.ratio, and gates
// on k6's figures of its main phase.
func TestClosedLoopGates(t *testing.T) {
	r := &perf.Report{Params: closedLoopResult(t, 0).Params, Rounds: []perf.Round{{Baseline: closedLoopResult(t, 100*time.Microsecond), Main: closedLoopResult(t, time.Millisecond)}}}
	DeriveOverhead(r)
	assert.True(t, r.Validity.Valid, "%v", r.Validity.Reasons)
	Judge(r, []perf.Threshold{
		{Figure: "latency.p95", Op: perf.AtMost, Limit: 0.096, Source: "test"}, // HDR: at most 0.1 % above 95 ms
		{Figure: "latency.mean", Op: perf.AtMost, Limit: 0.050, Source: "test"},
		{Figure: "requests", Op: perf.AtLeast, Limit: 100, Source: "test"},
		{Figure: "dropped", Op: perf.AtMost, Limit: 0, Source: "test"},
		{Figure: "qps.ratio", Op: perf.AtLeast, Limit: 0.99, Source: "test"},
	})
	g := r.Figures.Gates
	assert.InDelta(t, 0.095, g["latency.p95"], 0.0001, "the 95th of 1..100 ms")
	assert.InDelta(t, 0.0505, g["latency.mean"], 1e-9)
	assert.EqualValues(t, 100, g["requests"])
	assert.EqualValues(t, 3, g["dropped"])
	assert.EqualValues(t, 20, g["qps"])
	_, has := g["qps.ratio"]
	assert.False(t, has, "a closed loop has no target rate")
	want := []bool{true, false, true, false, false} // mean 50.5 ms > 50; 3 dropped; qps.ratio not measured
	for i, v := range r.Verdicts {
		assert.Equal(t, want[i], v.Pass, "%s", v)
	}
	assert.Contains(t, r.Verdicts[0].String(), "latency.p95 = 95.0")
	s := Summary(r)
	assert.True(t, strings.Contains(s, "executor: ramping-vus (k6's), up to 50 VUs") && strings.Contains(s, "round 1 main: 100 iterations"), s)
}

func TestParamsExecutorValidation(t *testing.T) {
	p := perf.DefaultParams()
	p.Target = "http://127.0.0.1:1/"
	assert.NoError(t, p.Validate(), "the zero executor is fortio's load")
	assert.Equal(t, time.Minute, p.RunDuration())
	p.Executor = driver.Executor{Kind: driver.ConstantVUs, VUs: 0, Duration: time.Second, Stages: []driver.Stage{{Duration: time.Second, Target: 1}}}
	p.MaxRate = true
	err := p.Validate()
	require.Error(t, err)
	for _, w := range []string{"executor.vus = 0", "executor.stages: not a field"} {
		assert.ErrorContains(t, err, w)
	}
	p.Executor.VUs, p.Executor.Stages = 4, nil
	assert.ErrorContains(t, p.Validate(), "maxRate = true: must be false with an executor")
	p.MaxRate = false
	require.NoError(t, p.Validate())
	assert.Equal(t, 31*time.Second, p.RunDuration(), "1 s schedule + k6's 30 s graceful stop")
}
