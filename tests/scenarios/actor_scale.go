package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/plan"
)

// Dapr's actor scale tests (dapr/dapr tests/perf/actor_type_scale and actor_id_scale, k6):
// ramping-vus 0 -> 100 (2 s) -> 300 (2 s) -> 500 (4 s), gracefulRampDown 0 s, each iteration
// PUT /v1.0/actors/<type>/<iteration>/method/default through the runner's daprd, a new actor
// id per iteration; gates p95 < 95 ms (type scale) and p95 < 90 ms (id scale), every check 2xx.
const (
	// ActorScaleTypes is actor_type_scale's number of actor types in one host.
	ActorScaleTypes = 100
	// ActorScaleTypePrefix names them: actor_0 .. actor_99 (perf.ActorTypeName), as Dapr's.
	ActorScaleTypePrefix = "actor"
	// ActorIDScaleReplicas is how many actor hosts actor_id_scale spreads its ids over: Dapr's
	// 10 (with 5 k6 runners, on 8-vCPU nodes). On a small machine every replica is one more
	// actorapp and daprd on the cores the tester uses (about 50 MiB each and a share of every
	// request's CPU); DAPR_PERF_HOST_REPLICAS lowers it, and the result then says the load was
	// not Dapr's.
	ActorIDScaleReplicas = 10
	// ActorIDScaleTesters is how many testers share actor_id_scale's ramp: Dapr's k6
	// parallelism (5 runner pods).
	ActorIDScaleTesters = 5

	actorTypeScaleP95 = 0.095
	actorIDScaleP95   = 0.090
	actorScaleSource  = "Dapr v1.17 perf suite (tests/perf/actor_%s_scale, k6): p95 < %d ms"
)

// actorScaleRamp is Dapr's ramping-vus schedule of both scale tests, each stage's target
// scaled under DAPR_PERF_QPS (scaledRamp).
func actorScaleRamp() driver.Executor {
	return scaledRamp(driver.Executor{Kind: driver.RampingVUs, Stages: []driver.Stage{
		{Duration: 2 * time.Second, Target: 100},
		{Duration: 2 * time.Second, Target: 300},
		{Duration: 4 * time.Second, Target: 500},
	}, GracefulStop: 5 * time.Second}) // k6's gracefulRampDown 0 s: the stages never ramp down
}

// actorScale is the shared shape of the two scale tests: the tester's closed loop through its
// daprd to the hosts, PUT-like actor calls with a new id per call; baseline the same ramp sent
// straight to the first host (its method handler, no daprd), warmup 50 VUs for 3 s.
func actorScale(test string, op perf.Operation, apps []perf.App, p95 float64, source string) perf.Scenario {
	p95Gate := perf.Threshold{Figure: "latency.p95", Op: perf.Below, Limit: p95, Source: source}
	return perf.Scenario{
		ForEnv:    scaledP95ForEnv,
		Plan:      plan.OverheadPlan{},
		Test:      test,
		Transport: perf.HTTP,
		Apps:      apps,
		Tester:    TesterApp,
		Baseline:  perf.Route{To: ActorHostApp, Operation: op},
		Main:      perf.Route{To: ActorHostApp, ThroughSidecar: true, Operation: op},
		// Duration is not what the executor runs; the progress lines estimate with it.
		MainOptions: []perf.Option{perf.WithDuration(8 * time.Second), perf.WithPayload("{}"), perf.WithExecutor(actorScaleRamp())},
		WarmupOptions: []perf.Option{perf.WithDuration(3 * time.Second), perf.WithPayload("{}"), perf.WithExecutor(driver.Executor{
			Kind: driver.ConstantVUs, VUs: 50, Duration: 3 * time.Second, GracefulStop: 5 * time.Second,
		})},
		Thresholds: []perf.Threshold{
			{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "Dapr v1.17 perf suite: every check 2xx"},
			{Figure: "restarts", Op: perf.AtMost, Limit: 0, Source: "Dapr v1.17 perf suite"},
			p95Gate, doubleActivationGate, actorErrorsGate,
		},
	}
}

// ActorTypeScale is Dapr's actor_type_scale: one host serving ActorScaleTypes actor types
// (actorapp -types actor_0,...,actor_99), the tester's VUs ramped 0 -> 500 over 8 s, VU k
// calling type actor_<k mod 100> with a new id per call (Dapr's k6 script picks the type per
// iteration; either way every type takes an equal share). Bounds: p95 below 95 ms (Dapr's,
// strict), no errors, no restarts; under DAPR_PERF_QPS the p95 bound's Source says how the
// VUs were scaled (scaledP95ForEnv), and it still gates.
func ActorTypeScale() perf.Scenario {
	types := make([]string, ActorScaleTypes)
	for k := range types {
		types[k] = perf.ActorTypeName(ActorScaleTypePrefix, k)
	}
	op := perf.Operation{Kind: perf.OpActorInvoke, ActorType: ActorScaleTypePrefix, ActorTypes: ActorScaleTypes,
		ActorID: perf.UUIDToken, Method: "default", Baseline: perf.BaselineApp}
	return actorScale("actor_type_scale", op, actorApps("-types", strings.Join(types, ",")), actorTypeScaleP95, actorScaleSourceOf("type", 95))
}

// ActorIDScale is Dapr's actor_id_scale (skipped upstream as flaky): ActorIDScaleReplicas
// actor hosts of PerfTestActor on one placement, the tester's VUs ramped 0 -> 500 over 8 s,
// a new actor id per call, so placement spreads the ids over every host. Bounds: p95 below
// 90 ms (Dapr's, strict), no errors, no restarts, no double activation across the hosts
// (their locks share one Redis); under DAPR_PERF_QPS the p95 bound's Source says how the VUs
// were scaled (scaledP95ForEnv), and it still gates.
func ActorIDScale() perf.Scenario {
	apps := withHostReplicas(actorApps(), ActorIDScaleReplicas)
	op := perf.Operation{Kind: perf.OpActorInvoke, ActorType: ActorType, ActorID: perf.UUIDToken, Method: "default", Baseline: perf.BaselineApp}
	sc := actorScale("actor_id_scale", op, apps, actorIDScaleP95, actorScaleSourceOf("id", 90))
	sc.TesterReplicas = ActorIDScaleTesters
	sc.ForEnv = func(env perf.Env, sc perf.Scenario) (perf.Scenario, error) {
		sc, err := hostReplicasForEnv(env, sc)
		if err != nil {
			return sc, err
		}
		return scaledP95ForEnv(env, sc)
	}
	return sc
}

// scaledP95ForEnv is the scale tests' Scenario.ForEnv: under a DAPR_PERF_QPS that scales the
// ramp's VUs (scaledRamp), the p95 bound's Source says by how much.
func scaledP95ForEnv(env perf.Env, sc perf.Scenario) (perf.Scenario, error) {
	if env.QPS == nil || *env.QPS >= closedLoopFullQPS {
		return sc, nil
	}
	f := float64(*env.QPS) / closedLoopFullQPS
	sc.Thresholds = slices.Clone(sc.Thresholds)
	for i := range sc.Thresholds {
		if sc.Thresholds[i].Figure == "latency.p95" {
			sc.Thresholds[i].Source += fmt.Sprintf("; VUs scaled by %g under %s", f, perf.EnvQPS)
		}
	}
	return sc, nil
}

func actorScaleSourceOf(kind string, ms int) string { return fmt.Sprintf(actorScaleSource, kind, ms) }

// ActorStateStores are the actor state stores of the store variants: Redis and the in-memory
// store, beside PostgreSQL v2, the store of Dapr's CI and of the scenario itself.
var ActorStateStores = []perf.ComponentType{perf.StateRedis, perf.StateInMemory}

// ActorActivationOn is ActorActivation with the actor state store on store (state.redis or
// state.in-memory, actorStateStore "true") in every sidecar instead of PostgreSQL, named
// "actor_activation_redis", "actor_activation_in-memory". Same load and bounds, but Dapr's
// latency bounds (p90 < 15 ms, p99 < 35 ms) are warn-only: Dapr sets them for its CI's store,
// PostgreSQL, and has no store variant, so another store's latency is reported against them,
// not gated (its p99 moves with the machine's load: reports/measurements.md, "Actors").
// Errors, restarts, the QPS ratio and double activations still gate.
func ActorActivationOn(store perf.ComponentType) perf.Scenario {
	sc := ActorActivation()
	sc.Test += "_" + strings.TrimPrefix(string(store), "state.")
	apps := make([]perf.App, len(sc.Apps))
	for i, a := range sc.Apps {
		s := *a.Sidecar
		s.Components = []perf.Component{actorStoreOn(store)}
		a.Sidecar = &s
		apps[i] = a
	}
	sc.Apps = apps
	th := make([]perf.Threshold, len(sc.Thresholds))
	for i, t := range sc.Thresholds {
		if strings.HasPrefix(t.Figure, "latency.") {
			t.WarnOnly = true
			t.Source += "; warn only on another actor store than Dapr's CI's (PostgreSQL v2)"
		}
		th[i] = t
	}
	sc.Thresholds = th
	return sc
}
