package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
)

// Names of the actor scenarios' apps and actor type (Dapr's actor perf tests call theirs
// "testapp" hosting "PerfTestActor"; ours is an app id too).
const (
	ActorHostApp = "actorapp"
	ActorType    = "PerfTestActor"
	// ActorStateStore is the actor state store component: state.postgresql v2, as Dapr's perf
	// CI deploys its actor and workflow apps (DAPR_TEST_STATE_STORE=postgres).
	ActorStateStore = "statestore"
	// ActorTimerReplicas are actor_timer's hosts, Dapr's replicas.
	ActorTimerReplicas = 4
	// ActorTimerSoak is how long actor_timer's timers fire after its load, Dapr's sleep before
	// it reads resources.
	ActorTimerSoak = 10 * time.Minute
)

// actorStore is the actor state store every actor sidecar loads: PostgreSQL, state.postgresql
// v2, Dapr's CI's; its actorStateStore metadata is also what gives a sidecar the deployment's
// placement (perf.Sidecar.PlacementGroup).
func actorStore() perf.Component {
	return actorStoreOn(perf.StatePostgreSQL)
}

// actorStoreOn is the actor state store component on store (v2 for state.postgresql).
func actorStoreOn(store perf.ComponentType) perf.Component {
	c := perf.Component{Name: ActorStateStore, Type: store, Metadata: map[string]string{"actorStateStore": "true"}}
	if store == perf.StatePostgreSQL {
		c.Version = "v2"
	}
	return c
}

// actorApps are the tester and the actor host, both sidecars with the actor state store (the
// tester's daprd places the calls, so it needs the placement tables too; its app hosts no
// actor type). hostArgs are the actor app's flags. One host checks for double activation with
// an in-process lock, which adds no round trip to a request, as Dapr's actor hosts add none;
// withHostReplicas gives several hosts a lock they share in Redis.
func actorApps(hostArgs ...string) []perf.App {
	return []perf.App{
		{Name: TesterApp, Kind: perf.Tester, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Components: []perf.Component{actorStore()}}},
		{Name: ActorHostApp, Kind: perf.ActorApp, Args: hostArgs,
			Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Components: []perf.Component{actorStore()}}},
	}
}

// withHostReplicas returns apps (actorApps: the tester, then the host) with n hosts in all: the
// host copied as actorapp-2 .. actorapp-n, each with its own sidecar, on the same placement.
// With two or more, every host takes its activation lock in one Redis (the local platform
// starts it and passes its address), so that an actor activated on two hosts at once is seen;
// that lock is a Redis round trip inside each activating request, which Dapr's hosts do not
// make. One host keeps the in-process lock.
func withHostReplicas(apps []perf.App, n int) []perf.App {
	apps[1].Backends = nil
	if n >= 2 {
		apps[1].Backends = []perf.Backend{perf.BackendRedis}
	}
	host := apps[1]
	for i := 2; i <= n; i++ {
		h := host
		h.Name = ActorHostApp + "-" + strconv.Itoa(i)
		sc := *host.Sidecar
		h.Sidecar = &sc
		apps = append(apps, h)
	}
	return apps
}

// hostReplicasForEnv is the Scenario.ForEnv of the scenarios with several actor hosts (actorApps
// then withHostReplicas): under DAPR_PERF_HOST_REPLICAS=n, sc with n hosts in all, the copies
// made again from the first host; sc itself when the variable is unset.
func hostReplicasForEnv(env perf.Env, sc perf.Scenario) (perf.Scenario, error) {
	if env.HostReplicas == nil {
		return sc, nil
	}
	var apps []perf.App
	for _, a := range sc.Apps {
		if !strings.HasPrefix(a.Name, ActorHostApp+"-") {
			apps = append(apps, a)
		}
	}
	if len(apps) != 2 || apps[1].Name != ActorHostApp {
		return sc, fmt.Errorf("%s: %s applies to a tester and the hosts copied from %s", perf.EnvHostReplicas, sc.Test, ActorHostApp)
	}
	sc.Apps = withHostReplicas(apps, *env.HostReplicas)
	return sc, nil
}

// actorDaprSource is where the actor scenarios' bounds come from.
const actorDaprSource = "Dapr v1.17 perf suite (tests/perf/actor_activation)"

// ActorActivation is Dapr's actor_activation perf test: 500 QPS, 8 connections, 1 minute, each
// request POST /v1.0/actors/PerfTestActor/{uuid}/method/noOp through the tester's daprd, so
// every request activates a new actor on the actor host (placement lookup, activation, call).
// Warmup: 50 QPS for 10 s.
//
// Bounds, absolute as Dapr's (the main phase's own latency, not an overhead): p90 at most 15 ms
// and p99 at most 35 ms (Dapr's are strict: < 15 ms, < 35 ms), no errors, no restarts, QPS at
// least 0.99 x target. Dapr's test has no baseline; ours is the same actor path sent straight to
// the actor app's own port (its method handler, no daprd, no placement, no activation), stated
// "direct to the app", so the overhead is the whole of Dapr's actor path and is reported, not
// gated.
func ActorActivation() perf.Scenario {
	op := perf.Operation{Kind: perf.OpActorInvoke, ActorType: ActorType, ActorID: perf.UUIDToken, Method: "noOp", Baseline: perf.BaselineApp}
	return perf.Scenario{
		Plan:      plan.OverheadPlan{},
		Test:      "actor_activation",
		Transport: perf.HTTP,
		Apps:      actorApps(),
		Tester:    TesterApp,
		Baseline:  perf.Route{To: ActorHostApp, Operation: op},
		Main:      perf.Route{To: ActorHostApp, ThroughSidecar: true, Operation: op},
		MainOptions: []perf.Option{ // Dapr's, its payload "{}" included
			perf.WithQPS(500), perf.WithConnections(8), perf.WithDuration(time.Minute), perf.WithPayload("{}"),
		},
		WarmupOptions: []perf.Option{
			perf.WithQPS(50), perf.WithConnections(8), perf.WithDuration(10 * time.Second),
		},
		Thresholds: []perf.Threshold{
			{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: actorDaprSource},
			{Figure: "restarts", Op: perf.AtMost, Limit: 0, Source: actorDaprSource},
			{Figure: "qps.ratio", Op: perf.Above, Limit: 0.99, Source: actorDaprSource},
			{Figure: "latency.p90", Op: perf.Below, Limit: 0.015, Source: actorDaprSource + ": p90 < 15 ms"},
			{Figure: "latency.p99", Op: perf.Below, Limit: 0.035, Source: actorDaprSource + ": p99 < 35 ms"},
			doubleActivationGate, actorErrorsGate,
		},
	}
}

// The actor hosts' own gates, on every actor scenario: no double activation (Dapr's
// actor_double_activation bound, which one host on one placement must keep trivially) and no
// failed lock or timer call in the host.
var (
	doubleActivationGate = perf.Threshold{Figure: "actors.doubleActivations", Op: perf.AtMost, Limit: 0,
		Source: "Dapr v1.17 perf suite (tests/perf/actor_double_activation): no double activation"}
	actorErrorsGate = perf.Threshold{Figure: "actors.errors", Op: perf.AtMost, Limit: 0,
		Source: "daprperf: the actor host's lock and timer calls"}
)

// ActorTimer is Dapr's actor_timer perf test: ActorTimerReplicas actor hosts on one placement,
// 220 QPS, 10 connections, 1 minute; each request (POST /v1.0/actors/PerfTestActor/{uuid}/
// method/noOp through the tester's daprd) activates a new actor, which registers a periodic
// timer, due in 10 s and every 10 s after, through its daprd. Then, as Dapr's test, 10 minutes
// of those timers firing (about 13,200 timers, 1,320 fires/s) before resources are read: the
// idle window, sampled as every idle window is. DAPR_PERF_IDLE_WINDOW shortens it, never below
// the 15 s the first fires need. Warmup: 22 QPS for 10 s. Bounds: Dapr's (no errors, no
// restarts, QPS at least 0.99 x target), and daprperf's: every registered timer fired by the
// end of the idle window ("actors.timersUnfired" = 0), no double activation. The first fire's
// lag (fire time minus registration minus 10 s) is reported as "actors.timerLag.p99" and in the
// summary, not gated (Dapr's test does not measure it). Baseline: as ActorActivation's, direct
// to the first host.
func ActorTimer() perf.Scenario {
	op := perf.Operation{Kind: perf.OpActorInvoke, ActorType: ActorType, ActorID: perf.UUIDToken, Method: "noOp", Baseline: perf.BaselineApp}
	const source = "Dapr v1.17 perf suite (tests/perf/actor_timer)"
	return perf.Scenario{
		Plan:      plan.OverheadPlan{},
		Test:      "actor_timer",
		Transport: perf.HTTP,
		Apps:      withHostReplicas(actorApps("-timer-due", "10s", "-timer-period", "10s"), ActorTimerReplicas),
		ForEnv:    hostReplicasForEnv,
		Tester:    TesterApp,
		Baseline:  perf.Route{To: ActorHostApp, Operation: op},
		Main:      perf.Route{To: ActorHostApp, ThroughSidecar: true, Operation: op},
		MainOptions: []perf.Option{
			perf.WithQPS(220), perf.WithConnections(10), perf.WithDuration(time.Minute),
		},
		WarmupOptions: []perf.Option{
			perf.WithQPS(22), perf.WithConnections(10), perf.WithDuration(10 * time.Second),
		},
		// Dapr's 10 minutes of timers firing. The last timers are first due 10 s after the main
		// phase: a DAPR_PERF_IDLE_WINDOW below 15 s is raised so that they fire before the
		// hosts' counters are read.
		IdleWindow:    ActorTimerSoak,
		MinIdleWindow: 15 * time.Second,
		Thresholds: []perf.Threshold{
			{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: source},
			{Figure: "restarts", Op: perf.AtMost, Limit: 0, Source: source},
			{Figure: "qps.ratio", Op: perf.Above, Limit: 0.99, Source: source},
			{Figure: "actors.timersUnfired", Op: perf.AtMost, Limit: 0, Source: "daprperf: every timer registered fires within the idle window"},
			doubleActivationGate, actorErrorsGate,
		},
	}
}
