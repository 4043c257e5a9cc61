package scenarios

import (
	"testing"

	"github.com/daprperf/daprperf/perf"

	"github.com/stretchr/testify/assert"
)

// Dapr's subtest names (tests/perf at v1.18.3) as go test writes them: spaces become
// underscores, the rest is kept.
func TestDaprsSubtestNames(t *testing.T) {
	assert.Equal(t, "In-memory with with cloud event", BulkPublishGRPCSubtest(InMemoryBroker, false))
	assert.Equal(t, "In-memory without cloud event (raw payload)", BulkPublishGRPCSubtest(InMemoryBroker, true))
	assert.Equal(t, "Redis with cloud event", BulkPublishGRPCSubtest(RedisBroker, false))
	assert.Equal(t, "Redis without cloud event (raw payload)", BulkPublishGRPCSubtest(RedisBroker, true))

	// Dapr's "memory-broker_b10_s1KB_normal" and "..._bulk" are one run here; a -run pattern
	// of Dapr's normal subtest selects it.
	assert.Equal(t, "memory-broker_b10_s1KB_normal_vs_bulk", BulkPublishHTTPSubtest(InMemoryBroker, true, 10))
	assert.Equal(t, "memory-broker_b100_s1KB_normal_vs_bulk", BulkPublishHTTPSubtest(InMemoryBroker, true, 100))
	assert.Equal(t, "memory-broker_b100_cloudevent_s1KB_normal_vs_bulk", BulkPublishHTTPSubtest(InMemoryBroker, false, 100))
	assert.Equal(t, "redis-broker_b10_s1KB_normal_vs_bulk", BulkPublishHTTPSubtest(RedisBroker, true, 10))

	var names []string
	for _, b := range SubscribeBrokers {
		names = append(names, b.Subtest())
	}
	assert.Equal(t, []string{"dapr-perf-test-redis-pubsub-subs-http", "dapr-perf-test-rabbitmq-pubsub-subs-http", "dapr-perf-test-mqtt-pubsub-subs-http"}, names)
}

// Every variant of a package has a subtest name of its own, so no -run pattern of one selects
// another by accident of equal names.
func TestSubtestNamesAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range PublishBrokers {
		for _, raw := range []bool{false, true} {
			n := BulkPublishGRPCSubtest(b, raw)
			assert.False(t, seen[n], n)
			seen[n] = true
			for _, size := range BulkSizesHTTP {
				n := BulkPublishHTTPSubtest(b, raw, size)
				assert.False(t, seen[n], n)
				seen[n] = true
			}
		}
	}
}

// Dapr's workflow subtests: one per load, as testWorkflow names them.
func TestWorkflowSubtestNames(t *testing.T) {
	for _, c := range []struct {
		sc   perf.Scenario
		want string
	}{
		{WorkflowWithConstantVUs("postgresql"), "[T_30_300]: "},
		{WorkflowWithConstantIterations("postgresql"), "[T_30_300]: [T_60_300]: [T_90_300]: "},
		{SeriesWorkflowWithMaxVUs("postgresql"), "[T_350_1400]: "},
		{ParallelWorkflowWithMaxVUs("postgresql"), "[T_110_440]: "},
		{WorkflowWithPayload("postgresql", 10_000), "[T_30_300]: "},
		{DelayWorkflowsAtScale("postgresql"), "[T_500_10000]: "},
		{ServiceInvocation(perf.HTTP), ""},
	} {
		assert.Equal(t, c.want, WorkflowSubtest(c.sc), c.sc.Test)
	}
}
