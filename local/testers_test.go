package local_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/hdr"
	"github.com/daprperf/daprperf/perf/testers"
)

// TestThreeTestersMergeExactly starts three tester processes, each with its own daprd, and a
// callee, and runs one load of 300 QPS split among them (100 QPS and 2 connections each),
// through each tester's own daprd to the callee. Every tester returns its requests' service
// times (Params.KeepSamples); the merged percentiles must equal, value for value, those of one
// HDR histogram fed every one of those requests, and the counts must add up.
func TestThreeTestersMergeExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daprd")
	}
	isolated(t, func(t *testing.T, p *local.Platform) {
		sc := perf.Scenario{Test: "merge", Transport: perf.HTTP, Tester: "tester",
			Apps: []perf.App{withSidecar("tester", perf.Tester, perf.HTTP), withSidecar("callee", perf.HTTPApp, perf.HTTP)}}
		sc, err := sc.WithTesters(3)
		require.NoError(t, err)
		require.Equal(t, []string{"tester", "tester-2", "tester-3"}, sc.TesterNames())
		d := p.Start(startCtx(t), t, sc.Apps...)

		group, err := testers.NewGroup(d, sc.TesterNames())
		require.NoError(t, err)
		require.Len(t, group.Replicas, 2)
		load := perf.DefaultParams()
		load.Target = endpoint(t, d, "tester", perf.SidecarHTTP) + "/v1.0/invoke/callee/method/test"
		load.QPS, load.Connections, load.Duration, load.KeepSamples = 300, 6, 3*time.Second, true
		load.Percentiles = []float64{50, 90, 99, 99.9}

		res, err := testers.RunLoad(t.Context(), group, load)
		require.NoError(t, err)

		require.Len(t, res.Testers, 3)
		one := hdr.New()
		var requests int64
		for i, share := range res.Testers {
			assert.Equal(t, 100, share.Params.QPS, "tester %d's rate", i+1)
			assert.Equal(t, 2, share.Params.Connections, "tester %d's connections", i+1)
			assert.EqualValues(t, 300, share.Requests, "tester %d: 100 QPS for 3 s", i+1)
			assert.Zero(t, share.Errors(), "tester %d", i+1)
			require.Len(t, share.ServiceSamples, int(share.Requests), "tester %d keeps every sample", i+1)
			for _, ns := range share.ServiceSamples {
				one.Record(time.Duration(ns))
			}
			requests += share.Requests
		}
		assert.NotEqual(t, res.Testers[0].Params.Target, res.Testers[1].Params.Target, "each tester loads its own daprd")
		assert.Equal(t, requests, res.Requests)
		assert.EqualValues(t, 900, res.Requests)
		assert.Equal(t, one.Count(), res.Requests)
		assert.Equal(t, 300, res.Params.QPS, "the merged result keeps the whole load")
		assert.InDelta(t, 300, res.RequestedQPS, 1e-9)
		assert.Zero(t, res.Errors())
		for _, pv := range res.Latency.Percentiles {
			assert.Equal(t, one.Percentile(pv.P).Seconds(), pv.Seconds, "p%v: merged vs one histogram of every request", pv.P)
		}
		assert.Equal(t, one.Min().Seconds(), res.Latency.MinSeconds)
		assert.Equal(t, one.Max().Seconds(), res.Latency.MaxSeconds)
		assert.InEpsilon(t, one.MeanSeconds(), res.Latency.AvgSeconds, 1e-9, "the pooled mean")
		assert.InEpsilon(t, one.StdDevSeconds(), res.Latency.StdDevSeconds, 1e-6, "the pooled deviation")
		merged, err := res.Latency.Histogram()
		require.NoError(t, err)
		for _, p := range []float64{10, 25, 75, 95, 99.99} { // any percentile, not just the computed ones
			assert.Equal(t, one.Percentile(p), merged.Percentile(p), "p%v from the stored merged histogram", p)
		}
		assert.Less(t, res.StartSpreadSeconds, 0.5, "the testers start together (shared StartAt)")
		assert.GreaterOrEqual(t, res.StartSpreadSeconds, 0.0)
		for i, share := range res.Testers {
			assert.False(t, share.StartTime.Before(share.Params.StartAt), "tester %d starts at or after the shared instant", i+1)
		}
	})
}
