package subscriber

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local/localtest"
)

// TestStoreSubscriptionThenDaprd: the baseline's subscription straight to a real Redis is told
// of each SET, counted as daprd's notifications are; once it is ended, a subscription through
// a real daprd (gRPC) takes over and each later update is counted once, not once per
// subscription. Skipped without daprd or redis-server unless $CI is set.
func TestStoreSubscriptionThenDaprd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daprd and Redis")
	}
	_, daprGRPC, redisAddr := localtest.ConfigSidecar(t)
	rc := redis.NewClient(&redis.Options{Addr: redisAddr})
	t.Cleanup(func() { _ = rc.Close() })
	h, err := NewHandler(Options{ConfigurationStore: "configstore", ConfigGet: ConfigGetOptions{Redis: redisAddr}})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	call := func(route string, q url.Values) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, route+"?"+q.Encode(), nil))
		return w
	}
	set := func(run string, seq int64) {
		t.Helper()
		require.NoError(t, rc.Set(t.Context(), fmt.Sprintf("update-%s-%d", run, seq), configValue(t, run, seq, time.Now())+"||1", 0).Err())
	}

	h.Reset("baseline")
	w := call(RouteConfigurationSubscribe, url.Values{"protocol": {"store"}})
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.JSONEq(t, `{"id":"__keyspace@0__:*","protocol":"store","store":"configstore"}`, w.Body.String())
	ev, err := rc.ConfigGet(t.Context(), "notify-keyspace-events").Result()
	require.NoError(t, err)
	assert.ElementsMatch(t, []rune("g$xeK"), []rune(ev["notify-keyspace-events"]), "daprd's component's setting")
	for seq := range int64(3) {
		set("baseline", seq)
	}
	require.Eventually(t, func() bool { return stats(t, h, 3).Received == 3 }, 5*time.Second, 10*time.Millisecond)
	st := stats(t, h, 3)
	assert.Zero(t, st.Malformed+st.Duplicates+st.Missing, "%+v", st)
	assert.Equal(t, int64(3), st.HandlerCalls, "one notification, one GET, one call per update")

	assert.Equal(t, http.StatusConflict, call(RouteConfigurationSubscribe, url.Values{"protocol": {"grpc"}, "dapr": {daprGRPC}}).Code,
		"one subscription at a time")
	require.Equal(t, http.StatusNoContent, call(RouteConfigurationUnsubscribe, nil).Code)
	h.Reset("main")
	w = call(RouteConfigurationSubscribe, url.Values{"protocol": {"grpc"}, "dapr": {daprGRPC}})
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	// daprd's component subscribes in the background after answering: updates written before
	// its PSUBSCRIBE are not told. Written until one is, the later ones are each told once.
	seq := int64(0)
	require.Eventually(t, func() bool {
		h.Reset("main")
		set("main", 0)
		time.Sleep(50 * time.Millisecond)
		return stats(t, h, 1).Received == 1
	}, 10*time.Second, 100*time.Millisecond, "daprd's subscription never told an update")
	for seq = 1; seq < 4; seq++ {
		set("main", seq)
	}
	require.Eventually(t, func() bool { return stats(t, h, 4).Received == 4 }, 10*time.Second, 10*time.Millisecond, "%+v", stats(t, h, 4))
	time.Sleep(200 * time.Millisecond) // a second subscription's copies would arrive meanwhile
	st = stats(t, h, 4)
	assert.Zero(t, st.Duplicates, "told once: the store subscription ended")
	assert.Zero(t, st.Malformed+st.Stale, "%+v", st)

	assert.Equal(t, http.StatusBadRequest, call(RouteConfigurationSubscribe, url.Values{"protocol": {"store"}, "dapr": {daprGRPC}}).Code)
}
