package subscriber

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	runtimev1 "github.com/dapr/dapr/pkg/proto/runtime/v1"
)

// Configuration get through the app, as Dapr's configuration perf app serves it (dapr/dapr
// tests/apps/perf/configuration/app.go at v1.18.3, getKeyValues): its load generator asks the
// app, and the app reads the keys either straight from Redis (Dapr's "baseline") or through its
// daprd (Dapr's "dapr" test, over daprd's HTTP or gRPC API). Each route reads
// ConfigGetOptions.Keys and answers 200 with the items as JSON, or 500 with the error:
//   - RouteConfigGetBaseline: GET of each key on Redis, whose value is "<value>||<version>"
//     (the layout of Dapr's configuration.redis component and of Dapr's app);
//   - RouteConfigGetDaprHTTP: GET <daprd>/v1.0/configuration/<store>?key=... ;
//   - RouteConfigGetDaprGRPC: Dapr.GetConfiguration on daprd's gRPC port, one connection
//     shared by every request.
//
// The routes answer any HTTP verb (Dapr's load sends GET; a tester's invoke POSTs).
const (
	RouteConfigGetBaseline = "/configuration-get-baseline"
	RouteConfigGetDaprHTTP = "/configuration-get-dapr-http"
	RouteConfigGetDaprGRPC = "/configuration-get-dapr-grpc"
)

// configGetTimeout bounds one read (Redis, or daprd over HTTP or gRPC).
const configGetTimeout = 10 * time.Second

// redisVersionSeparator splits a Redis value into its value and version, as daprd's
// configuration.redis component writes and reads them (components-contrib
// configuration/redis: "||").
const redisVersionSeparator = "||"

// ConfigGetOptions configure the configuration get routes (the configuration mode only). Every
// field is optional; a route whose backend is not set answers 500 naming the missing field.
type ConfigGetOptions struct {
	// Keys are the keys each route reads; at least one for the routes to be served.
	Keys []string
	// Redis is the host:port of the Redis holding the configuration (the baseline route).
	Redis string
	// DaprHTTP is daprd's HTTP API base URL (http://127.0.0.1:<DAPR_HTTP_PORT>).
	DaprHTTP string
	// DaprGRPC is daprd's gRPC API host:port (127.0.0.1:<DAPR_GRPC_PORT>).
	DaprGRPC string
}

// configItemJSON is one item of a get answer, as daprd's HTTP API answers it.
type configItemJSON struct {
	Value   string `json:"value"`
	Version string `json:"version,omitempty"`
}

// configGet holds the clients of the get routes, each made on first use and shared.
type configGet struct {
	store string
	o     ConfigGetOptions
	http  *http.Client

	mu    sync.Mutex
	redis *redis.Client
	conn  *grpc.ClientConn
}

// route adds the get routes to m.
func (g *configGet) route(m *http.ServeMux) {
	m.HandleFunc(RouteConfigGetBaseline, g.serve(g.baseline))
	m.HandleFunc(RouteConfigGetDaprHTTP, g.serve(g.daprHTTP))
	m.HandleFunc(RouteConfigGetDaprGRPC, g.serve(g.daprGRPC))
}

// serve answers one get with read's items, or 500 with its error.
func (g *configGet) serve(read func(context.Context) (map[string]configItemJSON, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if len(g.o.Keys) == 0 {
			http.Error(w, "configuration get: no keys to read (-configuration-get-keys)", http.StatusInternalServerError)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), configGetTimeout)
		defer cancel()
		items, err := read(ctx)
		if err != nil {
			http.Error(w, "configuration get: "+err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, items)
	}
}

// baseline reads the keys straight from Redis.
func (g *configGet) baseline(ctx context.Context) (map[string]configItemJSON, error) {
	c, err := g.redisClient()
	if err != nil {
		return nil, err
	}
	vals, err := c.MGet(ctx, g.o.Keys...).Result()
	if err != nil {
		return nil, fmt.Errorf("redis MGET: %w", err)
	}
	out := make(map[string]configItemJSON, len(vals))
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue // a key that is not set: no item, as daprd answers
		}
		value, version, _ := strings.Cut(s, redisVersionSeparator)
		out[g.o.Keys[i]] = configItemJSON{Value: value, Version: version}
	}
	return out, nil
}

// daprHTTP reads the keys through daprd's HTTP API.
func (g *configGet) daprHTTP(ctx context.Context) (map[string]configItemJSON, error) {
	if g.o.DaprHTTP == "" {
		return nil, errors.New("no daprd HTTP address (DAPR_HTTP_PORT unset)")
	}
	q := url.Values{"key": g.o.Keys}
	u := strings.TrimSuffix(g.o.DaprHTTP, "/") + "/v1.0/configuration/" + url.PathEscape(g.store) + "?" + q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := g.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("daprd answered %s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	var out map[string]configItemJSON
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("daprd's answer: %w", err)
	}
	return out, nil
}

// daprGRPC reads the keys through daprd's gRPC API.
func (g *configGet) daprGRPC(ctx context.Context) (map[string]configItemJSON, error) {
	conn, err := g.grpcConn()
	if err != nil {
		return nil, err
	}
	resp, err := runtimev1.NewDaprClient(conn).GetConfiguration(ctx, &runtimev1.GetConfigurationRequest{StoreName: g.store, Keys: g.o.Keys})
	if err != nil {
		return nil, err
	}
	out := make(map[string]configItemJSON, len(resp.GetItems()))
	for k, it := range resp.GetItems() {
		out[k] = configItemJSON{Value: it.GetValue(), Version: it.GetVersion()}
	}
	return out, nil
}

// redisClient is the shared Redis client, made on first use.
func (g *configGet) redisClient() (*redis.Client, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.redis != nil {
		return g.redis, nil
	}
	if g.o.Redis == "" {
		return nil, errors.New("no Redis address (DAPR_PERF_REDIS_ADDR unset)")
	}
	g.redis = redis.NewClient(&redis.Options{Addr: g.o.Redis})
	return g.redis, nil
}

// grpcConn is the shared connection to daprd's gRPC API, made on first use.
func (g *configGet) grpcConn() (*grpc.ClientConn, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.conn != nil {
		return g.conn, nil
	}
	if g.o.DaprGRPC == "" {
		return nil, errors.New("no daprd gRPC address (DAPR_GRPC_PORT unset)")
	}
	conn, err := grpc.NewClient("passthrough:///"+g.o.DaprGRPC, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	g.conn = conn
	return conn, nil
}

// close closes the clients made.
func (g *configGet) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.redis != nil {
		_ = g.redis.Close()
	}
	if g.conn != nil {
		_ = g.conn.Close()
	}
}
