//go:build perf

// Package pubsubsubscribehttp_test is Dapr's pubsub_subscribe_http perf test: end-to-end
// delivery latency, lost and duplicated messages, for each broker the local platform starts
// (Redis, RabbitMQ, MQTT), normal and bulk subscribe, one subtest each.
package pubsubsubscribehttp_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

func TestPubSubSubscribeHTTPPerformance(t *testing.T) {
	for _, sc := range scenarios.PubSubSubscribeAll() {
		t.Run(sc.Test, func(t *testing.T) { scenarios.Run(t, sc) })
	}
}
