//go:build perf

// Package pubsubsubscribegrpc_test is pubsub_subscribe_http with delivery over gRPC: the
// subscriber takes its messages through Dapr's AppCallback (OnTopicEvent, OnBulkTopicEvent),
// for each broker the local platform starts (Redis, RabbitMQ, MQTT), normal and bulk
// subscribe, one subtest each; end-to-end delivery latency, lost and duplicated messages, and
// Dapr's p95 bounds, through the same delivery plan.
package pubsubsubscribegrpc_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

func TestPubSubSubscribeGRPCPerformance(t *testing.T) {
	for _, sc := range scenarios.PubSubSubscribeGRPCAll() {
		t.Run(sc.Test, func(t *testing.T) { scenarios.Run(t, sc) })
	}
}
