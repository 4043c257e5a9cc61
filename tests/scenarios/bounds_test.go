package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/daprperf/daprperf/perf"
)

// Dapr's strict bounds stay strict: each `<` or `>` of Dapr's suite (dapr/dapr tests/perf at
// v1.18.3: the Go tests' asserts and the k6 scripts' thresholds) is perf.Below or perf.Above
// here, at Dapr's limit. A bound at its limit exactly passes in Dapr's suite only where it is
// inclusive (`<=`, InDelta), and those are perf.AtMost or perf.AtLeast.
func TestDaprsStrictBoundsStayStrict(t *testing.T) {
	strict := []struct {
		sc     perf.Scenario
		figure string
		op     perf.Op
		limit  float64
	}{
		{ActorTypeScale(), "latency.p95", perf.Below, 0.095},  // actor_type_scale test.js: p(95)<95
		{ActorIDScale(), "latency.p95", perf.Below, 0.090},    // actor_id_scale test.js: p(95)<90
		{ActorActivation(), "latency.p90", perf.Below, 0.015}, // actor_activation_test.go: p90 < 15 ms
		{ActorActivation(), "latency.p99", perf.Below, 0.035}, // and p99 < 35 ms
		{ServiceInvocation(perf.HTTP), "qps.ratio", perf.Above, 0.99},
		{ServiceInvocation(perf.HTTP), "overhead.p90", perf.Above, 0},
	}
	for _, st := range PublishStages() { // pubsub_publish_http test.js: avg<1 per scenario
		strict = append(strict, struct {
			sc     perf.Scenario
			figure string
			op     perf.Op
			limit  float64
		}{PubSubPublishStages(PublishBrokers[0]), perf.StageMeanFigure(st.Name), perf.Below, 0.001})
	}
	for _, s := range strict {
		th := threshold(t, s.sc, s.figure)
		assert.Equal(t, s.op, th.Op, "%s %s: Dapr's bound is strict", s.sc.Test, s.figure)
		assert.Equal(t, s.limit, th.Limit, "%s %s", s.sc.Test, s.figure)
	}
}

// Dapr's bulk-publish HTTP test bounds the mean of single POSTs at 500 ms; the singles run's
// iteration is size of them, so its mean is bounded at size x 500 ms. Dapr's HTTP test has
// no bound on bulk p90 against singles: reported here, warn-only.
func TestBulkPublishHTTPBoundsArePerPOST(t *testing.T) {
	for _, size := range BulkSizesHTTP {
		sc := PubSubBulkPublishHTTP(PublishBrokers[0], true, size)
		assert.Equal(t, 0.5*float64(size), threshold(t, sc, "baseline.mean").Limit, sc.Test)
		assert.Equal(t, perf.Below, threshold(t, sc, "baseline.mean").Op, sc.Test)
		assert.Equal(t, 0.5, threshold(t, sc, "main.mean").Limit, "%s: one POST per bulk iteration", sc.Test)
		assert.True(t, threshold(t, sc, "overhead.p90").WarnOnly, sc.Test)
	}
	assert.False(t, threshold(t, PubSubBulkPublish(perf.GRPC, PublishBrokers[0], true), "overhead.p90").WarnOnly, "Dapr's gRPC test gates it")
}
