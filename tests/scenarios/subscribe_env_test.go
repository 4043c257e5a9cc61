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
