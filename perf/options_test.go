package perf

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewParamsDefaultsAreDaprs(t *testing.T) {
	p, err := NewParams()
	require.NoError(t, err)
	assert.Equal(t, 1, p.QPS)
	assert.Equal(t, 1, p.Connections)
	assert.Equal(t, time.Minute, p.Duration)
	assert.Equal(t, 0, p.PayloadBytes)
	assert.Equal(t, []float64{50, 75, 90, 99, 99.9}, p.Percentiles)
}

func TestEnvBeatsOptionsForTheMainPhaseOnly(t *testing.T) {
	t.Setenv(EnvQPS, "250")
	t.Setenv(EnvConnections, "8")
	t.Setenv(EnvDuration, "90s")
	t.Setenv(EnvPayloadSize, "2048")
	opts := []Option{WithQPS(1000), WithConnections(16), WithDuration(time.Minute), WithPayloadSize(1024)}

	main, err := NewParams(opts...)
	require.NoError(t, err)
	assert.Equal(t, 250, main.QPS)
	assert.Equal(t, 8, main.Connections)
	assert.Equal(t, 90*time.Second, main.Duration)
	assert.Equal(t, 2048, main.PayloadBytes)

	warmup, err := NewWarmupParams(WithQPS(100), WithDuration(10*time.Second))
	require.NoError(t, err)
	assert.Equal(t, 100, warmup.QPS, "DAPR_PERF_QPS must not change the warmup")
	assert.Equal(t, 10*time.Second, warmup.Duration)

	t.Setenv(EnvWarmupQPS, "50")
	t.Setenv(EnvWarmupDuration, "5s")
	warmup, err = NewWarmupParams(WithQPS(100), WithDuration(10*time.Second))
	require.NoError(t, err)
	assert.Equal(t, 50, warmup.QPS)
	assert.Equal(t, 5*time.Second, warmup.Duration)
}

func TestPayloadEnvIsLiteral(t *testing.T) {
	t.Setenv(EnvPayload, `{"order":1}`)
	p, err := NewParams(WithPayloadSize(1024))
	require.NoError(t, err)
	assert.Equal(t, []byte(`{"order":1}`), p.RequestBody())
}

func TestInvalidEnvValuesAreErrorsNamingThem(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		warmup      bool
		want        []string // substrings of the error
	}{
		{EnvQPS, "abc", false, []string{"DAPR_PERF_QPS", `"abc"`, "integer"}},
		{EnvQPS, "0", false, []string{"DAPR_PERF_QPS", `"0"`, "from 1 to"}},
		{EnvQPS, "-5", false, []string{"DAPR_PERF_QPS", `"-5"`, "from 1 to"}},
		{EnvQPS, "", false, []string{"DAPR_PERF_QPS", `""`}},
		{EnvConnections, "0", false, []string{"DAPR_PERF_CONNECTIONS", `"0"`, "from 1 to"}},
		{EnvConnections, "many", false, []string{"DAPR_PERF_CONNECTIONS", `"many"`}},
		{EnvDuration, "forever", false, []string{"DAPR_TEST_DURATION", `"forever"`, "duration"}},
		{EnvDuration, "0s", false, []string{"DAPR_TEST_DURATION", `"0s"`, "from 1s"}},
		{EnvDuration, "500ms", false, []string{"DAPR_TEST_DURATION", `"500ms"`, "from 1s"}},
		{EnvDuration, "60", false, []string{"DAPR_TEST_DURATION", `"60"`}},
		{EnvPayloadSize, "-1", false, []string{"DAPR_PAYLOAD_SIZE", `"-1"`, "bytes"}},
		{EnvPayloadSize, "99999999", false, []string{"DAPR_PAYLOAD_SIZE", `"99999999"`, "10485760"}},
		{EnvPayloadSize, "1KB", false, []string{"DAPR_PAYLOAD_SIZE", `"1KB"`}},
		{EnvWarmupQPS, "0", true, []string{"DAPR_PERF_WARMUP_QPS", `"0"`}},
		{EnvWarmupDuration, "soon", true, []string{"DAPR_PERF_WARMUP_DURATION", `"soon"`}},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			t.Setenv(tc.name, tc.value)
			var err error
			if tc.warmup {
				_, err = NewWarmupParams()
			} else {
				_, err = NewParams()
			}
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestValidateNamesEveryBadField(t *testing.T) {
	p := DefaultParams()
	p.QPS = 0
	p.Connections = -1
	p.Duration = time.Millisecond
	p.PayloadBytes = -3
	p.Percentiles = []float64{50, 100}
	p.Protocol = "udp"
	err := p.Validate()
	require.Error(t, err)
	for _, field := range []string{"qps", "connections", "duration", "payloadBytes", "percentiles = 100", "protocol"} {
		assert.Contains(t, err.Error(), field)
	}
}

func TestValidateTargets(t *testing.T) {
	for _, tc := range []struct {
		proto  Protocol
		target string
		ok     bool
	}{
		{HTTP, "http://127.0.0.1:3500/v1.0/invoke/app/method/test", true},
		{HTTP, "127.0.0.1:3500", false},
		{HTTP, "ftp://x/y", false},
		{GRPC, "127.0.0.1:50001", true},
		{GRPC, "http://127.0.0.1:50001", false},
		{GRPC, "localhost", false},
	} {
		p := DefaultParams()
		p.Protocol, p.Target = tc.proto, tc.target
		err := p.Validate()
		if tc.ok {
			assert.NoError(t, err, tc.target)
		} else if assert.Error(t, err, tc.target) {
			assert.Contains(t, err.Error(), "target")
		}
	}
}
