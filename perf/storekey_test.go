package perf

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStoreKey(t *testing.T) {
	sc := func(meta map[string]string) Scenario {
		return Scenario{Tester: "tester", Apps: []App{{Name: "tester", Kind: Tester, Sidecar: &Sidecar{
			Components: []Component{{Name: "statestore", Type: StateRedis, Metadata: meta}}}}}}
	}
	get := Operation{Kind: OpStateGet, Store: "statestore", Key: "abc123"}
	for _, tc := range []struct {
		prefix, want string
	}{
		{"", "tester||abc123"}, // Dapr's default, appid
		{"appid", "tester||abc123"},
		{"name", "statestore||abc123"},
		{"none", "abc123"},
		{"shared", "shared||abc123"},
	} {
		meta := map[string]string{}
		if tc.prefix != "" {
			meta["keyPrefix"] = tc.prefix
		}
		got, err := storeKey(sc(meta), get)
		require.NoError(t, err, tc.prefix)
		assert.Equal(t, tc.want, got, tc.prefix)
	}
	_, err := storeKey(sc(map[string]string{"keyPrefix": "a/b"}), get)
	assert.ErrorContains(t, err, `component statestore: metadata keyPrefix "a/b"`)
	pub := Operation{Kind: OpPublish, PubSub: "p", Topic: "t"}
	got, err := storeKey(sc(nil), pub)
	require.NoError(t, err)
	assert.Empty(t, got, "a publish has no key")
}

func TestSetupValidation(t *testing.T) {
	ok := Setup{Name: "seed", Options: []Option{WithQPS(10), WithConnections(1), WithDuration(time.Second)}}
	assert.NoError(t, Scenario{Setup: []Setup{ok}}.validateSetup())
	err := Scenario{Setup: []Setup{{Options: ok.Options}, {Name: "short", Options: []Option{WithDuration(time.Millisecond)}}}}.validateSetup()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "setup[0]: Name must say what it is for")
	assert.True(t, strings.Contains(err.Error(), `setup "short": `) && strings.Contains(err.Error(), "duration"), err.Error())
}

func TestDirectBaselineStatementAndErrors(t *testing.T) {
	r := Result{Baseline: BaselineStore, Params: Params{Protocol: HTTP, Operation: Operation{Kind: OpStateGet, Direct: BackendRedis}},
		RetCodes: map[string]int64{DirectOK: 9, "timeout": 1, "200": 1}}
	assert.Equal(t, "baseline: direct to the store (redis, its own protocol over TCP, not http)", r.BaselineStatement())
	assert.Equal(t, int64(2), r.Errors(), "a direct phase counts every code but OK, whatever the transport")
}

// routeDep is a deployment with fixed endpoints and a Redis backend (BackendLister).
type routeDep struct {
	Deployment
	backends []BackendInfo
}

func (routeDep) Endpoint(app string, e Endpoint) (string, error) {
	switch e {
	case SidecarHTTP, AppHTTP:
		return "http://127.0.0.1:3500", nil
	}
	return "127.0.0.1:50001", nil
}

func (d routeDep) Backends() []BackendInfo { return d.backends }

// A direct-to-store route goes to the store's address with Direct set and daprd's prefixed
// key, over either transport; the main route stays on the tester's daprd; a store that runs
// in daprd, or a backend the platform did not start, is an error naming the component.
func TestRoutedDirectStore(t *testing.T) {
	op := Operation{Kind: OpStateGet, Store: "statestore", Key: "abc123", Baseline: BaselineStore}
	sc := func(tr Protocol, ct ComponentType) Scenario {
		return Scenario{Test: "state_get_redis", Transport: tr, Tester: "tester", Apps: []App{
			{Name: "tester", Kind: Tester, Sidecar: &Sidecar{Components: []Component{{Name: "statestore", Type: ct}}}},
			{Name: "testapp", Kind: HTTPApp}}}
	}
	dep := routeDep{backends: []BackendInfo{{Backend: BackendRedis, Address: "127.0.0.1:6390"}}}
	base := Params{QPS: 10, Connections: 1, Duration: time.Second, Percentiles: []float64{50, 90}}
	for _, tr := range []Protocol{HTTP, GRPC} {
		p, err := routed(dep, sc(tr, StateRedis), Route{To: "testapp", Operation: op}, base)
		require.NoError(t, err, tr)
		assert.Equal(t, "127.0.0.1:6390", p.Target, tr)
		assert.Equal(t, BackendRedis, p.Operation.Direct, tr)
		assert.Equal(t, "tester||abc123", p.Operation.Key, tr)
		assert.Equal(t, tr, p.Protocol)

		m, err := routed(dep, sc(tr, StateRedis), Route{To: "testapp", ThroughSidecar: true, Operation: op}, base)
		require.NoError(t, err, tr)
		assert.Empty(t, m.Operation.Direct, "the main phase goes through daprd")
		assert.Equal(t, "abc123", m.Operation.Key, "daprd prefixes the key itself")
	}
	_, err := routed(dep, sc(HTTP, StateInMemory), Route{To: "testapp", Operation: op}, base)
	assert.ErrorContains(t, err, `component statestore (state.in-memory) runs inside daprd, there is no store to call directly: use baseline "noop"`)
	_, err = routed(dep, sc(HTTP, StatePostgreSQL), Route{To: "testapp", Operation: op}, base)
	assert.ErrorContains(t, err, "the platform reports no postgresql backend for component statestore")
	_, err = routed(routeDep{}, sc(HTTP, StateRedis), Route{To: "testapp", Operation: Operation{Kind: OpStateGet, Store: "other", Key: "k", Baseline: BaselineStore}}, base)
	assert.ErrorContains(t, err, `no sidecar of the scenario declares component "other"`)
}
