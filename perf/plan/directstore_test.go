package plan

import (
	"context"
	"errors"
	"testing"

	"github.com/daprperf/daprperf/perf"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// backendDeployment is a Deployment that started a Redis backend and has one tester.
type backendDeployment struct{ backends []perf.BackendInfo }

func (d backendDeployment) Endpoint(app string, e perf.Endpoint) (string, error) {
	if e == perf.SidecarHTTP {
		return "http://127.0.0.1:3500", nil
	}
	return "", errors.New("no endpoint " + string(e))
}
func (backendDeployment) Processes() []string                                  { return nil }
func (backendDeployment) Usage(context.Context) (map[string]perf.Usage, error) { return nil, nil }
func (backendDeployment) Exits(context.Context) ([]perf.Exit, error)           { return nil, nil }
func (backendDeployment) DaprVersion() string                                  { return "1.17.5" }
func (backendDeployment) TesterToken(string) (string, error)                   { return "t", nil }
func (d backendDeployment) Backends() []perf.BackendInfo                       { return d.backends }

func stateScenario(store perf.ComponentType) perf.Scenario {
	return perf.Scenario{
		Test: "state_get_x", Transport: perf.HTTP, Tester: "tester",
		Apps: []perf.App{
			{Name: "tester", Kind: perf.Tester, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP,
				Components: []perf.Component{{Name: "statestore", Type: store}}}},
		},
	}
}

// A direct-to-store route goes to the address of the backend its component needs, and says
// which backend the tester must call; the sidecar route of the same operation does not.
func TestRoutedDirectStoreGoesToTheBackend(t *testing.T) {
	dep := backendDeployment{backends: []perf.BackendInfo{
		{Backend: perf.BackendPostgreSQL, Address: "127.0.0.1:5999"},
		{Backend: perf.BackendRedis, Address: "127.0.0.1:6999"},
	}}
	sc := stateScenario(perf.StateRedis)
	op := perf.Operation{Kind: perf.OpStateGet, Store: "statestore", Key: "k", Baseline: perf.BaselineStore}
	p, err := routed(dep, sc, perf.Route{To: "tester", Operation: op}, perf.Params{QPS: 10, Connections: 1, Duration: 1e9, Percentiles: []float64{50}})
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:6999", p.Target)
	assert.Equal(t, perf.BackendRedis, p.Operation.Direct)
	assert.Equal(t, perf.BaselineStore, p.Operation.BaselineKind())

	p, err = routed(dep, sc, perf.Route{To: "tester", ThroughSidecar: true, Operation: op}, perf.Params{QPS: 10, Connections: 1, Duration: 1e9, Percentiles: []float64{50}})
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:3500", p.Target)
	assert.Empty(t, p.Operation.Direct)
}

// A direct route is an error naming the component when nothing declares it, when it runs
// inside daprd, or when the platform started no backend for it.
func TestRoutedDirectStoreErrors(t *testing.T) {
	op := perf.Operation{Kind: perf.OpStateGet, Store: "statestore", Key: "k", Baseline: perf.BaselineStore}
	params := perf.Params{QPS: 10, Connections: 1, Duration: 1e9, Percentiles: []float64{50}}
	_, err := routed(backendDeployment{}, stateScenario(perf.StateInMemory), perf.Route{To: "tester", Operation: op}, params)
	assert.ErrorContains(t, err, "component statestore (state.in-memory) runs inside daprd")
	_, err = routed(backendDeployment{}, stateScenario(perf.StateRedis), perf.Route{To: "tester", Operation: op}, params)
	assert.ErrorContains(t, err, "no redis backend for component statestore")
	other := op
	other.Store = "other"
	_, err = routed(backendDeployment{}, stateScenario(perf.StateRedis), perf.Route{To: "tester", Operation: other}, params)
	assert.ErrorContains(t, err, `no sidecar of the scenario declares component "other"`)
	// From the environment (kubernetes): direct when the tester's clients can log in, else an
	// error naming the variable.
	fromEnv := backendDeployment{backends: []perf.BackendInfo{{Backend: perf.BackendRedis, Address: "redis-master.redis.svc.cluster.local:6379", From: "DAPR_PERF_REDIS_ADDR"}}}
	p, err := routed(fromEnv, stateScenario(perf.StateRedis), perf.Route{To: "tester", Operation: op}, params)
	require.NoError(t, err)
	assert.Equal(t, "redis-master.redis.svc.cluster.local:6379", p.Target)
	assert.Equal(t, perf.BackendRedis, p.Operation.Direct)
	fromEnv.backends[0].Login = true
	_, err = routed(fromEnv, stateScenario(perf.StateRedis), perf.Route{To: "tester", Operation: op}, params)
	assert.ErrorContains(t, err, "the redis backend of component statestore (DAPR_PERF_REDIS_ADDR) takes a login the tester's direct clients do not carry")
}

// Operation.Direct accepts only a backend, and only for state and publish kinds.
func TestOperationDirectValidation(t *testing.T) {
	ok := perf.Operation{Kind: perf.OpStateGet, Store: "s", Key: "k", Direct: perf.BackendPostgreSQL}
	assert.NoError(t, ok.Validate(perf.GRPC))
	bad := ok
	bad.Direct = "etcd"
	assert.ErrorContains(t, bad.Validate(perf.HTTP), `operation.direct = "etcd": must be a backend`)
	inv := perf.Operation{Kind: perf.OpInvoke, Method: "m", Direct: perf.BackendRedis}
	assert.ErrorContains(t, inv.Validate(perf.HTTP), "operation.direct = \"redis\": only for kinds state.get")
}

// appDeployment is backendDeployment with app endpoints.
type appDeployment struct{ backendDeployment }

func (appDeployment) Endpoint(app string, e perf.Endpoint) (string, error) {
	switch e {
	case perf.AppHTTP:
		return "http://127.0.0.1:4001", nil
	case perf.AppGRPC:
		return "127.0.0.1:4002", nil
	}
	return "", errors.New("no endpoint " + string(e))
}

// A route's own protocol wins over the scenario's transport: a gRPC scenario's route stated
// over HTTP loads the app's HTTP port at /<method>; one without goes over gRPC.
func TestRoutedTakesTheRoutesProtocol(t *testing.T) {
	sc := perf.Scenario{Test: "configuration_get_ramp", Transport: perf.GRPC, Tester: "tester"}
	load := perf.Params{QPS: 10, Connections: 1, Duration: 1e9, Percentiles: []float64{50}}
	p, err := routed(appDeployment{}, sc, perf.Route{To: "app", Method: "configuration-get-dapr-grpc", Protocol: perf.HTTP}, load)
	require.NoError(t, err)
	assert.Equal(t, perf.HTTP, p.Protocol)
	assert.Equal(t, "http://127.0.0.1:4001/configuration-get-dapr-grpc", p.Target)

	p, err = routed(appDeployment{}, sc, perf.Route{To: "app"}, load)
	require.NoError(t, err)
	assert.Equal(t, perf.GRPC, p.Protocol)
	assert.Equal(t, "127.0.0.1:4002", p.Target)
}
