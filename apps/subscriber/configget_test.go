package subscriber

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
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
	p, err := local.New(local.WithRunDirParent(t.TempDir()), local.WithoutDaprdB())
	if err != nil && os.Getenv("CI") == "" {
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	app := perf.App{Name: "app", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP,
		Components: []perf.Component{{Name: "configstore", Type: perf.ConfigurationRedis}}}}
	d, err := p.StartE(ctx, t, app)
	if err != nil && os.Getenv("CI") == "" && strings.Contains(err.Error(), local.ErrBackendMissing.Error()) {
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	daprHTTP, err := d.Endpoint("app", perf.SidecarHTTP)
	require.NoError(t, err)
	daprGRPC, err := d.Endpoint("app", perf.SidecarGRPC)
	require.NoError(t, err)
	var redisAddr string
	for _, b := range d.Backends() {
		if b.Backend == perf.BackendRedis {
			redisAddr = b.Address
		}
	}
	require.NotEmpty(t, redisAddr)
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
