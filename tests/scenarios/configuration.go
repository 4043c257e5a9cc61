package scenarios

import (
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/plan"
)

// Names and values of the configuration scenarios.
const (
	// ConfigStoreName is the configuration component's name (configuration.redis).
	ConfigStoreName = "configstore"
	// ConfigKey and ConfigValue are the item configuration get reads: Dapr's configuration
	// test seeds key1 = val1 and reads key1 (dapr/dapr tests/perf/configuration).
	ConfigKey   = "key1"
	ConfigValue = "val1"
	// ConfigUpdateKey is the key of each update of a subscribe scenario: a new key per update
	// (perf.UUIDToken), so that no update can overwrite one daprd has not read yet (daprd's
	// Redis component reads the key again when it is told of a change: two updates of one
	// key between a notification and its read would show as one lost and one duplicated,
	// a property of a last-value store, not a loss).
	ConfigUpdateKey = "update-" + perf.UUIDToken
	// ConfigApp is the configuration get app: the subscriber app in its configuration mode,
	// which serves Dapr's configuration app's get routes.
	ConfigApp = "configapp"
	// ConfigUpdateBytes is the size of each update's value: Dapr's subscribe tests send
	// 100-byte messages.
	ConfigUpdateBytes = 100
)

// Dapr's configuration bounds (dapr/dapr tests/perf/configuration, k6 thresholds on
// http_req_duration avg, strict): get mean < 60 ms; subscribe mean < 450 ms over HTTP and
// < 350 ms over gRPC (v1.17.5's test file; v1.17.0 had 430 ms over HTTP).
const (
	configGetMeanLimit     = 0.060
	configSubHTTPMeanLimit = 0.450
	configSubGRPCMeanLimit = 0.350
	configSource           = "Dapr tests/perf/configuration (k6 avg threshold)"
	daprSuite              = "Dapr v1.17 perf suite"
)

// configComponent is the scenarios' configuration store.
func configComponent() perf.Component {
	return perf.Component{Name: ConfigStoreName, Type: perf.ConfigurationRedis}
}

// ConfigurationGet is configuration get over transport (perf.HTTP or perf.GRPC) through the
// tester's own daprd, at state_get's load (1000 QPS, 16 connections, 1 minute; warmup 100 QPS
// for 10 s): each request reads ConfigKey from component ConfigStoreName (configuration.redis
// on the platform's Redis). HTTP: GET /v1.0/configuration/configstore?key=key1; gRPC:
// Dapr.GetConfiguration.
//
// Baseline: direct to the store (perf.BaselineStore): the tester reads the key with go-redis
// as daprd's component does (GET, value split at "||"), one Redis connection per load
// connection. The item is seeded before the first phase by a setup load that SETs ConfigKey =
// ConfigValue straight into Redis (kind configuration.set: Dapr has no API that writes
// configuration).
//
// Bounds: 0 errors, 0 restarts, actual QPS >= 0.99 x target (Dapr's usual), and Dapr's
// configuration bound on the main phase's mean service time: latency.mean <= 60 ms. Test name
// "configuration_get".
func ConfigurationGet(transport perf.Protocol) perf.Scenario {
	op := perf.Operation{Kind: perf.OpConfigurationGet, Store: ConfigStoreName, Keys: []string{ConfigKey}, Baseline: perf.BaselineStore}
	return perf.Scenario{
		Plan:      plan.OverheadPlan{},
		Test:      "configuration_get",
		Transport: transport,
		Apps: []perf.App{
			{Name: TesterApp, Kind: perf.Tester, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP,
				Components: []perf.Component{configComponent()}}},
			// No sidecar and no load: the overhead plan names an app in each route, as the
			// state scenarios do; both routes go to the tester's daprd or to Redis.
			{Name: TargetApp, Kind: perf.HTTPApp},
		},
		Tester:   TesterApp,
		Baseline: perf.Route{To: TargetApp, Operation: op},
		Main:     perf.Route{To: TargetApp, ThroughSidecar: true, Operation: op},
		Setup:    []perf.Setup{configSeed()},
		MainOptions: []perf.Option{
			perf.WithQPS(1000), perf.WithConnections(16), perf.WithDuration(time.Minute),
		},
		WarmupOptions: []perf.Option{
			perf.WithQPS(100), perf.WithConnections(16), perf.WithDuration(10 * time.Second),
		},
		Thresholds: []perf.Threshold{
			{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: daprSuite},
			{Figure: "restarts", Op: perf.AtMost, Limit: 0, Source: daprSuite},
			{Figure: "qps.ratio", Op: perf.Above, Limit: 0.99, Source: daprSuite + ": actual QPS > 0.99 x target"},
			{Figure: "latency.mean", Op: perf.Below, Limit: configGetMeanLimit, Source: configSource},
			{Figure: "baseline.mean", Op: perf.Below, Limit: configGetMeanLimit, Source: configSource + ", on the baseline run too"},
		},
	}
}

// configSeed SETs ConfigKey = ConfigValue straight into Redis, twice in 2 s: at 1 request/s,
// within the tester limits of every configuration scenario (a closed loop's loads bound the
// tester at 2 requests/s of fortio load).
func configSeed() perf.Setup {
	return perf.Setup{
		Name: "seed " + ConfigKey,
		Route: perf.Route{To: TesterApp, Operation: perf.Operation{Kind: perf.OpConfigurationSet, Store: ConfigStoreName,
			Key: ConfigKey, Baseline: perf.BaselineStore}},
		Options: []perf.Option{perf.WithQPS(1), perf.WithConnections(1), perf.WithDuration(2 * time.Second), perf.WithPayload(ConfigValue)},
	}
}

// ConfigurationGetRamp is Dapr's configuration get test (dapr/dapr tests/perf/configuration at
// v1.18.3, with its app tests/apps/perf/configuration): a load that asks an app, which reads
// ConfigKey from Redis. The load is Dapr's k6 ramping-vus executor (package perf/driver),
// 0 -> 100 VUs over 2 s, -> 300 over 3 s, -> 500 over 4 s, each user looping requests back to
// back, gracefulRampDown 0 (test.js); warmup 10 VUs for 3 s. Both phases send HTTP to the app
// (the subscriber app in its configuration mode, apps/subscriber/configget.go) as Dapr's k6 does:
//   - baseline, Dapr's "baseline" run: the app reads the key straight from Redis (app -> Redis);
//   - main, Dapr's "dapr" run: the app reads it through its daprd, over daprd's HTTP or gRPC
//     API as transport says (app -> daprd -> Redis).
//
// The item is seeded before the first phase as ConfigurationGet seeds it. Bounds: 0 errors, 0
// restarts, the mean below 60 ms on both runs (Dapr's k6 threshold). A closed loop has no
// target rate, so no qps.ratio gate. Test name "configuration_get_ramp".
func ConfigurationGetRamp(transport perf.Protocol) perf.Scenario {
	comps := []perf.Component{configComponent()}
	api := "http"
	if transport == perf.GRPC {
		api = "grpc"
	}
	return perf.Scenario{
		Plan:      plan.OverheadPlan{},
		Test:      "configuration_get_ramp",
		Transport: transport,
		AppWork: "Dapr's configuration app's: each request reads " + ConfigKey + " from Redis (baseline) or through the app's daprd over " +
			api + " (main); the load reaches the app over HTTP in both",
		Apps: []perf.App{
			// The load goes to the app in both phases: the tester needs no sidecar.
			{Name: TesterApp, Kind: perf.Tester},
			{Name: ConfigApp, Kind: perf.Subscriber, Backends: []perf.Backend{perf.BackendRedis},
				Args:    append(perf.ConfigurationSubscriberArgs(ConfigStoreName), "-configuration-get-keys", ConfigKey),
				Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Components: comps}},
		},
		Tester:   TesterApp,
		Baseline: perf.Route{To: ConfigApp, Method: "configuration-get-baseline", Protocol: perf.HTTP},
		Main:     perf.Route{To: ConfigApp, Method: "configuration-get-dapr-" + api, Protocol: perf.HTTP},
		Setup:    []perf.Setup{configSeed()},
		// Duration is not what the executor runs; the plan's progress lines estimate with it.
		MainOptions: []perf.Option{perf.WithDuration(9 * time.Second), perf.WithExecutor(driver.Executor{
			Kind:             driver.RampingVUs,
			Stages:           daprRampStages(),
			GracefulRampDown: time.Nanosecond, // k6's "0s"; 0 here is the 30 s default
			GracefulStop:     5 * time.Second,
		})},
		WarmupOptions: []perf.Option{perf.WithDuration(3 * time.Second), perf.WithExecutor(driver.Executor{
			Kind: driver.ConstantVUs, VUs: 10, Duration: 3 * time.Second, GracefulStop: 5 * time.Second,
		})},
		Thresholds: []perf.Threshold{
			{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: daprSuite},
			{Figure: "restarts", Op: perf.AtMost, Limit: 0, Source: daprSuite},
			{Figure: "latency.mean", Op: perf.Below, Limit: configGetMeanLimit, Source: configSource},
			{Figure: "baseline.mean", Op: perf.Below, Limit: configGetMeanLimit, Source: configSource + ", on the baseline run too"},
		},
	}
}

// ConfigurationSubscribe is Dapr's configuration subscribe test over transport, as a delivery
// plan (plan.DeliveryPlan, mode perf.SubscribeConfiguration): the subscriber app subscribes
// through its own daprd to every key of ConfigStoreName (HTTP: daprd POSTs each update to the
// app's /configuration/configstore/<key>; gRPC: Dapr.SubscribeConfiguration's stream). Dapr's
// k6 load: a ramp of 0 -> 500 VUs over 9 s (daprRamp), each iteration one update and the wait
// for its notification (Dapr's app answers /update/true once notified). Here the tester writes
// each update straight into Redis, a SET of a new key (ConfigUpdateKey) whose ConfigUpdateBytes
// value carries the load's nonce, a sequence number and the send time, then asks the
// subscriber for that update, up to perf.DaprAwaitTimeout (k6's request timeout); warmup 5 VUs
// for 3 s. An iteration's time is the update and its wait, as Dapr's http_req_duration of
// /update/true; the delivery latency (SET to notification) is reported beside it. After the
// load a drain window (15 s) waits for the last updates, then sequence numbers never seen
// count as lost. Before it all, as Dapr's baseline run, the same load with the subscriber
// subscribed straight to Redis (keyspace notifications, as daprd's configuration.redis
// component subscribes; plan.DeliveryPlan.Baseline): the sidecar overhead is main minus it.
//
// Bounds: Dapr's mean iteration time (latency.mean < 450 ms HTTP, 350 ms gRPC) on both runs
// (baseline.mean too), 0 errors on either (a failed update, or one not told in time), 0
// restarts; daprperf's 0 lost and 0 duplicated. A closed loop has no target rate, so no
// qps.ratio gate. Test name "configuration_subscribe".
func ConfigurationSubscribe(transport perf.Protocol) perf.Scenario {
	mean := configSubHTTPMeanLimit
	if transport == perf.GRPC {
		mean = configSubGRPCMeanLimit
	}
	comps := []perf.Component{configComponent()}
	return perf.Scenario{
		Test:      "configuration_subscribe",
		Transport: transport,
		Apps: []perf.App{
			// The tester writes straight into Redis: it needs no sidecar.
			{Name: TesterApp, Kind: perf.Tester},
			// Backends: the baseline's subscription straight to Redis (DAPR_PERF_REDIS_ADDR).
			{Name: SubscriberApp, Kind: perf.Subscriber, Args: perf.ConfigurationSubscriberArgs(ConfigStoreName),
				Backends: []perf.Backend{perf.BackendRedis}, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Components: comps}},
		},
		Tester: TesterApp,
		Main: perf.Route{To: SubscriberApp, Operation: perf.Operation{Kind: perf.OpConfigurationSet, Store: ConfigStoreName,
			Key: ConfigUpdateKey, Baseline: perf.BaselineStore}},
		// Duration is not what the executor runs; the plan's progress lines estimate with it.
		MainOptions: []perf.Option{
			perf.WithDuration(9 * time.Second), perf.WithPayloadSize(ConfigUpdateBytes), perf.WithExecutor(daprRamp()),
		},
		WarmupOptions: []perf.Option{
			perf.WithDuration(3 * time.Second), perf.WithPayloadSize(ConfigUpdateBytes), perf.WithExecutor(driver.Executor{
				Kind: driver.ConstantVUs, VUs: 5, Duration: 3 * time.Second, GracefulStop: perf.DaprAwaitTimeout + 2*awaitMargin,
			}),
		},
		Plan: &plan.DeliveryPlan{Subscriber: SubscriberApp, Mode: perf.SubscribeConfiguration, Broker: perf.BackendRedis,
			Await: perf.DaprAwaitTimeout, AwaitTimed: true, Baseline: true},
		Thresholds: []perf.Threshold{
			{Figure: "latency.mean", Op: perf.Below, Limit: mean, Source: configSource + ", on the update-and-wait request"},
			{Figure: "baseline.mean", Op: perf.Below, Limit: mean, Source: configSource + ", on the baseline run too (the app on Redis's own notifications)"},
			{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: daprSuite + ": checks rate==1 (every update answered, told in time)"},
			{Figure: "delivery.lost", Op: perf.AtMost, Limit: 0, Source: "daprperf design point 12: every update told"},
			{Figure: "delivery.duplicated", Op: perf.AtMost, Limit: 0, Source: "daprperf: every update told once (one new key per update)"},
			{Figure: "restarts", Op: perf.AtMost, Limit: 0, Source: daprSuite},
		},
	}
}
