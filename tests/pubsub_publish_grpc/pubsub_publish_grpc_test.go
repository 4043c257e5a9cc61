//go:build perf

package pubsubpublishgrpc_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestPubsubPublishGrpcPerformance is Dapr's pubsub_publish_grpc on each broker: in-memory
// against Dapr's no-op baseline ("pubsub_publish"), Redis against a direct XADD
// ("pubsub_publish_redis"), RabbitMQ and MQTT against their direct publishers
// ("pubsub_publish_rabbitmq", "pubsub_publish_mqtt").
func TestPubsubPublishGrpcPerformance(t *testing.T) {
	for _, b := range scenarios.AllPublishBrokers {
		sc := scenarios.PubSubPublish(perf.GRPC, b)
		t.Run(sc.Test, func(t *testing.T) { scenarios.Run(t, sc) })
	}
}
