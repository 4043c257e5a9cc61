package scenarios

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
)

// Dapr's pubsub_subscribe_http variables: each threshold replaces its mode's p95 bound on every
// broker (milliseconds); test_kafka.yaml skips the scenarios, naming the variable; test_all.yaml
// runs them and says what of it does not.
func TestDaprsSubscribeVariables(t *testing.T) {
	normal, bulk := PubSubSubscribe(SubscribeBrokers[1], perf.SubscribeNormal), PubSubSubscribe(SubscribeBrokers[1], perf.SubscribeBulk)
	assert.Equal(t, 3.0, threshold(t, shaped(t, normal), "latency.p95").Limit, "RabbitMQ's own, unset")
	t.Setenv(EnvPubSubSubscribeThreshold, "2500")
	t.Setenv(EnvPubSubBulkSubscribeThreshold, "700")
	n, b := threshold(t, shaped(t, normal), "latency.p95"), threshold(t, shaped(t, bulk), "latency.p95")
	assert.Equal(t, 2.5, n.Limit)
	assert.Equal(t, 0.7, b.Limit)
	assert.Contains(t, n.Source, EnvPubSubSubscribeThreshold+"=2500")
	assert.Equal(t, perf.Below, n.Op, "still Dapr's strict bound")

	t.Setenv(EnvPubSubSubsConfigFile, "test_kafka.yaml")
	_, err := normal.ForEnv(runner.EnvFor(t), normal)
	var skip *perf.SkipError
	require.True(t, errors.As(err, &skip), "%v", err)
	assert.True(t, strings.HasPrefix(skip.Reason, EnvPubSubSubsConfigFile+"=test_kafka.yaml"), skip.Reason)

	t.Setenv(EnvPubSubSubsConfigFile, "test_all.yaml")
	assert.Contains(t, threshold(t, shaped(t, bulk), "latency.p95").Source, "Kafka and Pulsar")

	t.Setenv(EnvPubSubSubsConfigFile, "test_redis.yaml")
	_, err = runner.LoadEnv()
	assert.ErrorContains(t, err, EnvPubSubSubsConfigFile)
	t.Setenv(EnvPubSubSubsConfigFile, "")
	t.Setenv(EnvPubSubSubscribeThreshold, "fast")
	_, err = runner.LoadEnv()
	assert.ErrorContains(t, err, EnvPubSubSubscribeThreshold)
}

// The bulk subscription waits daprd's default, 1 s, as Dapr's app leaves it; the variable sets
// another wait on the bulk scenarios only, and the result's appWork says it is not Dapr's.
func TestBulkSubscribeMaxAwait(t *testing.T) {
	normal, bulk := PubSubSubscribe(SubscribeBrokers[0], perf.SubscribeNormal), PubSubSubscribe(SubscribeBrokers[0], perf.SubscribeBulk)
	args := func(sc perf.Scenario) []string {
		for _, a := range sc.Apps {
			if a.Name == SubscriberApp {
				return a.Args
			}
		}
		t.Fatalf("%s: no subscriber app", sc.Test)
		return nil
	}
	assert.Contains(t, strings.Join(args(shaped(t, bulk)), " "), "-bulk-max-await 1s")
	assert.Equal(t, "bulk subscription: up to 100 messages a bulk, waiting up to 1s to fill one", shaped(t, bulk).AppWork)
	assert.Empty(t, shaped(t, normal).AppWork)

	t.Setenv(EnvBulkSubscribeMaxAwait, "40ms")
	b := shaped(t, bulk)
	assert.Contains(t, strings.Join(args(b), " "), "-bulk-max-await 40ms")
	assert.Contains(t, b.AppWork, "waiting up to 40ms")
	assert.Contains(t, b.AppWork, EnvBulkSubscribeMaxAwait+"=40ms")
	assert.Contains(t, strings.Join(args(bulk), " "), "-bulk-max-await 1s", "the scenario value itself is not written")
	assert.NotContains(t, strings.Join(args(shaped(t, normal)), " "), "-bulk")

	// Delivered over gRPC, the subscriber keeps -grpc and its daprd app protocol grpc.
	g := shaped(t, PubSubSubscribeGRPC(SubscribeBrokers[0], perf.SubscribeBulk))
	assert.Equal(t, 1, strings.Count(strings.Join(args(g), " "), "-bulk-max-await 40ms"), args(g))
	assert.Contains(t, args(g), "-grpc")
	assert.Equal(t, "-grpc", args(g)[len(args(g))-1], "the flags' order kept")
	for _, a := range g.Apps {
		if a.Name == SubscriberApp {
			assert.Equal(t, perf.GRPC, a.Sidecar.AppProtocol)
		}
	}

	t.Setenv(EnvBulkSubscribeMaxAwait, "20s")
	_, err := runner.LoadEnv()
	assert.ErrorContains(t, err, EnvBulkSubscribeMaxAwait)
}

// daprperf's fixed-rate bulk delivery run keeps Dapr's documented 40 ms: at 1 s a bulk's wait
// would be most of the delivery latency it measures.
func TestBulkDeliveryRunWaits40ms(t *testing.T) {
	sc := shaped(t, PubSubDelivery(SubscribeBrokers[0], perf.SubscribeBulk))
	for _, a := range sc.Apps {
		if a.Name == SubscriberApp {
			assert.Contains(t, strings.Join(a.Args, " "), "-bulk-max-await 40ms")
		}
	}
	assert.Contains(t, sc.AppWork, "waiting up to 40ms")
}
