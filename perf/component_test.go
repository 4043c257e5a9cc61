package perf_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

func TestComponentValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    perf.Component
		want []string // substrings of the error; none means valid
	}{
		{"redis state", perf.Component{Name: "statestore", Type: perf.StateRedis}, nil},
		{"postgres v1", perf.Component{Name: "pg", Type: perf.StatePostgreSQL, Version: "v1"}, nil},
		{"mqtt with qos", perf.Component{Name: "pubsub", Type: perf.PubSubMQTT3, Metadata: map[string]string{"qos": "1"}}, nil},
		{"unknown type", perf.Component{Name: "nats", Type: "pubsub.jetstream"},
			[]string{"component nats", `unknown Type "pubsub.jetstream"`, "pubsub.in-memory", "state.postgresql", "pubsub.mqtt3", "pubsub.kafka"}},
		{"kafka", perf.Component{Name: "kafka", Type: perf.PubSubKafka, Metadata: map[string]string{"consumerGroup": "g"}}, nil},
		{"kafka platform key", perf.Component{Name: "kafka", Type: perf.PubSubKafka, Metadata: map[string]string{"brokers": "k:9092"}},
			[]string{`Metadata key "brokers" is set by the platform`, "kafka"}},
		{"bad name", perf.Component{Name: "State_Store", Type: perf.StateInMemory}, []string{`component "State_Store"`, "Name must be a DNS label"}},
		{"empty name", perf.Component{Type: perf.StateInMemory}, []string{"Name must be a DNS label"}},
		{"bad version", perf.Component{Name: "s", Type: perf.StateRedis, Version: "v2"}, []string{`Version "v2" of state.redis`, "want v1"}},
		{"platform key", perf.Component{Name: "s", Type: perf.StateRedis, Metadata: map[string]string{"redisHost": "10.0.0.1:6379"}},
			[]string{`Metadata key "redisHost" is set by the platform`, "redis"}},
		{"empty key", perf.Component{Name: "s", Type: perf.PubSubInMemory, Metadata: map[string]string{" ": "x"}}, []string{"Metadata has an empty key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.Validate()
			if tc.want == nil {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestComponentBackendAndVersion(t *testing.T) {
	for typ, want := range map[perf.ComponentType]struct {
		backend perf.Backend
		version string
	}{
		perf.StateInMemory:   {perf.NoBackend, "v1"},
		perf.StateRedis:      {perf.BackendRedis, "v1"},
		perf.StatePostgreSQL: {perf.BackendPostgreSQL, "v2"},
		perf.PubSubInMemory:  {perf.NoBackend, "v1"},
		perf.PubSubRedis:     {perf.BackendRedis, "v1"},
		perf.PubSubRabbitMQ:  {perf.BackendRabbitMQ, "v1"},
		perf.PubSubMQTT3:     {perf.BackendMQTT, "v1"},
		perf.PubSubKafka:     {perf.BackendKafka, "v1"},
		perf.PubSubPulsar:    {perf.BackendPulsar, "v1"},
	} {
		c := perf.Component{Name: "c", Type: typ}
		assert.Equal(t, want.backend, c.Backend(), typ)
		assert.Equal(t, want.version, c.SpecVersion(), typ)
	}
	assert.Len(t, perf.ComponentTypes(), 10)
	assert.Equal(t, "v1", perf.Component{Name: "c", Type: perf.StatePostgreSQL, Version: "v1"}.SpecVersion())
}

func TestValidateComponentsAndBackends(t *testing.T) {
	cs := []perf.Component{
		{Name: "statestore", Type: perf.StateRedis},
		{Name: "pubsub", Type: perf.PubSubRedis},
		{Name: "mqtt", Type: perf.PubSubMQTT3},
		{Name: "mem", Type: perf.StateInMemory},
	}
	require.NoError(t, perf.ValidateComponents(cs))
	assert.Equal(t, []perf.Backend{perf.BackendRedis, perf.BackendMQTT}, perf.Backends(cs))

	err := perf.ValidateComponents(append(cs, perf.Component{Name: "pubsub", Type: perf.PubSubInMemory},
		perf.Component{Name: "x", Type: "state.etcd"}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "component pubsub: Name used twice")
	assert.Contains(t, err.Error(), `component x: unknown Type "state.etcd"`)
}
