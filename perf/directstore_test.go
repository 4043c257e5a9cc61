package perf

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// backendDeployment is a Deployment that started a Redis backend and has one tester.
type backendDeployment struct{ backends []BackendInfo }

func (d backendDeployment) Endpoint(app string, e Endpoint) (string, error) {
	if e == SidecarHTTP {
		return "http://127.0.0.1:3500", nil
	}
	return "", errors.New("no endpoint " + string(e))
}
func (backendDeployment) Processes() []string                             { return nil }
func (backendDeployment) Usage(context.Context) (map[string]Usage, error) { return nil, nil }
func (backendDeployment) Exits(context.Context) ([]Exit, error)           { return nil, nil }
func (backendDeployment) DaprVersion() string                             { return "1.17.5" }
func (backendDeployment) TesterToken(string) (string, error)              { return "t", nil }
func (d backendDeployment) Backends() []BackendInfo                       { return d.backends }

func stateScenario(store ComponentType) Scenario {
	return Scenario{
		Test: "state_get_x", Transport: HTTP, Tester: "tester",
		Apps: []App{
			{Name: "tester", Kind: Tester, Sidecar: &Sidecar{AppProtocol: HTTP,
				Components: []Component{{Name: "statestore", Type: store}}}},
		},
	}
}

// A direct-to-store route goes to the address of the backend its component needs, and says
// which backend the tester must call; the sidecar route of the same operation does not.
func TestRoutedDirectStoreGoesToTheBackend(t *testing.T) {
	dep := backendDeployment{backends: []BackendInfo{
		{Backend: BackendPostgreSQL, Address: "127.0.0.1:5999"},
		{Backend: BackendRedis, Address: "127.0.0.1:6999"},
	}}
	sc := stateScenario(StateRedis)
	op := Operation{Kind: OpStateGet, Store: "statestore", Key: "k", Baseline: BaselineStore}
	p, err := routed(dep, sc, Route{To: "tester", Operation: op}, Params{QPS: 10, Connections: 1, Duration: 1e9, Percentiles: []float64{50}})
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:6999", p.Target)
	assert.Equal(t, BackendRedis, p.Operation.Direct)
	assert.Equal(t, BaselineStore, p.Operation.BaselineKind())

	p, err = routed(dep, sc, Route{To: "tester", ThroughSidecar: true, Operation: op}, Params{QPS: 10, Connections: 1, Duration: 1e9, Percentiles: []float64{50}})
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:3500", p.Target)
	assert.Empty(t, p.Operation.Direct)
}

// A direct route is an error naming the component when nothing declares it, when it runs
// inside daprd, or when the platform started no backend for it.
func TestRoutedDirectStoreErrors(t *testing.T) {
	op := Operation{Kind: OpStateGet, Store: "statestore", Key: "k", Baseline: BaselineStore}
	params := Params{QPS: 10, Connections: 1, Duration: 1e9, Percentiles: []float64{50}}
	_, err := routed(backendDeployment{}, stateScenario(StateInMemory), Route{To: "tester", Operation: op}, params)
	assert.ErrorContains(t, err, "component statestore (state.in-memory) runs inside daprd")
	_, err = routed(backendDeployment{}, stateScenario(StateRedis), Route{To: "tester", Operation: op}, params)
	assert.ErrorContains(t, err, "no redis backend for component statestore")
	other := op
	other.Store = "other"
	_, err = routed(backendDeployment{}, stateScenario(StateRedis), Route{To: "tester", Operation: other}, params)
	assert.ErrorContains(t, err, `no sidecar of the scenario declares component "other"`)
	// From the environment (kubernetes): direct when the tester's clients can log in, else an
	// error naming the variable.
	fromEnv := backendDeployment{backends: []BackendInfo{{Backend: BackendRedis, Address: "redis-master.redis.svc.cluster.local:6379", From: "DAPR_PERF_REDIS_ADDR"}}}
	p, err := routed(fromEnv, stateScenario(StateRedis), Route{To: "tester", Operation: op}, params)
	require.NoError(t, err)
	assert.Equal(t, "redis-master.redis.svc.cluster.local:6379", p.Target)
	assert.Equal(t, BackendRedis, p.Operation.Direct)
	fromEnv.backends[0].Login = true
	_, err = routed(fromEnv, stateScenario(StateRedis), Route{To: "tester", Operation: op}, params)
	assert.ErrorContains(t, err, "the redis backend of component statestore (DAPR_PERF_REDIS_ADDR) takes a login the tester's direct clients do not carry")
}

// Operation.Direct accepts only a backend, and only for state and publish kinds.
func TestOperationDirectValidation(t *testing.T) {
	ok := Operation{Kind: OpStateGet, Store: "s", Key: "k", Direct: BackendPostgreSQL}
	assert.NoError(t, ok.Validate(GRPC))
	bad := ok
	bad.Direct = "etcd"
	assert.ErrorContains(t, bad.Validate(HTTP), `operation.direct = "etcd": must be a backend`)
	inv := Operation{Kind: OpInvoke, Method: "m", Direct: BackendRedis}
	assert.ErrorContains(t, inv.Validate(HTTP), "operation.direct = \"redis\": only for kinds state.get")
}
