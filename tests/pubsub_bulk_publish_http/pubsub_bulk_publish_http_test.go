//go:build perf

package pubsubbulkpublishhttp_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestPubsubBulkPublishHttpPerformance is Dapr's pubsub_bulk_publish_http: 100 single
// publishes per request against one bulk publish of 100, with and without CloudEvents, on each
// broker ("pubsub_bulk_publish", "pubsub_bulk_publish_raw", "pubsub_bulk_publish_redis", ...).
func TestPubsubBulkPublishHttpPerformance(t *testing.T) {
	for _, b := range scenarios.PublishBrokers {
		for _, raw := range []bool{false, true} {
			sc := scenarios.PubSubBulkPublish(perf.HTTP, b, raw)
			t.Run(sc.Test, func(t *testing.T) { scenarios.Run(t, sc) })
		}
	}
}
