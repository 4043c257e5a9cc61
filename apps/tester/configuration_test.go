package tester

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local/localtest"
	"github.com/daprperf/daprperf/perf"
)

func configLoad(proto perf.Protocol, target string, op perf.Operation, payload string) perf.Params {
	return perf.Params{Protocol: proto, Target: target, Method: "test", QPS: 20, Connections: 2, Duration: time.Second,
		Percentiles: []float64{50, 90, 99}, Payload: payload, Operation: op}
}

// TestConfigurationAgainstRealDaprd: stamped direct writes land in Redis as one key each with
// sequence numbers 0..N-1 exactly once; a direct write of key1 is what daprd's configuration
// API then reads (value and version, over HTTP), configuration.get loads over HTTP and gRPC
// through daprd and straight from Redis all succeed, and a direct get of a missing key fails
// every request, as daprd's component does.
func TestConfigurationAgainstRealDaprd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daprd and Redis")
	}
	daprHTTP, daprGRPC, redisAddr := localtest.ConfigSidecar(t)
	rc := redis.NewClient(&redis.Options{Addr: redisAddr})
	t.Cleanup(func() { _ = rc.Close() })
	set := perf.Operation{Kind: perf.OpConfigurationSet, Store: "configstore", Baseline: perf.BaselineStore, Direct: perf.BackendRedis}

	// stamped updates, one new key each
	upd := set
	upd.Key = "update-" + perf.UUIDToken
	res, err := Run(t.Context(), configLoad(perf.GRPC, redisAddr, upd, perf.DeliveryPayload("r1", 100)))
	require.NoError(t, err)
	require.Zero(t, res.Errors(), "codes %v", res.RetCodes)
	assert.Equal(t, int64(2), res.Sockets, "one Redis connection per load connection")
	keys, err := rc.Keys(t.Context(), "update-*").Result()
	require.NoError(t, err)
	require.Len(t, keys, int(res.Requests), "one key per update")
	seen := map[int64]bool{}
	for _, k := range keys {
		v, err := rc.Get(t.Context(), k).Result()
		require.NoError(t, err)
		var m perf.DeliveryMessage
		require.NoError(t, json.Unmarshal([]byte(v), &m), v)
		seq, sent, err := perf.ParseDeliveryMessage(m)
		require.NoError(t, err)
		assert.Equal(t, "r1", m.Run)
		assert.WithinDuration(t, time.Now(), sent, 10*time.Second)
		assert.False(t, seen[seq], "sequence number %d twice", seq)
		seen[seq] = true
		assert.GreaterOrEqual(t, len(v), 100, "padded to the payload size")
	}
	for i := range int64(len(keys)) {
		assert.True(t, seen[i], "sequence number %d missing", i)
	}

	// key1 written straight to Redis, read back through daprd
	k1 := set
	k1.Key = "key1"
	res, err = Run(t.Context(), configLoad(perf.HTTP, redisAddr, k1, "val1||v7"))
	require.NoError(t, err)
	require.Zero(t, res.Errors(), "codes %v", res.RetCodes)
	resp, err := http.Get(daprHTTP + "/v1.0/configuration/configstore?key=key1")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var items map[string]struct{ Value, Version string }
	require.NoError(t, json.Unmarshal(body, &items), string(body))
	assert.Equal(t, "val1", items["key1"].Value)
	assert.Equal(t, "v7", items["key1"].Version)
	v, ver, err := configurationGet(t.Context(), rc, "key1")
	require.NoError(t, err)
	assert.Equal(t, [2]string{"val1", "v7"}, [2]string{v, ver}, "the direct read splits as daprd does")

	get := perf.Operation{Kind: perf.OpConfigurationGet, Store: "configstore", Keys: []string{"key1"}}
	direct := get
	direct.Baseline, direct.Direct = perf.BaselineStore, perf.BackendRedis
	for name, p := range map[string]perf.Params{
		"http through daprd": configLoad(perf.HTTP, daprHTTP, get, ""),
		"grpc through daprd": configLoad(perf.GRPC, daprGRPC, get, ""),
		"direct to redis":    configLoad(perf.HTTP, redisAddr, direct, ""),
	} {
		res, err := Run(t.Context(), p)
		require.NoError(t, err, name)
		assert.Zero(t, res.Errors(), "%s: codes %v", name, res.RetCodes)
		assert.InDelta(t, 20, res.Requests, 2, name)
	}

	missing := direct
	missing.Keys = []string{"no-such-key"}
	res, err = Run(t.Context(), configLoad(perf.HTTP, redisAddr, missing, ""))
	require.NoError(t, err)
	assert.Equal(t, res.Requests, res.Errors(), "every direct get of a missing key fails")
	assert.Equal(t, res.Requests, res.RetCodes["error"], "codes %v", res.RetCodes)
}

func TestConfigurationDirectErrors(t *testing.T) {
	op := perf.Operation{Kind: perf.OpConfigurationGet, Store: "s", Keys: []string{"k"}, Baseline: perf.BaselineStore, Direct: perf.BackendPostgreSQL}
	err := checkDirect(perf.Params{Operation: op})
	require.EqualError(t, err, `tester: operation.direct = "postgresql": not supported for a direct-to-store phase: the tester's direct configuration client is redis (go-redis v9)`)
	op.Direct = perf.BackendRedis
	require.NoError(t, checkDirect(perf.Params{Operation: op}))
	// nothing listens on port 1: set-up fails naming the store
	_, err = newConfigurationCaller(perf.Params{Target: "127.0.0.1:1", Operation: op}, nil)
	require.ErrorContains(t, err, "tester: direct redis 127.0.0.1:1: ping:")
}
