package main_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/internal/apptest"
)

const pkg = "github.com/daprperf/daprperf/apps/actorapp/cmd/actorapp"

func TestCommand(t *testing.T) {
	bin := apptest.Build(t, pkg)
	t.Run("ServesAndStopsOnSIGTERM", func(t *testing.T) {
		p := apptest.Start(t, bin, "-types", "A,B")
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPut, "http://"+p.Addr+"/actors/A/1/method/noOp", nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, 0, p.Stop(t, 5*time.Second), "stderr: %s", p.Stderr())
	})
	t.Run("RejectsBadFlags", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			env  string
			want string
		}{
			{[]string{"-port", "-1"}, "", "-port"},
			{[]string{"-idle-timeout", "0s"}, "", "-idle-timeout"},
			{[]string{"-timer-due", "-1s"}, "", "-timer-due"},
			{[]string{"-types", ","}, "", "-types"},
			{[]string{"-fail-fraction", "2"}, "", "-fail-fraction"},
			{[]string{"-timer-due", "10s"}, "", "DAPR_HTTP_PORT"},
			{[]string{"extra"}, "", "unexpected argument"},
		} {
			t.Setenv("DAPR_HTTP_PORT", tc.env)
			code, _, stderr := apptest.Run(t, 5*time.Second, bin, tc.args...)
			assert.Equal(t, 2, code, "%v", tc.args)
			assert.Contains(t, stderr, tc.want, "%v", tc.args)
		}
	})
	t.Run("UnreachableRedisFails", func(t *testing.T) {
		code, _, stderr := apptest.Run(t, 10*time.Second, bin, "-redis", "127.0.0.1:1")
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "-redis")
	})
}
