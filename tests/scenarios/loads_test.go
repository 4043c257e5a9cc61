package scenarios

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/plan"
	"github.com/daprperf/daprperf/perf/runner"
)

// load is what a test runs by default, as one comparable line per part: the main phase's load
// (fortio's fixed rate, or an executor), the plan's own loads, how many hosts of the target
// app and how many testers, and the target app's own work per request (workOf).
type load struct {
	Main    string
	Plan    string
	Hosts   int
	Testers int
	Work    string
}

// daprsLoads are Dapr's loads, test by test, read from dapr/dapr tests/perf (v1.17.5, and the
// jobs package after it): the Go tests' fortio options, the k6 scripts' executors and the
// replicas of their app deployments. gap, when set, says how ours differs: the test then checks
// that it still does, so that closing a gap means moving it here from the list of gaps.
var daprsLoads = []struct {
	test string
	sc   func() perf.Scenario
	dapr load
	gap  string
}{
	{"TestServiceInvocationHTTPPerformance", func() perf.Scenario { return ServiceInvocation(perf.HTTP) },
		load{Main: "fortio 1000 QPS x 16 conns x 1m0s, 1024 B", Hosts: 1, Testers: 1}, ""},
	{"TestServiceInvocationGrpcPerformance", func() perf.Scenario { return ServiceInvocation(perf.GRPC) },
		load{Main: "fortio 1000 QPS x 16 conns x 1m0s, 1024 B", Hosts: 1, Testers: 1}, ""},
	{"TestStateGetHTTPPerformance", func() perf.Scenario { return StateGet(perf.HTTP, perf.StateInMemory) },
		load{Main: "fortio 1000 QPS x 16 conns x 1m0s, 0 B", Hosts: 1, Testers: 1}, ""},
	{"TestStateGetGrpcPerformance", func() perf.Scenario { return StateGet(perf.GRPC, perf.StateInMemory) },
		load{Main: "fortio 1000 QPS x 16 conns x 1m0s, 0 B", Hosts: 1, Testers: 1}, ""},
	{"TestPubsubPublishGrpcPerformance", func() perf.Scenario { return PubSubPublish(perf.GRPC, PublishBrokers[0]) },
		load{Main: "fortio 1000 QPS x 16 conns x 1m0s, 0 B", Hosts: 1, Testers: 1}, ""},
	{"TestPubsubPublishHttpPerformance", func() perf.Scenario { return PubSubPublishStages(PublishBrokers[0]) },
		load{Plan: "stages 2kb-200ps 200/s x 200, 2kb-20ps 20/s x 200, 2kb-10ps 10/s x 200, 2kb-1ps 1/s x 200, 31kb-200ps 200/s x 200, 31kb-20ps 20/s x 200, 31kb-10ps 10/s x 200, 31kb-1ps 1/s x 200", Hosts: 1, Testers: 1}, ""},
	{"TestBulkPubsubPublishGrpcPerformance", func() perf.Scenario { return PubSubBulkPublish(perf.GRPC, PublishBrokers[0], false) },
		load{Main: "fortio 200 QPS x 16 conns x 1m0s, 1024 B", Hosts: 1, Testers: 1}, ""},
	{"TestPubsubBulkPublishHttpPerformance", func() perf.Scenario { return PubSubBulkPublishHTTP(PublishBrokers[0], true, 10) },
		load{Main: "constant-vus 50 VUs x 30s, 1024 B", Hosts: 1, Testers: 1}, ""},
	{"TestPubsubBulkPublishSubscribeHttpPerformance", func() perf.Scenario { return PubSubSubscribe(SubscribeBrokers[0], perf.SubscribeNormal) },
		load{Main: "ramping-vus 0 -> 100/2s -> 300/3s -> 500/4s, 100 B", Plan: "100 messages per request, each iteration waiting up to 1m0s for them", Hosts: 1, Testers: 1}, ""},
	{"TestPubsubBulkPublishBulkSubscribeHttpPerformance", func() perf.Scenario { return PubSubSubscribe(SubscribeBrokers[0], perf.SubscribeBulk) },
		load{Main: "ramping-vus 0 -> 100/2s -> 300/3s -> 500/4s, 100 B", Plan: "100 messages per request, each iteration waiting up to 1m0s for them", Hosts: 1, Testers: 1,
			Work: "bulks of up to 100, waiting up to 1s"}, ""}, // daprd's defaults: Dapr's app sets neither
	{"TestActorActivate", ActorActivation,
		load{Main: "fortio 500 QPS x 8 conns x 1m0s, 2 B", Hosts: 1, Testers: 1}, ""},
	{"TestActorTimerWithStatePerformance", ActorTimer,
		load{Main: "fortio 220 QPS x 10 conns x 1m0s, 0 B", Plan: "timers every 10s, 10m0s of them firing", Hosts: 4, Testers: 1}, "several hosts share a double-activation lock in Redis, one round trip inside each activating request; Dapr's hosts take none (one host locks in process)"},
	{"TestActorReminderRegistrationPerformance", ActorReminderRegistration,
		load{Main: "fortio 3000 QPS x 24 conns x 1m0s, 32 B", Plan: "registration", Hosts: 1, Testers: 1}, ""},
	{"TestActorReminderTriggerPerformance", ActorReminderTrigger,
		load{Main: "fortio 3000 QPS x 24 conns x 1m0s, 32 B", Plan: "trigger: 20000 reminders x 5 fires, 50 VUs, window 1m40s", Hosts: 1, Testers: 1}, ""},
	{"TestActorIdStress (actor_type_scale)", ActorTypeScale,
		load{Main: "ramping-vus 0 -> 100/2s -> 300/2s -> 500/4s, 2 B", Hosts: 1, Testers: 1}, ""},
	{"TestActorIdStress (actor_id_scale)", ActorIDScale,
		load{Main: "ramping-vus 0 -> 100/2s -> 300/2s -> 500/4s, 2 B", Hosts: 10, Testers: 5}, "several hosts share a double-activation lock in Redis, one round trip inside each activating request; Dapr's hosts take none (one host locks in process)"},
	{"TestActorDoubleActivation", ActorDoubleActivation,
		load{Plan: "base ramping-vus 0 -> 1000/5s -> 3000/5s -> 5000/5s; faults ramping-vus 0 -> 1000/5s -> 3000/5s -> 5000/5s", Hosts: 3, Testers: 3, Work: "a Redis lock per call"}, "our hosts hold a Redis lock from activation to deactivation; Dapr's locker app (tests/apps/perf/actor-activation-locker) obtains and releases one around each call"},
	{"TestConfigurationGetHTTPPerformance", func() perf.Scenario { return ConfigurationGetRamp(perf.HTTP) },
		load{Main: "ramping-vus 0 -> 100/2s -> 300/3s -> 500/4s, 0 B", Hosts: 1, Testers: 1, Work: "state seeded before the load, the app reads key1 (baseline: from Redis; main: through its daprd)"}, ""},
	{"TestConfigurationGetGRPCPerformance", func() perf.Scenario { return ConfigurationGetRamp(perf.GRPC) },
		load{Main: "ramping-vus 0 -> 100/2s -> 300/3s -> 500/4s, 0 B", Hosts: 1, Testers: 1, Work: "state seeded before the load, the app reads key1 (baseline: from Redis; main: through its daprd)"}, ""},
	{"TestConfigurationSubscribeHTTPPerformance", func() perf.Scenario { return ConfigurationSubscribe(perf.HTTP) },
		load{Main: "ramping-vus 0 -> 100/2s -> 300/3s -> 500/4s, 100 B", Plan: "1 messages per request, each iteration waiting up to 1m0s for them", Hosts: 1, Testers: 1}, ""},
	{"TestConfigurationSubscribeGRPCPerformance", func() perf.Scenario { return ConfigurationSubscribe(perf.GRPC) },
		load{Main: "ramping-vus 0 -> 100/2s -> 300/3s -> 500/4s, 100 B", Plan: "1 messages per request, each iteration waiting up to 1m0s for them", Hosts: 1, Testers: 1}, ""},
	{"TestJobSchedulingPerformance", JobsScheduling,
		load{Main: "fortio 1000 QPS x 16 conns x 1m0s, 8 B", Hosts: 1, Testers: 1}, ""}, // data "perftest"
	{"TestJobTriggerPerformance", JobsTriggering,
		load{Plan: "20000 jobs, 50 in flight", Hosts: 1, Testers: 1}, ""},
	{"TestWorkflowWithConstantVUs", func() perf.Scenario { return WorkflowWithConstantVUs("postgresql") },
		load{Plan: "iterations t_30_300 30 VUs x 300 (3m20s), t_30_300 30 VUs x 300 (3m20s), t_30_300 30 VUs x 300 (3m20s)", Hosts: 1, Testers: 1, Work: "waits 500ms after starting, sleeps 1s per state activity, gets, terminates, purges, gets"}, ""},
	{"TestWorkflowWithConstantIterations", func() perf.Scenario { return WorkflowWithConstantIterations("postgresql") },
		load{Plan: "iterations t_30_300 30 VUs x 300 (3m20s) fresh, t_60_300 60 VUs x 300 (6m20s) fresh, t_90_300 90 VUs x 300 (6m20s) fresh", Hosts: 1, Testers: 1, Work: "waits 500ms after starting, sleeps 1s per state activity, gets, terminates, purges, gets"}, ""},
	{"TestSeriesWorkflowWithMaxVUs", func() perf.Scenario { return SeriesWorkflowWithMaxVUs("postgresql") },
		load{Plan: "iterations t_350_1400 350 VUs x 1400 (16m40s)", Hosts: 1, Testers: 1, Work: "waits 500ms after starting, sleeps 1s per state activity, gets, terminates, purges, gets"}, ""},
	{"TestParallelWorkflowWithMaxVUs", func() perf.Scenario { return ParallelWorkflowWithMaxVUs("postgresql") },
		load{Plan: "iterations t_110_440 110 VUs x 440 (7m30s)", Hosts: 1, Testers: 1, Work: "waits 500ms after starting, sleeps 1s per state activity, gets, terminates, purges, gets"}, ""},
	{"TestWorkflowWithDifferentPayloads", func() perf.Scenario { return WorkflowWithPayload("postgresql", 10_000) },
		load{Plan: "iterations t_30_300 30 VUs x 300 (3m20s)", Hosts: 1, Testers: 1, Work: "waits 500ms after starting, sleeps 1s per state activity, gets, terminates, purges, gets"}, ""},
	{"TestDelayWorkflowsAtScale", func() perf.Scenario { return DelayWorkflowsAtScale("postgresql") },
		load{Plan: "iterations t_500_10000 500 VUs x 10000 (1h0m0s)", Hosts: 1, Testers: 1, Work: "waits 500ms after starting, sleeps 1s per state activity, gets, terminates, purges, gets"}, ""},
}

// TestDaprsLoads reads, without running anything, the load each of Dapr's 29 tests runs here
// by default (no load variable set): the main phase's params, the plan's own loads, the target's
// replicas and the testers. Each must be Dapr's, or differ as its gap says.
func TestDaprsLoads(t *testing.T) {
	for _, v := range perf.EnvVars() { // the defaults: no variable set
		t.Setenv(v.Name, "")
		os.Unsetenv(v.Name)
	}
	if len(daprsLoads) != len(daprsTests) {
		t.Fatalf("%d loads listed, want one for each of Dapr's %d tests", len(daprsLoads), len(daprsTests))
	}
	var gaps []string
	for _, d := range daprsLoads {
		got := loadOf(t, d.sc())
		switch {
		case d.gap == "" && got != d.dapr:
			t.Errorf("%s: runs %+v by default, Dapr's load is %+v", d.test, got, d.dapr)
		case d.gap != "" && got == d.dapr:
			t.Errorf("%s: runs Dapr's load now: remove its gap (%s)", d.test, d.gap)
		case d.gap != "":
			gaps = append(gaps, fmt.Sprintf("%s: %s", d.test, d.gap))
		}
	}
	t.Logf("%d of Dapr's %d tests run Dapr's load by default; the others:\n%s", len(daprsLoads)-len(gaps), len(daprsLoads), strings.Join(gaps, "\n"))
}

// loadOf describes sc's default load.
func loadOf(t *testing.T, sc perf.Scenario) load {
	t.Helper()
	var l load
	switch sc.Plan.(type) {
	case *plan.StagePlan, *plan.IterationsPlan, *plan.FaultPlan, *plan.JobTriggerPlan: // their own loads
	default:
		p, err := runner.EnvFor(t).MainParams(sc.MainOptions...)
		if err != nil {
			t.Fatalf("%s: %v", sc.Test, err)
		}
		l.Main = paramsLoad(p)
	}
	l.Plan = planLoad(sc)
	l.Hosts, l.Testers = hostsOf(sc), max(sc.TesterReplicas, 1)
	l.Work = workOf(sc)
	return l
}

// workOf reads, from the flags and backends of the main route's target app and the scenario's
// setup loads, the work the app and the run add to each request beyond answering it: the
// workflow app's sleeps and cleanup, an actor host's lock in Redis, a state key written before
// the load. "" when none.
func workOf(sc perf.Scenario) string {
	var parts []string
	if len(sc.Setup) > 0 {
		parts = append(parts, "state seeded before the load")
	}
	i := slices.IndexFunc(sc.Apps, func(a perf.App) bool { return a.Name == sc.Main.To })
	if i < 0 {
		return strings.Join(parts, ", ")
	}
	a := sc.Apps[i]
	flag := func(name string) string {
		if j := slices.Index(a.Args, name); j >= 0 && j+1 < len(a.Args) {
			return a.Args[j+1]
		}
		return ""
	}
	if v := flag("-wait-delay"); v != "" {
		parts = append(parts, "waits "+v+" after starting")
	}
	if v := flag("-state-sleep"); v != "" {
		parts = append(parts, "sleeps "+v+" per state activity")
	}
	if slices.Contains(a.Args, "-cleanup") {
		parts = append(parts, "gets, terminates, purges, gets")
	}
	if v := flag("-bulk-max-await"); v != "" {
		parts = append(parts, "bulks of up to "+flag("-bulk-max-messages")+", waiting up to "+v)
	}
	if v := flag("-configuration-get-keys"); v != "" {
		parts = append(parts, "the app reads "+v+" (baseline: from Redis; main: through its daprd)")
	}
	if a.Kind == perf.ActorApp && slices.Contains(a.Backends, perf.BackendRedis) {
		parts = append(parts, "a Redis lock per activation")
	}
	return strings.Join(parts, ", ")
}

func paramsLoad(p perf.Params) string {
	if p.HasExecutor() {
		return executorLoad(p.Executor) + fmt.Sprintf(", %d B", len(p.RequestBody()))
	}
	return fmt.Sprintf("fortio %d QPS x %d conns x %v, %d B", p.QPS, p.Connections, p.Duration, len(p.RequestBody()))
}

func executorLoad(e driver.Executor) string {
	switch e.Kind {
	case driver.RampingVUs:
		s := fmt.Sprintf("%s %d", e.Kind, e.StartVUs)
		for _, st := range e.Stages {
			s += fmt.Sprintf(" -> %d/%v", st.Target, st.Duration)
		}
		return s
	case driver.ConstantVUs:
		return fmt.Sprintf("%s %d VUs x %v", e.Kind, e.VUs, e.Duration)
	case driver.ConstantArrivalRate:
		return fmt.Sprintf("%s %d/s x %v, at most %d VUs", e.Kind, e.Rate, e.Duration, e.MaxVUs)
	}
	return fmt.Sprintf("%s %d VUs x %d", e.Kind, e.VUs, e.Iterations)
}

func planLoad(sc perf.Scenario) string {
	switch p := sc.Plan.(type) {
	case *plan.StagePlan:
		var parts []string
		for _, st := range p.Stages {
			parts = append(parts, fmt.Sprintf("%s %d/s x %d", st.Name, st.QPS, st.Samples))
		}
		return "stages " + strings.Join(parts, ", ")
	case *plan.IterationsPlan:
		var parts []string
		for _, r := range p.Runs {
			name, _, _ := strings.Cut(r.Name, "-") // t_30_300-2: the second run of t_30_300
			s := fmt.Sprintf("%s %d VUs x %d (%v)", name, r.VUs, r.Iterations, r.MaxDuration)
			if r.Fresh {
				s += " fresh"
			}
			parts = append(parts, s)
		}
		return "iterations " + strings.Join(parts, ", ")
	case *plan.ReminderPlan:
		if p.Part == plan.ReminderTrigger {
			return fmt.Sprintf("trigger: %d reminders x %d fires, %d VUs, window %v", p.Reminders, p.FiresPerReminder, p.RegisterVUs, p.TriggerWindow)
		}
		return p.Part
	case *plan.JobTriggerPlan:
		return fmt.Sprintf("%d jobs, %d in flight", p.Jobs, p.Connections)
	case *plan.FaultPlan:
		return "base " + executorLoad(p.Base) + "; faults " + executorLoad(p.Faults)
	case *plan.DeliveryPlan:
		if p.Await > 0 {
			return fmt.Sprintf("%d messages per request, each iteration waiting up to %v for them", max(sc.Main.Operation.EventsPerRequest(), 1), p.Await)
		}
	}
	for _, a := range sc.Apps { // periodic actor timers, and how long they fire after the load
		if i := slices.Index(a.Args, "-timer-period"); i >= 0 && i+1 < len(a.Args) {
			return fmt.Sprintf("timers every %s, %v of them firing", a.Args[i+1], sc.IdleWindow)
		}
	}
	return ""
}

// hostsOf counts the apps of the kind of the main route's target (its replicas), the tester's
// kind aside.
func hostsOf(sc perf.Scenario) int {
	to := sc.Main.To
	if fp, ok := sc.Plan.(*plan.FaultPlan); ok && len(fp.Hosts) > 0 {
		return len(fp.Hosts)
	}
	i := slices.IndexFunc(sc.Apps, func(a perf.App) bool { return a.Name == to })
	if i < 0 {
		return 1
	}
	n := 0
	for _, a := range sc.Apps {
		if a.Kind == sc.Apps[i].Kind && a.Name != sc.Tester {
			n++
		}
	}
	return n
}

// DAPR_PERF_HOST_REPLICAS sets the actor hosts of the scenarios that run several, and the
// result's load record then says the load was not Dapr's.
func TestHostReplicasOverride(t *testing.T) {
	hosts := func(sc perf.Scenario) int {
		n := 0
		for _, a := range sc.Apps {
			if a.Kind == perf.ActorApp {
				n++
			}
		}
		return n
	}
	if got := hosts(shaped(t, ActorIDScale())); got != ActorIDScaleReplicas {
		t.Fatalf("actor_id_scale: %d hosts by default, want Dapr's %d", got, ActorIDScaleReplicas)
	}
	t.Setenv(perf.EnvHostReplicas, "3")
	if got := hosts(shaped(t, ActorIDScale())); got != 3 {
		t.Errorf("actor_id_scale under %s=3: %d hosts", perf.EnvHostReplicas, got)
	}
	if got := hosts(shaped(t, ActorTimer())); got != 3 {
		t.Errorf("actor_timer under %s=3: %d hosts", perf.EnvHostReplicas, got)
	}
	env, err := runner.LoadEnv()
	if err != nil {
		t.Fatal(err)
	}
	if rec := perf.LoadOf(env); !slices.Contains(rec.Overrides, perf.EnvHostReplicas+"=3") {
		t.Errorf("load record %v: want %s=3 among the overrides", rec.Overrides, perf.EnvHostReplicas)
	}
	t.Setenv(perf.EnvHostReplicas, "0")
	if _, err := runner.LoadEnv(); err == nil || !strings.Contains(err.Error(), perf.EnvHostReplicas) {
		t.Errorf("%s=0: error %v, want one naming the variable", perf.EnvHostReplicas, err)
	}
}
