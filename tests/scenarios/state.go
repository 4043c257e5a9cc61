package scenarios

import (
	"fmt"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
)

// State scenario names.
const (
	// StateStoreName is the state component's name in every state scenario.
	StateStoreName = "statestore"
	// StateKey is the key read or written: Dapr's state_get tests read "abc123".
	StateKey = "abc123"
	// StateValueBytes is the size of the value seeded for the state_get variants that read a
	// written key and saved by state_save: 1 KB.
	StateValueBytes = 1024
)

// stateComponentLabel is each store's component label in the push: Dapr's state_get_http
// pushes component="inmemory" for its in-memory store.
var stateComponentLabel = map[perf.ComponentType]string{perf.StateInMemory: "inmemory", perf.StateRedis: "redis", perf.StatePostgreSQL: "postgresql"}

// StateStores are the state stores a state scenario runs on: Dapr's in-memory store (what
// Dapr's suite uses) and the two real stores the local platform starts.
var StateStores = []perf.ComponentType{perf.StateInMemory, perf.StateRedis, perf.StatePostgreSQL}

// stateThresholds are the bounds of Dapr's state_get_http and state_get_grpc tests (dapr/dapr
// tests/perf/state_get_*, v1.17): no failed request (Dapr counts only 4xx/5xx; we count every
// one), 0 restarts, actual QPS >= 0.99 x target, added p90 <= 2 ms (Dapr's bound for both
// transports). The same bounds hold for state save, which Dapr does not test.
func stateThresholds() []perf.Threshold {
	const src = "Dapr v1.17 perf suite, state_get_http/_grpc"
	return []perf.Threshold{
		{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: src},
		{Figure: "restarts", Op: perf.AtMost, Limit: 0, Source: src},
		{Figure: "qps.ratio", Op: perf.Above, Limit: 0.99, Source: src},
		{Figure: "overhead.p90", Op: perf.Above, Limit: 0, Source: src + ": the sidecar adds time"},
		{Figure: "overhead.p90", Op: perf.AtMost, Limit: 0.002, Source: src},
	}
}

// StateGet is Dapr's state_get test over transport (perf.HTTP or perf.GRPC) on store, one of
// StateStores: 1000 QPS, 16 connections, 1 minute, no request payload, each request a GET of
// StateKey from component StateStoreName through the tester's own daprd (HTTP: GET
// /v1.0/state/statestore/abc123; gRPC: Dapr.GetState); warmup 100 QPS for 10 s. Bounds:
// stateThresholds.
//
// On state.in-memory, Dapr's own scenario, the key is never written, as in Dapr's test: each
// read is a miss (HTTP 204, an empty gRPC reply). On state.redis and state.postgresql the key
// holds a StateValueBytes value in both phases (seeded): the direct phase reads the very row or
// hash daprd wrote ("tester||abc123", Dapr's app-id key prefix) and the main phase reads it back
// through daprd. StateGetSeeded is the in-memory read of a written key.
//
// Baseline: for state.in-memory, Dapr's no-op (perf.BaselineNoOp, labelled so in the result
// and summary): the same request sent to testapp, which answers it without doing anything
// (httpapp answers any path 200; grpcapp's Dapr.GetState is a no-op), so the added latency
// is the whole of daprd's cost, store included. For state.redis and state.postgresql, direct
// to the store (perf.BaselineStore): the tester reads the key with go-redis (HGETALL) or pgx
// (daprd's SELECT), one store connection per load connection, whatever the transport; the
// added latency is what daprd adds over the store itself.
//
// Test names, so each variant has its own result path (reports/runs/<id>/<test>/<transport>/):
// "state_get" (in-memory, Dapr's own scenario), "state_get_redis", "state_get_postgresql".
func StateGet(transport perf.Protocol, store perf.ComponentType) perf.Scenario {
	sc := stateScenario("state_get", transport, store, perf.OpStateGet, 0)
	if store != perf.StateInMemory {
		sc.Setup = seedStateKey()
	}
	return sc
}

// StateGetSeeded is StateGet on state.in-memory with its key written first, daprperf's variant
// beside Dapr's miss: each read returns a StateValueBytes value. Test name "state_get_seeded".
func StateGetSeeded(transport perf.Protocol) perf.Scenario {
	sc := stateScenario("state_get_seeded", transport, perf.StateInMemory, perf.OpStateGet, 0)
	sc.Setup = seedStateKey()
	return sc
}

// seedStateKey is the setup load that writes StateKey before the first phase: 10 state.save
// requests of a StateValueBytes value through the tester's daprd.
func seedStateKey() []perf.Setup {
	return []perf.Setup{{
		Name:  "seed " + StateKey,
		Route: perf.Route{To: TesterApp, ThroughSidecar: true, Operation: perf.Operation{Kind: perf.OpStateSave, Store: StateStoreName, Key: StateKey}},
		Options: []perf.Option{perf.WithQPS(10), perf.WithConnections(1), perf.WithDuration(time.Second),
			perf.WithPayloadSize(StateValueBytes)},
	}}
}

// StateSave is StateGet's load as a save: each request writes a StateValueBytes value
// (generated text, sent as a JSON string) to StateKey (HTTP: POST /v1.0/state/statestore
// with [{"key": "abc123", "value": ...}]; gRPC: Dapr.SaveState). The direct baseline does
// daprd's own write: Redis EVAL of state.redis's save script (HSET data, HINCRBY version),
// PostgreSQL v2's upsert of the row. Test names "state_save", "state_save_redis",
// "state_save_postgresql". Dapr's suite has no state save test: its state_get bounds apply.
func StateSave(transport perf.Protocol, store perf.ComponentType) perf.Scenario {
	return stateScenario("state_save", transport, store, perf.OpStateSave, StateValueBytes)
}

// StateTestName is the test name of a state scenario: test itself for Dapr's in-memory store,
// test + "_redis" or "_postgresql" for a real one.
func StateTestName(test string, store perf.ComponentType) string {
	if store == perf.StateInMemory {
		return test
	}
	return fmt.Sprintf("%s_%s", test, perf.Component{Type: store}.Backend())
}

// stateScenario is a state scenario as data: the tester's daprd loads the state component;
// testapp, without a sidecar, is the no-op baseline's target (and the app the overhead plan
// needs by name in every variant).
func stateScenario(test string, transport perf.Protocol, store perf.ComponentType, kind perf.OperationKind, payload int) perf.Scenario {
	appKind := perf.HTTPApp
	if transport == perf.GRPC {
		appKind = perf.GRPCApp
	}
	baseline := perf.BaselineNoOp
	if (perf.Component{Type: store}).Backend() != perf.NoBackend {
		baseline = perf.BaselineStore
	}
	op := perf.Operation{Kind: kind, Store: StateStoreName, Key: StateKey, Baseline: baseline}
	return perf.Scenario{
		Plan:      plan.OverheadPlan{},
		Test:      StateTestName(test, store),
		Component: stateComponentLabel[store],
		Transport: transport,
		Apps: []perf.App{
			{Name: TesterApp, Kind: perf.Tester, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP,
				Components: []perf.Component{{Name: StateStoreName, Type: store}}}},
			{Name: TargetApp, Kind: appKind},
		},
		Tester:   TesterApp,
		Baseline: perf.Route{To: TargetApp, Operation: op},
		Main:     perf.Route{To: TargetApp, ThroughSidecar: true, Operation: op},
		MainOptions: []perf.Option{
			perf.WithQPS(1000), perf.WithConnections(16), perf.WithDuration(time.Minute), perf.WithPayloadSize(payload),
		},
		WarmupOptions: []perf.Option{
			perf.WithQPS(100), perf.WithConnections(16), perf.WithDuration(10 * time.Second), perf.WithPayloadSize(payload),
		},
		Thresholds: stateThresholds(),
	}
}
