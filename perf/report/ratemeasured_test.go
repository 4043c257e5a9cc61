package report

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/hdr"
)

// slowPhase is a fixed-rate phase of 1000 QPS for 10 s that reached rate x its target, the
// rest of its schedule skipped.
func slowPhase(t *testing.T, rate float64) perf.Result {
	t.Helper()
	h := hdr.New()
	n := int64(10_000 * rate)
	for range n {
		h.Record(2 * time.Millisecond)
	}
	lat, err := perf.NewLatency(h, perf.DefaultPercentiles)
	require.NoError(t, err)
	p := perf.DefaultParams()
	p.QPS, p.Duration = 1000, 10*time.Second
	return perf.Result{Params: p, RequestedQPS: 1000, ActualQPS: 1000 * rate, Requests: n, Latency: lat,
		RetCodes: map[string]int64{"200": n}, Schedule: perf.Schedule{Scheduled: 10_000, Skipped: 10_000 - n}}
}

// A run that reached 60 % of its rate is invalid, unless the rate is what the scenario
// measures (Dapr's jobs scheduling): then it stays valid, each slow phase is a warning, and
// the rate gate decides.
func TestRateIsMeasuredKeepsASlowRunValid(t *testing.T) {
	rounds := func() []perf.Round {
		return []perf.Round{{Baseline: slowPhase(t, 1), Main: slowPhase(t, 0.6)}}
	}
	plain := &perf.Report{Params: rounds()[0].Main.Params, Rounds: rounds()}
	DeriveOverhead(plain)
	assert.False(t, plain.Validity.Valid, "60 %% of the rate")

	gate := []perf.Threshold{{Figure: "qps.ratio", Op: perf.AtLeast, Limit: 0.5, Source: "test"}}
	measured := &perf.Report{Params: rounds()[0].Main.Params, Rounds: rounds(), RateIsMeasured: true}
	DeriveOverhead(measured)
	assert.True(t, measured.Validity.Valid, "%v", measured.Validity.Reasons)
	var said []string
	for _, w := range measured.Warnings {
		if strings.Contains(w, "the rate is what this scenario measures") {
			said = append(said, w)
		}
	}
	require.Len(t, said, 1, "one phase missed its rate: %v", measured.Warnings)
	assert.True(t, strings.HasPrefix(said[0], "round 1 main: achieved 600.0 of 1000 QPS"), said[0])
	Judge(measured, gate)
	assert.True(t, measured.Pass, "Dapr's gate, >= 0.5 of the target, holds at 0.6")

	under := &perf.Report{Params: rounds()[0].Main.Params, Rounds: []perf.Round{{Baseline: slowPhase(t, 1), Main: slowPhase(t, 0.4)}}, RateIsMeasured: true}
	DeriveOverhead(under)
	Judge(under, gate)
	assert.True(t, under.Validity.Valid)
	assert.False(t, under.Pass, "0.4 of the target misses Dapr's gate")
}
