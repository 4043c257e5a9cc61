//go:build perf

// Package pubsubsubscribehttp_test is Dapr's pubsub_subscribe_http perf test: end-to-end
// delivery latency, lost and duplicated messages, for each broker the local platform starts
// (Redis, RabbitMQ, MQTT), one subtest each under Dapr's component name
// ("dapr-perf-test-redis-pubsub-subs-http"), under Dapr's two test functions: normal subscribe,
// and bulk subscribe.
package pubsubsubscribehttp_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestPubsubBulkPublishSubscribeHttpPerformance: the subscriber takes one message per
// delivery ("pubsub_subscribe_<broker>").
func TestPubsubBulkPublishSubscribeHttpPerformance(t *testing.T) {
	for _, b := range scenarios.SubscribeBrokers {
		sc := scenarios.PubSubSubscribe(b, perf.SubscribeNormal)
		t.Run(b.Subtest(), func(t *testing.T) { scenarios.Run(t, sc) })
	}
}

// TestPubsubBulkPublishBulkSubscribeHttpPerformance: the subscriber takes messages in bulk
// ("pubsub_bulk_subscribe_<broker>").
func TestPubsubBulkPublishBulkSubscribeHttpPerformance(t *testing.T) {
	for _, b := range scenarios.SubscribeBrokers {
		sc := scenarios.PubSubSubscribe(b, perf.SubscribeBulk)
		t.Run(b.Subtest(), func(t *testing.T) { scenarios.Run(t, sc) })
	}
}
