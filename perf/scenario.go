package perf

import (
	"fmt"
	"slices"
	"time"
)

// Scenario is one perf test as data: its apps, the routes of its phases, its load and its
// bounds. runner.Run runs any Scenario; a test file only picks one. A Scenario value is Dapr's
// test as written; what the run's environment changes in it is ForEnv's.
type Scenario struct {
	// Test names the scenario in reports and pushes, e.g. "service_invocation".
	Test string
	// Transport is the protocol of the load: HTTP or GRPC.
	Transport Protocol
	// Apps are started by the platform, each with its sidecar when it has one.
	Apps []App
	// Component names the component a scenario measures, as Dapr's pushes label it
	// (component="inmemory" on state_get_http, dapr/dapr tests/perf/state_get_http); the
	// result records it (Report.Component) and the push adds it to the grouping key. "" for none.
	Component string
	// AppWork says, in a sentence the result records (Report.AppWork), what the target app does
	// per request beyond answering it, such as the sleeps of Dapr's workflow app; "" when it
	// does nothing more.
	AppWork string
	// Tester is the name of the app that generates the load (Kind Tester).
	Tester string
	// TesterReplicas is how many testers share each load (testers.go): the runner copies the
	// Tester app under TesterNames and splits every load among them. 0 is 1; the variable
	// DAPR_PERF_TESTER_REPLICAS overrides it.
	TesterReplicas int
	// Baseline and Main are where the load goes in each phase; the warmup takes Main's route.
	Baseline, Main Route
	// MainOptions and WarmupOptions build the phases' Params (Env.MainParams, Env.WarmupParams:
	// the main phase takes Dapr's env overrides, the warmup its own).
	MainOptions, WarmupOptions []Option
	// Thresholds are the default bounds; env variables may override them (report.ThresholdsFromEnv).
	Thresholds []Threshold
	// Ladder are the loads the preflight may step down to, highest first, when DAPR_PERF_QPS
	// is not set (preflight.go); nil is QPSLadder. A scenario whose load differs from Dapr's
	// 1000 QPS by much states its own (the bulk-publish scenarios: 200 requests/s down to 10).
	Ladder []int
	// LadderNote says, in a clause the preflight's sentence quotes, why Ladder starts below the
	// scenario's own QPS (a first rung at or below it is used as it is: plan.ladderFrom); "" when it
	// does not.
	LadderNote string
	// RateIsMeasured marks a scenario whose figure is the rate the system reaches against a
	// target it may not keep (Dapr's jobs scheduling test gates at least 500 QPS at a 1000 QPS
	// target): a main or baseline phase below its rate or behind its schedule does not make the
	// run invalid, the result's warnings name each (its service times then understate queueing;
	// its response times, timed from each request's intended start, do not), and the preflight
	// does not lower the target. The result records it (Report.RateIsMeasured).
	RateIsMeasured bool
	// PreflightBaseline makes each preflight step also load the Baseline route, and keep a
	// rung only when both routes kept it: for a scenario whose baseline is the heavier load
	// (100 single publishes per request against one bulk of 100).
	PreflightBaseline bool
	// Setup are loads the overhead plan sends once through the tester, in order, after the
	// deployment is up and before the first phase (plan.runSetup): a state.save that seeds the key
	// a state.get reads, say. Their results are not figures of the run.
	Setup []Setup
	// SampleInterval is the resource sampling period during main phases (default 1 s).
	SampleInterval time.Duration
	// Plan is what the run does with the deployment (Plan); required (the overhead plan of
	// Baseline and Main is plan.OverheadPlan).
	Plan Plan
	// IdleWindow is how long resources are sampled after the last main phase, with no load,
	// to catch memory that keeps growing (default 10 s; env DAPR_PERF_IDLE_WINDOW; 0 = none
	// only through the env variable).
	IdleWindow time.Duration
	// MinIdleWindow is the shortest idle window the scenario's own checks need, such as timers
	// due after the main phase that must fire before the hosts' counters are read (actor_timer:
	// 15 s); a DAPR_PERF_IDLE_WINDOW below it is raised to it, and the result's warnings say so.
	MinIdleWindow time.Duration
	// ForEnv, when set, returns sc as the run's environment shapes it where a variable changes
	// more than a load (the actor hosts of DAPR_PERF_HOST_REPLICAS, bounds that scale with
	// DAPR_PERF_QPS, the workflows' store): the runner calls it once, with the Env it read and
	// the scenario itself, before the plan's Configure. An error names the variable; a
	// *SkipError skips the scenario instead (a Dapr variable that selects what this platform
	// cannot run), its reason in the test log.
	ForEnv func(env Env, sc Scenario) (Scenario, error)
}

// SkipError is what Scenario.ForEnv returns to skip a scenario under the run's environment:
// the runner skips the test (t.Skip) with Reason, which names the variable, and runs the rest.
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return "skipped: " + e.Reason }

// ResourceInterval is SampleInterval, or 1 s when it is not set: how often resources are sampled.
func (sc Scenario) ResourceInterval() time.Duration {
	if sc.SampleInterval > 0 {
		return sc.SampleInterval
	}
	return time.Second
}

// Route is where one phase's load goes.
type Route struct {
	// To is the callee app's name.
	To string
	// ThroughSidecar sends the load to the tester's own daprd, which invokes To through To's
	// daprd; otherwise the load goes straight to To.
	ThroughSidecar bool
	// Method is the invoked method (default "test").
	Method string
	// Protocol is the tester's protocol on this route; empty is the scenario's Transport.
	// Dapr's configuration get tests load their app over HTTP whichever of daprd's APIs the
	// app then calls: their gRPC scenario sets HTTP here.
	Protocol Protocol
	// Operation, when set, is what the phase sends instead of a service invocation of Method
	// (state, publish, actor call, ...; see Operation): through the sidecar it goes to the
	// tester's daprd API, otherwise to To's own port. Its Baseline says what the baseline
	// phase is (Operation.BaselineKind), and every result records it.
	Operation Operation
}

// Roles names what each process is in the scenario, for resource series: the testers
// (TesterNames) are RoleTester and their daprds caller sidecars; Main.To and every replica of it (each other app
// of Main.To's Kind but the tester's, such as actor_id_scale's actorapp-2 and actorapp-3, over
// which placement spreads the ids) are RoleApp, their daprds RoleCalleeSidecar. Placement,
// scheduler and sentry processes are RoleControlPlane.
func (sc Scenario) Roles() map[string]string {
	roles := map[string]string{
		sc.Tester:               RoleTester,
		SidecarName(sc.Tester):  RoleCallerSidecar,
		sc.Main.To:              RoleApp,
		SidecarName(sc.Main.To): RoleCalleeSidecar,
	}
	for _, name := range sc.TesterNames()[1:] {
		roles[name] = RoleTester
		roles[SidecarName(name)] = RoleCallerSidecar
	}
	if i := slices.IndexFunc(sc.Apps, func(a App) bool { return a.Name == sc.Main.To }); i >= 0 {
		for _, a := range sc.Apps {
			if a.Kind == sc.Apps[i].Kind && a.Kind != Tester && a.Name != sc.Tester {
				roles[a.Name] = RoleApp
				roles[SidecarName(a.Name)] = RoleCalleeSidecar
			}
		}
	}
	for _, g := range PlacementGroups(sc.Apps) {
		roles[PlacementProcess(g)] = RoleControlPlane
	}
	if NeedsScheduler(sc.Apps) {
		roles[string(ControlScheduler)] = RoleControlPlane
	}
	roles[string(ControlSentry)] = RoleControlPlane // when mTLS is on
	return roles
}

// EnvRepeats sets the number of interleaved baseline/main rounds (default 1).
const EnvRepeats = "DAPR_PERF_REPEATS"

// MaxRepeats bounds DAPR_PERF_REPEATS.
const MaxRepeats = 50

// EnvABGate names the figures an A/B run adds rounds for until they are decided (Env.ABGate).
const EnvABGate = "DAPR_PERF_AB_GATE"

// EnvABMaxRounds is the budget of an A/B run's rounds (Env.ABMaxRounds).
const EnvABMaxRounds = "DAPR_PERF_AB_MAX_ROUNDS"

// ABMaxRoundsFromEnv returns the rounds an A/B run of planned rounds may grow to: env's
// DAPR_PERF_AB_MAX_ROUNDS, or def when unset; never fewer than planned when unset. A set
// value below planned is an error naming both variables.
func ABMaxRoundsFromEnv(env Env, planned, def int) (int, error) {
	if env.ABMaxRounds == nil {
		return max(def, planned), nil
	}
	if *env.ABMaxRounds < planned {
		return planned, fmt.Errorf("%s=%d: must be at least the rounds asked for (%s or its default: %d); set it to %d for no added rounds",
			EnvABMaxRounds, *env.ABMaxRounds, EnvRepeats, planned, planned)
	}
	return *env.ABMaxRounds, nil
}

// EnvABSetAside bounds the rounds an A/B run sets aside and runs again (Env.ABSetAside).
const EnvABSetAside = "DAPR_PERF_AB_SET_ASIDE"

// ABSetAsideFromEnv returns how many rounds an A/B run of at most maxRounds rounds may set
// aside and run again: env's DAPR_PERF_AB_SET_ASIDE, or one per 8 rounds of maxRounds (at
// least 1) when unset. At 500 QPS on a 2-core machine about 0.6 % of phases fall behind
// (docs/method.md), so 80 rounds (240 phases) meet about 1.4 such phases: the default 10
// leaves the run invalid only when the machine is far noisier than that.
func ABSetAsideFromEnv(env Env, maxRounds int) int {
	if env.ABSetAside != nil {
		return *env.ABSetAside
	}
	return max(1, maxRounds/8)
}

// RepeatsFromEnv returns env's DAPR_PERF_REPEATS, 1 when unset.
func RepeatsFromEnv(env Env) int {
	if env.Repeats == nil {
		return 1
	}
	return *env.Repeats
}

// ProtocolIn is the protocol the tester speaks on r in sc: r.Protocol, else sc.Transport.
func (r Route) ProtocolIn(sc Scenario) Protocol {
	if r.Protocol != "" {
		return r.Protocol
	}
	return sc.Transport
}
