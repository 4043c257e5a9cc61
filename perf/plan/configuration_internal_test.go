package plan

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf/driver"
)

// configSubscribeScenario is a configuration subscribe delivery scenario over transport.
func configSubscribeScenario(transport perf.Protocol) perf.Scenario {
	return perf.Scenario{Test: "configuration_subscribe", Transport: transport, Tester: "tester",
		Apps: []perf.App{{Name: "tester", Kind: perf.Tester}, {Name: "sub", Kind: perf.Subscriber, Args: perf.ConfigurationSubscriberArgs("configstore"),
			Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Components: []perf.Component{{Name: "configstore", Type: perf.ConfigurationRedis}}}}},
		Main:        perf.Route{To: "sub", Operation: perf.Operation{Kind: perf.OpConfigurationSet, Store: "configstore", Key: "u-" + perf.UUIDToken, Baseline: perf.BaselineStore}},
		MainOptions: []perf.Option{perf.WithQPS(100), perf.WithConnections(4), perf.WithDuration(time.Minute)}, WarmupOptions: []perf.Option{perf.WithQPS(20), perf.WithDuration(5 * time.Second)},
		Plan: &DeliveryPlan{Subscriber: "sub", Mode: perf.SubscribeConfiguration, Broker: perf.BackendRedis}}
}

// The configuration mode takes both transports and only a direct configuration.set as Main;
// the pub/sub modes keep their rules.
func TestDeliveryPlanConfigurationMode(t *testing.T) {
	for _, tr := range []perf.Protocol{perf.HTTP, perf.GRPC} {
		sc := configSubscribeScenario(tr)
		var cfg perf.RunConfig
		run := mustConfigure(t, planOf(sc), sc, &cfg)
		assert.Equal(t, 100, cfg.Main.QPS)
		assert.Equal(t, time.Minute, cfg.Main.Duration)
		assert.Contains(t, run.Steps(sc, cfg)[1].Name, "write configuration updates to the store, 100 msg/s x 1m0s, configuration subscribe")
	}
	sc := configSubscribeScenario(perf.HTTP)
	sc.Plan.(*DeliveryPlan).Baseline = true
	var cfg perf.RunConfig
	steps := mustConfigure(t, planOf(sc), sc, &cfg).Steps(sc, cfg)
	require.Len(t, steps, 4, "baseline, warmup, main, drain")
	assert.Equal(t, "baseline: write configuration updates to the store, 100 msg/s x 1m0s, the subscriber on the store's own notifications (no daprd), then up to 15s for its last updates", steps[0].Name)
	sc = configSubscribeScenario(perf.HTTP)
	sc.Plan = &DeliveryPlan{Subscriber: "sub", Mode: perf.SubscribeNormal, Broker: perf.BackendRedis, Baseline: true}
	assert.ErrorContains(t, configureErr(planOf(sc), sc, &perf.RunConfig{}), `delivery plan: Baseline: mode "configuration" only`)

	sc = configSubscribeScenario(perf.GRPC)
	sc.Main = perf.Route{To: "sub", ThroughSidecar: true, Operation: perf.Operation{Kind: perf.OpPublish, PubSub: "p", Topic: "t"}}
	assert.ErrorContains(t, configureErr(planOf(sc), sc, &perf.RunConfig{}), `mode configuration: Main must write configuration straight to the store (Operation.Kind "configuration.set", ThroughSidecar false); got "publish", true`)
	sc = configSubscribeScenario(perf.GRPC)
	sc.Plan = &DeliveryPlan{Subscriber: "sub", Mode: perf.SubscribeNormal, Broker: perf.BackendRedis}
	err := configureErr(planOf(sc), sc, &perf.RunConfig{})
	assert.ErrorContains(t, err, `Transport "grpc": only "http"`)
	assert.ErrorContains(t, err, `Main must publish through the tester's sidecar`)
}

func TestConfigurationOperations(t *testing.T) {
	set := perf.Operation{Kind: perf.OpConfigurationSet, Store: "configstore", Key: "key1", Baseline: perf.BaselineStore}
	for _, tr := range []perf.Protocol{perf.HTTP, perf.GRPC} {
		assert.NoError(t, set.Validate(tr), tr)
	}
	noBase := set
	noBase.Baseline = ""
	assert.EqualError(t, noBase.Validate(perf.HTTP), `operation.baseline = "": must be "store" for kind configuration.set: Dapr has no API that writes configuration, so it only goes straight to the store`)
	noKey := set
	noKey.Key, noKey.Keys = "", []string{"a"}
	err := noKey.Validate(perf.HTTP)
	assert.ErrorContains(t, err, `operation.key = "": must be set for kind configuration.set`)
	assert.ErrorContains(t, err, `operation.keys = [a]: not used by kind configuration.set`)
	get := perf.Operation{Kind: perf.OpConfigurationGet, Store: "configstore", Keys: []string{"key1"}}
	assert.NoError(t, get.Validate(perf.GRPC), "configuration.get is a gRPC kind")
	get.Direct = perf.BackendRedis
	assert.NoError(t, get.Validate(perf.GRPC))
	get.Direct = perf.BackendMQTT
	assert.NoError(t, get.Validate(perf.GRPC), "Validate knows backends, the tester refuses a direct client it has not")
	assert.Equal(t, perf.BackendRedis, perf.Component{Name: "c", Type: perf.ConfigurationRedis}.Backend())
	assert.ErrorContains(t, perf.Component{Name: "c", Type: perf.ConfigurationRedis, Metadata: map[string]string{"redisHost": "x"}}.Validate(), `Metadata key "redisHost" is set by the platform`)
}

// routed sends both configuration kinds with the store baseline straight to Redis with the
// key as it is (configuration.redis has no key prefix), and configuration.get through the
// tester's daprd for the main route.
func TestRoutedConfiguration(t *testing.T) {
	dep := routeDep{backends: []perf.BackendInfo{{Backend: perf.BackendRedis, Address: "127.0.0.1:6379"}}}
	sc := configSubscribeScenario(perf.GRPC)
	sc.Apps[0].Sidecar = &perf.Sidecar{AppProtocol: perf.HTTP, Components: []perf.Component{{Name: "configstore", Type: perf.ConfigurationRedis}}}
	base := perf.Params{QPS: 10, Connections: 1, Duration: time.Second, Percentiles: []float64{50}}
	p, err := routed(dep, sc, sc.Main, base)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:6379", p.Target)
	assert.Equal(t, perf.BackendRedis, p.Operation.Direct)
	assert.Equal(t, "u-"+perf.UUIDToken, p.Operation.Key, "no app-id prefix")
	get := perf.Route{To: "sub", ThroughSidecar: true, Operation: perf.Operation{Kind: perf.OpConfigurationGet, Store: "configstore", Keys: []string{"key1"}, Baseline: perf.BaselineStore}}
	p, err = routed(dep, sc, get, base)
	require.NoError(t, err)
	assert.Empty(t, p.Operation.Direct)
	assert.Equal(t, "127.0.0.1:50001", p.Target, "the tester's daprd gRPC API")
}

// The preflight ladder steps a fixed rate down; a closed loop of the driver (the configuration
// get ramp) has none, so it runs no preflight.
func TestNoPreflightForAnExecutorLoad(t *testing.T) {
	t.Setenv(perf.EnvQPS, "")
	os.Unsetenv(perf.EnvQPS)
	cfg := perf.RunConfig{PreflightLadder: true, Main: perf.Params{QPS: 1000}}
	assert.True(t, preflightWanted(cfg))
	cfg.Main.Executor = driver.Executor{Kind: driver.RampingVUs, Stages: []driver.Stage{{Duration: time.Second, Target: 5}}}
	assert.False(t, preflightWanted(cfg))
}

// restartPlatform is a kubernetes-named platform that answers CanRestartBackend with err.
type restartPlatform struct {
	testPlatform
	err error
}

func (p restartPlatform) CanRestartBackend(perf.Backend) error { return p.err }

// On kubernetes every mode configures (the subscriber's GET /stats goes through a
// port-forward, the tester pod writes configuration updates to the store's Service); a broker
// restart configures where the platform can restart the broker, and is refused with the
// platform's reason where it cannot.
func TestDeliveryPlanOnKubernetes(t *testing.T) {
	kube := func() *perf.RunConfig { return &perf.RunConfig{Platform: testPlatform("kubernetes")} }
	sc := configSubscribeScenario(perf.HTTP)
	require.NoError(t, configureErr(planOf(sc), sc, kube()))
	sc.Main = perf.Route{To: "sub", ThroughSidecar: true, Operation: perf.Operation{Kind: perf.OpPublish, PubSub: "p", Topic: "t"}}
	sc.Plan = &DeliveryPlan{Subscriber: "sub", Mode: perf.SubscribeNormal, Broker: perf.BackendRedis}
	require.NoError(t, configureErr(planOf(sc), sc, kube()))
	sc.Plan = &DeliveryPlan{Subscriber: "sub", Mode: perf.SubscribeBulk, Broker: perf.BackendRedis, RestartBroker: 10 * time.Second}
	no := &perf.RunConfig{Platform: restartPlatform{"kubernetes", errors.New("DAPR_PERF_REDIS_ADDR: not a Service")}}
	assert.ErrorContains(t, configureErr(planOf(sc), sc, no), "RestartBroker: DAPR_PERF_REDIS_ADDR: not a Service")
	require.NoError(t, configureErr(planOf(sc), sc, &perf.RunConfig{Platform: restartPlatform{"kubernetes", nil}}))
	require.NoError(t, configureErr(planOf(sc), sc, &perf.RunConfig{}), "the local platform restarts its broker")
}

// DAPR_PERF_RESTART_BROKER restarts a subscribe scenario's broker that the scenario itself does
// not restart; outside the main load, or on an in-memory pub/sub, it is an error naming it.
func TestRestartBrokerFromTheEnvironment(t *testing.T) {
	sc := perf.Scenario{Transport: perf.HTTP, Apps: []perf.App{{Name: "sub", Kind: perf.Subscriber}},
		Main: perf.Route{To: "sub", ThroughSidecar: true, Operation: perf.Operation{Kind: perf.OpPublish, PubSub: "p", Topic: "t"}}}
	sc.Plan = &DeliveryPlan{Subscriber: "sub", Mode: perf.SubscribeNormal, Broker: perf.BackendRedis}
	t.Setenv(perf.EnvDuration, "10s")
	t.Setenv(perf.EnvRestartBroker, "3s")
	cfg := &perf.RunConfig{}
	assert.Equal(t, 3*time.Second, mustConfigure(t, planOf(sc), sc, cfg).(*deliveryRun).restartAt)

	t.Setenv(perf.EnvRestartBroker, "10s")
	assert.ErrorContains(t, configureErr(planOf(sc), sc, &perf.RunConfig{}), "RestartBroker (DAPR_PERF_RESTART_BROKER) 10s must fall inside the main load (10s)")
	t.Setenv(perf.EnvRestartBroker, "3s")
	sc.Plan = &DeliveryPlan{Subscriber: "sub", Mode: perf.SubscribeNormal, Broker: perf.NoBackend}
	assert.ErrorContains(t, configureErr(planOf(sc), sc, &perf.RunConfig{}), "RestartBroker (DAPR_PERF_RESTART_BROKER) needs a Broker backend")
	t.Setenv(perf.EnvRestartBroker, "soon")
	assert.ErrorContains(t, configureErr(planOf(sc), sc, &perf.RunConfig{}), "DAPR_PERF_RESTART_BROKER")
}
