package runner

import (
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mustEnv is LoadEnv, failing t on an error.
func mustEnv(t *testing.T) perf.Env {
	t.Helper()
	env, err := LoadEnv()
	require.NoError(t, err)
	return env
}

// Every bad variable is named at once, with its value and what it accepts; good ones are read.
func TestLoadEnvNamesEveryBadVariable(t *testing.T) {
	t.Setenv(perf.EnvRepeats, "99")
	t.Setenv(perf.EnvQPS, "lots")
	t.Setenv(perf.EnvOverheadGate, "sometimes")
	t.Setenv(perf.EnvMinQPSRatio, "0")
	t.Setenv(perf.EnvConnections, "8")
	env, err := LoadEnv()
	require.Error(t, err)
	for _, w := range []string{
		`DAPR_PERF_REPEATS="99": must be an integer from 1 to 50`,
		`DAPR_PERF_QPS="lots": must be an integer from 1 to 1000000`,
		`DAPR_PERF_OVERHEAD_GATE="sometimes": must be enforce or warn`,
		`DAPR_PERF_MIN_QPS_RATIO="0": must be a ratio in (0, 1]`,
	} {
		assert.Contains(t, err.Error(), w)
	}
	assert.NotContains(t, err.Error(), perf.EnvConnections)
	require.NotNil(t, env.Connections)
	assert.Equal(t, 8, *env.Connections)

	t.Setenv(perf.EnvRepeats, "6")
	t.Setenv(perf.EnvQPS, "500")
	t.Setenv(perf.EnvOverheadGate, "")
	t.Setenv(perf.EnvMinQPSRatio, "1")
	env, err = LoadEnv()
	require.NoError(t, err)
	assert.Equal(t, 6, *env.Repeats)
	assert.Equal(t, 500, *env.QPS)
	assert.Equal(t, "", perf.Val(env.OverheadGate), "set but empty text counts as unset")
	assert.Equal(t, 1.0, *env.MinQPSRatio)
}

func TestEnvBeatsOptionsForTheMainPhaseOnly(t *testing.T) {
	t.Setenv(perf.EnvQPS, "250")
	t.Setenv(perf.EnvConnections, "8")
	t.Setenv(perf.EnvDuration, "90s")
	t.Setenv(perf.EnvPayloadSize, "2048")
	opts := []perf.Option{perf.WithQPS(1000), perf.WithConnections(16), perf.WithDuration(time.Minute), perf.WithPayloadSize(1024)}

	main, err := mustEnv(t).MainParams(opts...)
	require.NoError(t, err)
	assert.Equal(t, 250, main.QPS)
	assert.Equal(t, 8, main.Connections)
	assert.Equal(t, 90*time.Second, main.Duration)
	assert.Equal(t, 2048, main.PayloadBytes)

	warmup, err := mustEnv(t).WarmupParams(perf.WithQPS(100), perf.WithDuration(10*time.Second))
	require.NoError(t, err)
	assert.Equal(t, 100, warmup.QPS, "DAPR_PERF_QPS must not change the warmup")
	assert.Equal(t, 10*time.Second, warmup.Duration)

	t.Setenv(perf.EnvWarmupQPS, "50")
	t.Setenv(perf.EnvWarmupDuration, "5s")
	warmup, err = mustEnv(t).WarmupParams(perf.WithQPS(100), perf.WithDuration(10*time.Second))
	require.NoError(t, err)
	assert.Equal(t, 50, warmup.QPS)
	assert.Equal(t, 5*time.Second, warmup.Duration)
}

func TestPayloadEnvIsLiteral(t *testing.T) {
	t.Setenv(perf.EnvPayload, `{"order":1}`)
	p, err := mustEnv(t).MainParams(perf.WithPayloadSize(1024))
	require.NoError(t, err)
	assert.Equal(t, []byte(`{"order":1}`), p.RequestBody())
}

func TestInvalidEnvValuesAreErrorsNamingThem(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        []string // substrings of the error
	}{
		{perf.EnvQPS, "abc", []string{"DAPR_PERF_QPS", `"abc"`, "integer"}},
		{perf.EnvQPS, "0", []string{"DAPR_PERF_QPS", `"0"`, "from 1 to"}},
		{perf.EnvQPS, "-5", []string{"DAPR_PERF_QPS", `"-5"`, "from 1 to"}},
		{perf.EnvQPS, "", []string{"DAPR_PERF_QPS", `""`}},
		{perf.EnvConnections, "0", []string{"DAPR_PERF_CONNECTIONS", `"0"`, "from 1 to"}},
		{perf.EnvConnections, "many", []string{"DAPR_PERF_CONNECTIONS", `"many"`}},
		{perf.EnvDuration, "forever", []string{"DAPR_TEST_DURATION", `"forever"`, "duration"}},
		{perf.EnvDuration, "0s", []string{"DAPR_TEST_DURATION", `"0s"`, "from 1s"}},
		{perf.EnvDuration, "500ms", []string{"DAPR_TEST_DURATION", `"500ms"`, "from 1s"}},
		{perf.EnvDuration, "60", []string{"DAPR_TEST_DURATION", `"60"`}},
		{perf.EnvPayloadSize, "-1", []string{"DAPR_PAYLOAD_SIZE", `"-1"`, "bytes"}},
		{perf.EnvPayloadSize, "99999999", []string{"DAPR_PAYLOAD_SIZE", `"99999999"`, "10485760"}},
		{perf.EnvPayloadSize, "1KB", []string{"DAPR_PAYLOAD_SIZE", `"1KB"`}},
		{perf.EnvWarmupQPS, "0", []string{"DAPR_PERF_WARMUP_QPS", `"0"`}},
		{perf.EnvWarmupDuration, "soon", []string{"DAPR_PERF_WARMUP_DURATION", `"soon"`}},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			t.Setenv(tc.name, tc.value)
			// LoadEnv names the bad variable, whichever phase it belongs to.
			_, err := LoadEnv()
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// The bound variables are checked when the environment is read, each error naming its variable
// and value.
func TestBadThresholdEnvNamesTheVariable(t *testing.T) {
	for name, value := range map[string]string{
		perf.EnvMaxErrors: "-1", perf.EnvMaxRestarts: "x", perf.EnvMinQPSRatio: "1.5",
		perf.EnvMaxOverheadPrefix + "P50": "fast", perf.EnvOverheadGate: "maybe",
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, value)
			_, err := LoadEnv()
			require.Error(t, err)
			assert.Contains(t, err.Error(), name+`="`+value+`"`)
		})
	}
}
