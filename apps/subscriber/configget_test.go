package subscriber

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local/localtest"
)

// getItems asks h's route for its items.
func getItems(t *testing.T, h http.Handler, route string) (int, map[string]configItemJSON, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, route, strings.NewReader("")))
	var items map[string]configItemJSON
	if rec.Code == http.StatusOK {
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &items), rec.Body.String())
	}
	return rec.Code, items, rec.Body.String()
}

// TestConfigGetRoutesReadWhatDaprdReads: against a real daprd with a configuration.redis
// component on a real Redis, each get route reads the key the test wrote into Redis as
// "<value>||<version>": the same value and version straight from Redis and through daprd over
// HTTP and gRPC; a key never written is no item. Skipped without daprd or redis-server unless
// $CI is set.
func TestConfigGetRoutesReadWhatDaprdReads(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daprd and Redis")
	}
	daprHTTP, daprGRPC, redisAddr := localtest.ConfigSidecar(t)
	rc := redis.NewClient(&redis.Options{Addr: redisAddr})
	t.Cleanup(func() { _ = rc.Close() })
	require.NoError(t, rc.Set(t.Context(), "key1", "val1||7", 0).Err())

	h, err := NewHandler(Options{ConfigurationStore: "configstore", ConfigGet: ConfigGetOptions{
		Keys: []string{"key1", "never-written"}, Redis: redisAddr, DaprHTTP: daprHTTP, DaprGRPC: daprGRPC}})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	want := map[string]configItemJSON{"key1": {Value: "val1", Version: "7"}}
	for _, route := range []string{RouteConfigGetBaseline, RouteConfigGetDaprHTTP, RouteConfigGetDaprGRPC} {
		code, items, body := getItems(t, h, route)
		assert.Equal(t, http.StatusOK, code, "%s: %s", route, body)
		assert.Equal(t, want, items, route)
	}
}

// TestConfigGetRoutesNameWhatIsMissing: a route without its backend's address, or without
// keys, answers 500 naming what is missing; outside the configuration mode the get options
// are refused.
func TestConfigGetRoutesNameWhatIsMissing(t *testing.T) {
	h, err := NewHandler(Options{ConfigurationStore: "configstore", ConfigGet: ConfigGetOptions{Keys: []string{"key1"}}})
	require.NoError(t, err)
	for route, want := range map[string]string{
		RouteConfigGetBaseline: "DAPR_PERF_REDIS_ADDR", RouteConfigGetDaprHTTP: "DAPR_HTTP_PORT", RouteConfigGetDaprGRPC: "DAPR_GRPC_PORT",
	} {
		code, _, body := getItems(t, h, route)
		assert.Equal(t, http.StatusInternalServerError, code, route)
		assert.Contains(t, body, want, route)
	}
	h, err = NewHandler(Options{ConfigurationStore: "configstore"})
	require.NoError(t, err)
	code, _, body := getItems(t, h, RouteConfigGetBaseline)
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Contains(t, body, "-configuration-get-keys")

	_, err = NewHandler(Options{PubSub: "p", Topic: "t", ConfigGet: ConfigGetOptions{Keys: []string{"key1"}}})
	assert.ErrorContains(t, err, "-configuration-store")
}

// The get routes stop at configGetTimeout; a context already done fails at once.
func TestConfigGetStopsWithTheRequest(t *testing.T) {
	g := &configGet{store: "configstore", o: ConfigGetOptions{Keys: []string{"k"}, DaprHTTP: "http://127.0.0.1:1"}, http: &http.Client{}}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := g.daprHTTP(ctx)
	assert.ErrorIs(t, err, context.Canceled)
}
