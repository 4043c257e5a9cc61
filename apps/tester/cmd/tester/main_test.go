package main_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/internal/apptest"
	"github.com/daprperf/daprperf/perf"
)

const pkg = "github.com/daprperf/daprperf/apps/tester/cmd/tester"

func TestCommand(t *testing.T) {
	bin := apptest.Build(t, pkg)
	t.Run("GuardsTheLoadAndStopsOnSIGTERM", func(t *testing.T) { testGuards(t, bin) })
	t.Run("RejectsBadFlags", func(t *testing.T) { testRejectsBadFlags(t, bin) })
}

// post sends a POST /test of body to the tester at addr with the Authorization header auth
// (none when empty) and returns the status and the body.
func post(t *testing.T, addr, auth, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+addr+"/test", strings.NewReader(body))
	require.NoError(t, err)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func testGuards(t *testing.T, bin string) {
	token := perf.NewTesterToken()
	t.Setenv(perf.EnvTesterToken, token) // the child inherits the test's environment
	p := apptest.Start(t, bin, "-allow=127.0.0.1:3500", "-max-qps=10")

	resp, err := http.Get("http://" + p.Addr + "/")
	require.NoError(t, err)
	health, _ := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "ok", string(health))

	outside := `{"target":"http://127.0.0.1:1/","qps":5}`
	code, body := post(t, p.Addr, "", outside)
	assert.Equal(t, http.StatusUnauthorized, code, body)
	code, body = post(t, p.Addr, "Bearer "+token, outside)
	assert.Equal(t, http.StatusForbidden, code, body)
	assert.Contains(t, body, `(127.0.0.1:1) is not in the allow-list (flag -allow`)
	code, body = post(t, p.Addr, "Bearer "+token, `{"target":"http://127.0.0.1:3500/","qps":11}`)
	assert.Equal(t, http.StatusBadRequest, code, body)
	assert.Contains(t, body, "qps = 11 exceeds the bound max QPS = 10 (flag -max-qps)")

	assert.Equal(t, 0, p.Stop(t, 5*time.Second), "stderr: %s", p.Stderr())
	// stderr is complete once the process has exited.
	assert.Contains(t, p.Stderr(), "allow-list (flag -allow): 127.0.0.1:3500; bounds: max QPS 10 (flag -max-qps)")
	assert.NotContains(t, p.Stderr(), token)
}

func testRejectsBadFlags(t *testing.T, bin string) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-port", "-1"}, "-port"},
		{[]string{"-allow", "127.0.0.1"}, `entry "127.0.0.1": not host:port`},
		{[]string{"-max-qps", "0"}, "flag -max-qps"},
		{[]string{"-max-duration", "25h"}, "flag -max-duration"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		code, stdout, stderr := apptest.Run(t, 5*time.Second, bin, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
		assert.Empty(t, stdout, "%v", tc.args)
	}
}
