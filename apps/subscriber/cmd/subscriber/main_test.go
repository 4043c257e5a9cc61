package main_test

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/internal/apptest"
)

const pkg = "github.com/daprperf/daprperf/apps/subscriber/cmd/subscriber"

func TestCommand(t *testing.T) {
	bin := apptest.Build(t, pkg)
	t.Run("ServesItsSubscriptionAndStopsOnSIGTERM", func(t *testing.T) {
		p := apptest.Start(t, bin, "-pubsub", "ps", "-topic", "orders", "-bulk", "-bulk-max-messages", "10", "-bulk-max-await", "20ms")
		resp, err := http.Get("http://" + p.Addr + "/dapr/subscribe")
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, resp.Body.Close())
		require.NoError(t, err)
		assert.JSONEq(t, `[{"pubsubname":"ps","topic":"orders","route":"/deliver-bulk","bulkSubscribe":{"enabled":true,"maxMessagesCount":10,"maxAwaitDurationMs":20}}]`, string(body))
		assert.Equal(t, 0, p.Stop(t, 5*time.Second), "stderr: %s", p.Stderr())
	})
	t.Run("GRPCModeServesHealthOverHTTPAndStopsOnSIGTERM", func(t *testing.T) {
		p := apptest.Start(t, bin, "-pubsub", "ps", "-topic", "orders", "-grpc")
		resp, err := http.Get("http://" + p.Addr + "/healthz")
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, 0, p.Stop(t, 5*time.Second), "stderr: %s", p.Stderr())
	})
	t.Run("RejectsBadFlags", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"-topic", "t"}, "-pubsub"},
			{[]string{"-pubsub", "p"}, "-topic"},
			{[]string{"-pubsub", "p", "-topic", "t", "-bulk-max-messages", "-3"}, "-bulk-max-messages"},
			{[]string{"-pubsub", "p", "-topic", "t", "-port", "70000"}, "-port"},
			{[]string{"-pubsub", "p", "-topic", "t", "extra"}, "unexpected argument"},
		} {
			code, stdout, stderr := apptest.Run(t, 5*time.Second, bin, tc.args...)
			assert.Equal(t, 2, code, "%v", tc.args)
			assert.Contains(t, stderr, tc.want, "%v", tc.args)
			assert.Empty(t, stdout, "%v", tc.args)
		}
	})
}
