package scenarios

import (
	"fmt"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/plan"
)

// Settings of ActorDoubleActivation, with where each comes from.
const (
	// DoubleActivationReplicas is the number of actor host replicas on the one placement
	// (Dapr's issue text: 3; a version of its test file has 2).
	DoubleActivationReplicas = 3
	// DoubleActivationTesters is the number of testers that share the load: Dapr's k6
	// parallelism (3 runner pods).
	DoubleActivationTesters = 3
	// DoubleActivationID is the one actor id every request calls (Dapr's "SINGLE_ID").
	DoubleActivationID = "SINGLE_ID"
	// DoubleActivationBasePeakVUs is the base phase's peak, Dapr's: it ramps 1000 -> 3000 ->
	// 5000 VUs, split over its three k6 runners as ours over DoubleActivationTesters. Every VU
	// waits behind the others on the one actor, so a call takes about VUs / throughput: 5000 VUs
	// gave 1,523 QPS here (2 cores shared by the testers, four daprd and three hosts;
	// reports/measurements.md, "Actor double activation"), calls of 3 to 5.5 s, inside k6's
	// 60 s request timeout that the driver keeps (apps/tester k6RequestTimeout).
	DoubleActivationBasePeakVUs = 5000
	// DoubleActivationFaultPeakVUs is the faults phase's peak, Dapr's: 1000 -> 3000 -> 5000 again.
	// The faulted host's calls on the one id are serialized by daprd's per-actor lock, so for the
	// 15 s window the actor answers about 1 / 50 ms = 20 calls/s and the VUs queue behind it (calls
	// of up to about 13 s here, reports/measurements.md). The window is shorter than k6's 60 s
	// request timeout and, once it closes, the queue drains within the phase's graceful stop: no
	// call times out or is interrupted, so every call counts, as in Dapr's run.
	DoubleActivationFaultPeakVUs = 5000
	// The fault, Dapr's: averageDelay 50 ms, errorRate 0.1 with code 500, for 15 s.
	doubleActivationDelay  = 50 * time.Millisecond
	doubleActivationFail   = 0.1
	doubleActivationWindow = 15 * time.Second
)

// DoubleActivationHosts are the actor host replicas' app names: actorapp-0, actorapp-1, ...
func DoubleActivationHosts() []string {
	var out []string
	for i := range DoubleActivationReplicas {
		out = append(out, fmt.Sprintf("%s-%d", ActorHostApp, i))
	}
	return out
}

// rampTo is Dapr's three 5 s stages to peak/5, 3 peak/5 and peak VUs.
func rampTo(peak int) driver.Executor {
	return driver.Executor{Kind: driver.RampingVUs, Stages: []driver.Stage{
		{Duration: 5 * time.Second, Target: peak / 5}, {Duration: 5 * time.Second, Target: 3 * peak / 5}, {Duration: 5 * time.Second, Target: peak},
	}, GracefulRampDown: 10 * time.Second, GracefulStop: 10 * time.Second}
}

// ActorDoubleActivation is Dapr's actor_double_activation perf test (plan.FaultPlan): three
// actor host replicas (apps/actorapp, each with its daprd, one placement, one Redis for the
// activation lock), and the tester's daprd calling POST /v1.0/actors/PerfTestActor/SINGLE_ID/
// method/lock, one actor id, from closed-loop VUs: a base phase ramped 0 -> 1000 -> 3000 ->
// 5000 over 15 s, then a faults phase ramped the same way while the replica that
// hosts the actor delays every method call by 50 ms and answers 1 of every 10 with 500 (the
// host injects and counts them). Three testers share each ramp, as Dapr's three k6 runners.
// Warmup: 21 QPS over 3 connections, one per tester, 5 s (it activates the actor).
//
// Bounds: Dapr's ("no response >= 400" and "no double activation"), with the injected 500s
// excused: errors.other = 0 (every non-2xx answer and socket error that is not an injected
// 500), actors.doubleActivations = 0 (the Redis lock of every host); and daprperf's: the fault
// was injected (errors.injected >= 1), no failed lock call in a host, no restarts. There is no
// latency bound (Dapr has none): the p95 of each phase is reported.
func ActorDoubleActivation() perf.Scenario {
	hosts := DoubleActivationHosts()
	apps := []perf.App{{Name: TesterApp, Kind: perf.Tester, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Components: []perf.Component{actorStore()}}}}
	for _, h := range hosts {
		apps = append(apps, perf.App{Name: h, Kind: perf.ActorApp, Args: []string{"-name", h}, Backends: []perf.Backend{perf.BackendRedis},
			Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Components: []perf.Component{actorStore()}}})
	}
	op := perf.Operation{Kind: perf.OpActorInvoke, ActorType: ActorType, ActorID: DoubleActivationID, Method: "lock", Baseline: perf.BaselineApp}
	const source = "Dapr v1.17 perf suite (tests/perf/actor_double_activation)"
	return perf.Scenario{
		Test:      "actor_double_activation",
		Transport: perf.HTTP,
		Apps:      apps,
		Tester:    TesterApp,
		// Dapr's k6 test runs on 3 runner pods (parallelism 3): 3 testers share each ramp.
		TesterReplicas: DoubleActivationTesters,
		Main:           perf.Route{To: hosts[0], ThroughSidecar: true, Operation: op},
		WarmupOptions: []perf.Option{ // a connection per tester, so each tester's daprd is warmed
			perf.WithQPS(21), perf.WithConnections(DoubleActivationTesters), perf.WithDuration(5 * time.Second),
		},
		Plan: &plan.FaultPlan{
			Hosts:  hosts,
			Base:   rampTo(DoubleActivationBasePeakVUs),
			Faults: rampTo(DoubleActivationFaultPeakVUs),
			Delay:  doubleActivationDelay, FailFraction: doubleActivationFail, Window: doubleActivationWindow,
		},
		Thresholds: []perf.Threshold{
			{Figure: "errors.other", Op: perf.AtMost, Limit: 0, Source: source + ": no response >= 400, the injected 500s excused"},
			doubleActivationGate,
			{Figure: "errors.injected", Op: perf.AtLeast, Limit: 1, Source: "daprperf: the fault window injected 500s"},
			{Figure: "restarts", Op: perf.AtMost, Limit: 0, Source: source},
			actorErrorsGate,
		},
	}
}
