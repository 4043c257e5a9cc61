//go:build perf

package pubsubpublishhttp_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestPubsubPublishHttpPerformance is Dapr's k6 pubsub_publish_http as fixed-rate stages on
// each broker ("pubsub_publish", "pubsub_publish_redis", transport http).
func TestPubsubPublishHttpPerformance(t *testing.T) {
	for _, b := range scenarios.PublishBrokers {
		sc := scenarios.PubSubPublishStages(b)
		t.Run(sc.Test, func(t *testing.T) { scenarios.Run(t, sc) })
	}
}
