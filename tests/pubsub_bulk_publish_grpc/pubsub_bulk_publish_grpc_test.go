//go:build perf

package pubsubbulkpublishgrpc_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestBulkPubsubPublishGrpcPerformance is Dapr's pubsub_bulk_publish_grpc: 100 single
// publishes per request against one bulk publish of 100, with and without CloudEvents, on each
// broker ("pubsub_bulk_publish", "pubsub_bulk_publish_raw", "pubsub_bulk_publish_redis", ...), each
// a subtest under Dapr's name ("In-memory with with cloud event"; scenarios.BulkPublishGRPCSubtest).
func TestBulkPubsubPublishGrpcPerformance(t *testing.T) {
	for _, b := range scenarios.PublishBrokers {
		for _, raw := range []bool{false, true} {
			sc := scenarios.PubSubBulkPublish(perf.GRPC, b, raw)
			t.Run(scenarios.BulkPublishGRPCSubtest(b, raw), func(t *testing.T) { scenarios.Run(t, sc) })
		}
	}
}
