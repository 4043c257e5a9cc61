package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStoreKey(t *testing.T) {
	sc := func(meta map[string]string) perf.Scenario {
		return perf.Scenario{Tester: "tester", Apps: []perf.App{{Name: "tester", Kind: perf.Tester, Sidecar: &perf.Sidecar{
			Components: []perf.Component{{Name: "statestore", Type: perf.StateRedis, Metadata: meta}}}}}}
	}
	get := perf.Operation{Kind: perf.OpStateGet, Store: "statestore", Key: "abc123"}
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
	pub := perf.Operation{Kind: perf.OpPublish, PubSub: "p", Topic: "t"}
	got, err := storeKey(sc(nil), pub)
	require.NoError(t, err)
	assert.Empty(t, got, "a publish has no key")
}

func TestSetupValidation(t *testing.T) {
	ok := perf.Setup{Name: "seed", Options: []perf.Option{perf.WithQPS(10), perf.WithConnections(1), perf.WithDuration(time.Second)}}
	assert.NoError(t, perf.Scenario{Setup: []perf.Setup{ok}}.ValidateSetup())
	err := perf.Scenario{Setup: []perf.Setup{{Options: ok.Options}, {Name: "short", Options: []perf.Option{perf.WithDuration(time.Millisecond)}}}}.ValidateSetup()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "setup[0]: Name must say what it is for")
	assert.True(t, strings.Contains(err.Error(), `setup "short": `) && strings.Contains(err.Error(), "duration"), err.Error())
}

func TestDirectBaselineStatementAndErrors(t *testing.T) {
	r := perf.Result{Baseline: perf.BaselineStore, Params: perf.Params{Protocol: perf.HTTP, Operation: perf.Operation{Kind: perf.OpStateGet, Direct: perf.BackendRedis}},
		RetCodes: map[string]int64{perf.DirectOK: 9, "timeout": 1, "200": 1}}
	assert.Equal(t, "baseline: direct to the store (redis, its own protocol over TCP, not http)", r.BaselineStatement())
	assert.Equal(t, int64(2), r.Errors(), "a direct phase counts every code but OK, whatever the transport")
}

// routeDep is a deployment with fixed endpoints and a Redis backend (BackendLister).
type routeDep struct {
	perf.Deployment
	backends []perf.BackendInfo
}

func (routeDep) Endpoint(app string, e perf.Endpoint) (string, error) {
	switch e {
	case perf.SidecarHTTP, perf.AppHTTP:
		return "http://127.0.0.1:3500", nil
	}
	return "127.0.0.1:50001", nil
}

func (d routeDep) Backends() []perf.BackendInfo { return d.backends }

// A direct-to-store route goes to the store's address with Direct set and daprd's prefixed
// key, over either transport; the main route stays on the tester's daprd; a store that runs
// in daprd, or a backend the platform did not start, is an error naming the component.
func TestRoutedDirectStore(t *testing.T) {
	op := perf.Operation{Kind: perf.OpStateGet, Store: "statestore", Key: "abc123", Baseline: perf.BaselineStore}
	sc := func(tr perf.Protocol, ct perf.ComponentType) perf.Scenario {
		return perf.Scenario{Test: "state_get_redis", Transport: tr, Tester: "tester", Apps: []perf.App{
			{Name: "tester", Kind: perf.Tester, Sidecar: &perf.Sidecar{Components: []perf.Component{{Name: "statestore", Type: ct}}}},
			{Name: "testapp", Kind: perf.HTTPApp}}}
	}
	dep := routeDep{backends: []perf.BackendInfo{{Backend: perf.BackendRedis, Address: "127.0.0.1:6390"}}}
	base := perf.Params{QPS: 10, Connections: 1, Duration: time.Second, Percentiles: []float64{50, 90}}
	for _, tr := range []perf.Protocol{perf.HTTP, perf.GRPC} {
		p, err := routed(dep, sc(tr, perf.StateRedis), perf.Route{To: "testapp", Operation: op}, base)
		require.NoError(t, err, tr)
		assert.Equal(t, "127.0.0.1:6390", p.Target, tr)
		assert.Equal(t, perf.BackendRedis, p.Operation.Direct, tr)
		assert.Equal(t, "tester||abc123", p.Operation.Key, tr)
		assert.Equal(t, tr, p.Protocol)

		m, err := routed(dep, sc(tr, perf.StateRedis), perf.Route{To: "testapp", ThroughSidecar: true, Operation: op}, base)
		require.NoError(t, err, tr)
		assert.Empty(t, m.Operation.Direct, "the main phase goes through daprd")
		assert.Equal(t, "abc123", m.Operation.Key, "daprd prefixes the key itself")
	}
	_, err := routed(dep, sc(perf.HTTP, perf.StateInMemory), perf.Route{To: "testapp", Operation: op}, base)
	assert.ErrorContains(t, err, `component statestore (state.in-memory) runs inside daprd, there is no store to call directly: use baseline "noop"`)
	_, err = routed(dep, sc(perf.HTTP, perf.StatePostgreSQL), perf.Route{To: "testapp", Operation: op}, base)
	assert.ErrorContains(t, err, "the platform reports no postgresql backend for component statestore")
	_, err = routed(routeDep{}, sc(perf.HTTP, perf.StateRedis), perf.Route{To: "testapp", Operation: perf.Operation{Kind: perf.OpStateGet, Store: "other", Key: "k", Baseline: perf.BaselineStore}}, base)
	assert.ErrorContains(t, err, `no sidecar of the scenario declares component "other"`)
}
