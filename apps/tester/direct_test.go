package tester

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local/localtest"
	"github.com/daprperf/daprperf/perf"
)

// storeSidecar is localtest.Sidecar with a state.redis ("redisstate") and a state.postgresql
// v2 ("pgstate") component.
func storeSidecar(t *testing.T) (daprHTTP, daprGRPC string, backends map[perf.Backend]string) {
	t.Helper()
	daprHTTP, daprGRPC, backends = localtest.Sidecar(t, perf.Component{Name: "redisstate", Type: perf.StateRedis},
		perf.Component{Name: "pgstate", Type: perf.StatePostgreSQL})
	require.Contains(t, backends, perf.BackendRedis)
	require.Contains(t, backends, perf.BackendPostgreSQL)
	return daprHTTP, daprGRPC, backends
}

// stateLoad is a short state load: 20 requests/s for 1 s on 2 connections.
func stateLoad(proto perf.Protocol, target string, op perf.Operation, payload string) perf.Params {
	return perf.Params{Protocol: proto, Target: target, Method: "test", QPS: 20, Connections: 2, Duration: time.Second,
		Percentiles: []float64{50, 90, 99}, Payload: payload, Operation: op}
}

// daprGet reads key of store through daprd's HTTP API: its status and body.
func daprGet(t *testing.T, daprHTTP, store, key string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, daprHTTP+"/v1.0/state/"+store+"/"+key, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestDirectStoreClients runs, against real Redis and PostgreSQL behind a real daprd, for each
// store and each transport: a save through daprd (the tester's own HTTP or gRPC caller),
// which the direct client then reads back byte for byte from the store ("app||<key>", Dapr's
// key prefix); a load of direct gets and one of direct saves (0 errors, one socket per
// connection, the store's own codes), the direct save's value then read through daprd; and a
// direct delete, after which daprd finds no key (204).
func TestDirectStoreClients(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daprd, Redis and PostgreSQL")
	}
	daprHTTP, daprGRPC, backends := storeSidecar(t)
	for _, tc := range []struct {
		store   string
		backend perf.Backend
	}{{"redisstate", perf.BackendRedis}, {"pgstate", perf.BackendPostgreSQL}} {
		for _, proto := range []perf.Protocol{perf.HTTP, perf.GRPC} {
			t.Run(fmt.Sprintf("%s/%s", tc.backend, proto), func(t *testing.T) {
				key := "k-" + string(proto)
				target := daprHTTP
				if proto == perf.GRPC {
					target = daprGRPC
				}
				// A save through daprd; the direct client reads the very bytes daprd stored.
				daprValue := fmt.Sprintf("written by daprd over %s to %s", proto, tc.store)
				res, err := Run(t.Context(), stateLoad(proto, target, perf.Operation{Kind: perf.OpStateSave, Store: tc.store, Key: key}, daprValue))
				require.NoError(t, err)
				require.Zero(t, res.Errors(), "save through daprd: codes %v", res.RetCodes)

				direct := func(kind perf.OperationKind, payload string) perf.Params {
					return stateLoad(proto, backends[tc.backend], perf.Operation{Kind: kind, Store: tc.store, Key: "app||" + key,
						Baseline: perf.BaselineStore, Direct: tc.backend}, payload)
				}
				c, err := newDirectCaller(direct(perf.OpStateGet, ""))
				require.NoError(t, err)
				got, err := c.(*directCaller).read(t.Context())
				require.NoError(t, c.close())
				require.NoError(t, err)
				assert.Equal(t, fmt.Sprintf("%q", daprValue), string(got), "the direct read is daprd's stored value (its JSON bytes)")

				// A direct get load and a direct save load: every request OK, one socket each.
				for _, kind := range []perf.OperationKind{perf.OpStateGet, perf.OpStateSave} {
					res, err := Run(t.Context(), direct(kind, "written directly to "+string(tc.backend)))
					require.NoError(t, err, kind)
					assert.Zero(t, res.Errors(), "%s: codes %v", kind, res.RetCodes)
					assert.Equal(t, res.Requests, res.RetCodes[perf.DirectOK], "%s: codes %v", kind, res.RetCodes)
					assert.InDelta(t, 20, res.Requests, 2, kind)
					assert.Equal(t, int64(2), res.Sockets, "%s: one store connection per load connection", kind)
					assert.Equal(t, perf.BaselineStore, res.Baseline)
					assert.Equal(t, tc.backend, res.Params.Operation.Direct)
					assert.Contains(t, res.BaselineStatement(), fmt.Sprintf("(%s, its own protocol over TCP, not %s)", tc.backend, proto))
				}
				code, body := daprGet(t, daprHTTP, tc.store, key)
				assert.Equal(t, http.StatusOK, code)
				assert.Equal(t, fmt.Sprintf("%q", "written directly to "+string(tc.backend)), body, "daprd reads what the direct save wrote")
				if tc.backend == perf.BackendRedis { // daprd's ETag: the version every save increments
					rc := redis.NewClient(&redis.Options{Addr: backends[perf.BackendRedis]})
					defer func() { _ = rc.Close() }()
					v, err := rc.HGet(t.Context(), "app||"+key, "version").Int()
					require.NoError(t, err)
					assert.Greater(t, v, 20, "daprd's saves and the direct ones each incremented version")
				}

				res, err = Run(t.Context(), direct(perf.OpStateDelete, ""))
				require.NoError(t, err)
				assert.Zero(t, res.Errors(), "direct delete: codes %v", res.RetCodes)
				code, body = daprGet(t, daprHTTP, tc.store, key)
				assert.Equal(t, http.StatusNoContent, code, "daprd finds no key after the direct delete: %q", body)
			})
		}
	}
}

// TestDirectStoreErrors: a direct phase the tester has no client for is a 400 naming the
// field; a store that does not answer fails the load at set-up, naming the store and address.
func TestDirectStoreErrors(t *testing.T) {
	h, err := NewHandler(Config{})
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		op   perf.Operation
		want string
	}{
		{"broker", perf.Operation{Kind: perf.OpStateGet, Store: "s", Key: "k", Baseline: perf.BaselineStore, Direct: perf.BackendRabbitMQ},
			`operation.direct = "rabbitmq": not supported for a direct-to-store phase: the tester's direct state clients are redis (go-redis v9) and postgresql (pgx v5)`},
		{"publish", perf.Operation{Kind: perf.OpPublish, PubSub: "p", Topic: "t", Baseline: perf.BaselineStore, Direct: perf.BackendPostgreSQL},
			`operation.direct = "postgresql": not supported for a direct-to-store phase: the tester's direct publishers are redis`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := json.Marshal(stateLoad(perf.GRPC, "127.0.0.1:6379", tc.op, ""))
			require.NoError(t, err)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/test", strings.NewReader(string(body))))
			assert.Equal(t, http.StatusBadRequest, rec.Code)
			var reply struct {
				Error string `json:"error"`
			}
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &reply), rec.Body.String())
			assert.Contains(t, reply.Error, tc.want)
		})
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	for _, be := range []perf.Backend{perf.BackendRedis, perf.BackendPostgreSQL} {
		start := time.Now()
		_, err := Run(t.Context(), stateLoad(perf.HTTP, closed, perf.Operation{Kind: perf.OpStateGet, Store: "s", Key: "k", Baseline: perf.BaselineStore, Direct: be}, ""))
		require.Error(t, err, be)
		assert.Contains(t, err.Error(), fmt.Sprintf("direct %s %s", be, closed))
		assert.Less(t, time.Since(start), 15*time.Second, "%s: no hang", be)
	}
}
