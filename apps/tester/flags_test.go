package tester

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// env is a lookupEnv over a map.
func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestParseFlags(t *testing.T) {
	t.Run("what the platforms pass", func(t *testing.T) {
		args := append([]string{"-port", "3000"}, perf.TesterArgs(
			[]string{"127.0.0.1:3500", "127.0.0.1:50001", "testapp.daprperf-ab12c.svc:3000"},
			perf.TesterLimits{MaxQPS: 2000, MaxConnections: 32, MaxDuration: 2 * time.Minute})...)
		var stderr bytes.Buffer
		f, err := ParseFlags(args, env(map[string]string{perf.EnvTesterToken: testToken}), &stderr)
		require.NoError(t, err, stderr.String())
		assert.Equal(t, 3000, f.Port)
		c := f.Config
		assert.Equal(t, []string{"127.0.0.1:3500", "127.0.0.1:50001", "testapp.daprperf-ab12c.svc:3000"}, c.Allow.Addrs())
		assert.Equal(t, "flag -allow", c.Allow.Source())
		assert.Equal(t, Limits{
			TesterLimits: perf.TesterLimits{MaxQPS: 2000, MaxConnections: 32, MaxDuration: 2 * time.Minute},
			QPSSource:    "flag -max-qps", ConnectionsSource: "flag -max-connections", DurationSource: "flag -max-duration",
		}, c.Limits)
		assert.Equal(t, testToken, c.Token)
		assert.Equal(t, "127.0.0.1", c.Host)
		d := c.Describe()
		assert.Equal(t, "allow-list (flag -allow): 127.0.0.1:3500, 127.0.0.1:50001, testapp.daprperf-ab12c.svc:3000; "+
			"bounds: max QPS 2000 (flag -max-qps), max connections 32 (flag -max-connections), max duration 2m0s (flag -max-duration), max iterations 100000000 (default); token: required", d)
		assert.NotContains(t, d, testToken)
	})
	t.Run("from the environment", func(t *testing.T) {
		f, err := ParseFlags([]string{"-host", "0.0.0.0"}, env(map[string]string{
			perf.EnvTesterAllow: "127.0.0.1:3500, 127.0.0.1:50001", perf.EnvTesterMaxQPS: "200",
			perf.EnvTesterMaxConnections: "4", perf.EnvTesterMaxDuration: "90s", perf.EnvTesterToken: testToken,
		}), &bytes.Buffer{})
		require.NoError(t, err)
		assert.Equal(t, "env DAPRPERF_TESTER_ALLOW", f.Config.Allow.Source())
		assert.Equal(t, 2, f.Config.Allow.Len())
		assert.Equal(t, perf.TesterLimits{MaxQPS: 200, MaxConnections: 4, MaxDuration: 90 * time.Second}, f.Config.Limits.TesterLimits)
		assert.Equal(t, "env DAPRPERF_TESTER_MAX_DURATION", f.Config.Limits.DurationSource)
	})
	t.Run("repeated -allow", func(t *testing.T) {
		f, err := ParseFlags([]string{"-allow", "127.0.0.1:1", "-allow=127.0.0.1:2,127.0.0.1:1"}, env(nil), &bytes.Buffer{})
		require.NoError(t, err)
		assert.Equal(t, []string{"127.0.0.1:1", "127.0.0.1:2"}, f.Config.Allow.Addrs())
	})
	t.Run("nothing given", func(t *testing.T) {
		f, err := ParseFlags(nil, env(nil), &bytes.Buffer{})
		require.NoError(t, err)
		assert.Equal(t, "allow-list (none given): none: every POST /test is refused; bounds: max QPS 1000000 (default), "+
			"max connections 10000 (default), max duration 24h0m0s (default), max iterations 100000000 (default); token: not required (loopback)", f.Config.Describe())
	})
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"flag and env both", []string{"-allow=127.0.0.1:1"}, map[string]string{perf.EnvTesterAllow: "127.0.0.1:2"},
			"-allow and env DAPRPERF_TESTER_ALLOW are both set: set one"},
		{"bad entry", []string{"-allow=127.0.0.1"}, nil, `allow-list (flag -allow): entry "127.0.0.1": not host:port`},
		{"qps zero", []string{"-max-qps=0"}, nil, `flag -max-qps = "0": must be an integer from 1 to 1000000`},
		{"qps too high", nil, map[string]string{perf.EnvTesterMaxQPS: "1000001"}, `env DAPRPERF_TESTER_MAX_QPS = "1000001"`},
		{"connections", []string{"-max-connections=many"}, nil, `flag -max-connections = "many"`},
		{"duration", []string{"-max-duration=10"}, nil, `flag -max-duration = "10": must be a Go duration from 1s to 24h0m0s`},
		{"short token", nil, map[string]string{perf.EnvTesterToken: "changeme"}, "env DAPRPERF_TESTER_TOKEN: must be at least 16 characters"},
		{"no token off loopback", []string{"-host=0.0.0.0"}, nil, "-host 0.0.0.0 is not loopback: env DAPRPERF_TESTER_TOKEN must be set"},
		{"bad host", []string{"-host=localhost"}, nil, `-host "localhost": not an IP address`},
		{"argument", []string{"extra"}, nil, `unexpected argument "extra"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			_, err := ParseFlags(tc.args, env(tc.env), &stderr)
			require.ErrorContains(t, err, tc.want)
			assert.Contains(t, stderr.String(), tc.want, "the error is written to stderr")
		})
	}
}
