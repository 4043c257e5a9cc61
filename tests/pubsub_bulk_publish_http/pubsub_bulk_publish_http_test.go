//go:build perf

package pubsubbulkpublishhttp_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestPubsubBulkPublishHttpPerformance is Dapr's pubsub_bulk_publish_http: 50 VUs for 30 s
// publishing a bulk's events one by one, against 50 VUs publishing them as one bulk, for bulk
// sizes 10 and 100 (scenarios.PubSubBulkPublishHTTP). Dapr's runs are raw events; size 100
// also runs with CloudEvents. On each broker the scenarios "pubsub_bulk_publish_raw_b10",
// "pubsub_bulk_publish", "pubsub_bulk_publish_raw", then the same with "_redis"; each a subtest
// named as Dapr's pair of subtests it measures in one run ("memory-broker_b10_s1KB_normal_vs_bulk";
// scenarios.BulkPublishHTTPSubtest).
func TestPubsubBulkPublishHttpPerformance(t *testing.T) {
	for _, b := range scenarios.PublishBrokers {
		for _, size := range scenarios.BulkSizesHTTP {
			for _, raw := range []bool{false, true} {
				if !raw && size != scenarios.BulkSize {
					continue // Dapr's are raw; CloudEvents beside them at size 100 only
				}
				sc := scenarios.PubSubBulkPublishHTTP(b, raw, size)
				t.Run(scenarios.BulkPublishHTTPSubtest(b, raw, size), func(t *testing.T) { scenarios.Run(t, sc) })
			}
		}
	}
}
