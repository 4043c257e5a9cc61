package main_test

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/httpapp"
	"github.com/daprperf/daprperf/apps/internal/apptest"
)

const pkg = "github.com/daprperf/daprperf/apps/httpapp/cmd/httpapp"

func TestCommand(t *testing.T) {
	bin := apptest.Build(t, pkg)
	t.Run("ServesAndStopsOnSIGTERM", func(t *testing.T) { testServesAndStops(t, bin) })
	t.Run("RejectsBadFlags", func(t *testing.T) { testRejectsBadFlags(t, bin) })
}

func testServesAndStops(t *testing.T, bin string) {
	p := apptest.Start(t, bin, "-delay", "1ms")

	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+p.Addr+"/checkout/123", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, httpapp.Body, string(body))

	assert.Equal(t, 0, p.Stop(t, 5*time.Second), "stderr: %s", p.Stderr())
}

func testRejectsBadFlags(t *testing.T, bin string) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-fail-fraction", "2"}, "-fail-fraction"},
		{[]string{"-fail-fraction", "-0.1"}, "-fail-fraction"},
		{[]string{"-port", "-1"}, "-port"},
		{[]string{"-port", "65536"}, "-port"},
		{[]string{"-delay", "-1ms"}, "-delay"},
		{[]string{"-delay", "2"}, "-delay"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		code, stdout, stderr := apptest.Run(t, 5*time.Second, bin, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
		assert.Empty(t, stdout, "%v", tc.args)
	}
}
