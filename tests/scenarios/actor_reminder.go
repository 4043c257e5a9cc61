package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
)

// Dapr's actor_reminder perf test (dapr/dapr tests/perf/actor_reminder): its actor type,
// reminder name and loads.
const (
	// ReminderActorType is the actor type whose reminders the test registers.
	ReminderActorType = "PerfTestActorReminder"
	reminderName      = "myreminder"
	// reminderRegistrationQPS is Dapr's registration load (3000 QPS, 24 connections, 1 min);
	// its gate is the achieved rate: targetQPS 600 with InDelta 120, so at least 480.
	reminderRegistrationQPS = 3000
	reminderMinQPS          = 480
	// reminderTriggerRate is Dapr's trigger gate: targetTriggerQPS 10,200 with InDelta 3,340,
	// so at least 6,860 fires/s.
	reminderTriggerRate = 6860
	reminderSource      = "Dapr v1.17 perf suite (tests/perf/actor_reminder)"
)

// ActorReminder is Dapr's actor_reminder: TestActorReminderRegistrationPerformance, then
// TestActorReminderTriggerPerformance, as one plan.ReminderPlan run. The tester registers
// through its own daprd (POST /v1.0/actors/PerfTestActorReminder/{uuid}/reminders/myreminder,
// body {"dueTime":"24h","period":"24h"}) at 3000 QPS over 24 connections for 1 minute (warmup:
// 300 QPS for 5 s); then 20,000 reminders, each on a new actor id, all due at one time with
// period 1 ms and ttl 5 ms, 5 fires each, registered by 50 VUs; the actor host (apps/actorapp,
// one replica as Dapr's) counts and times every fire. The host's sidecar uses the scheduler
// (reminders live there since Dapr 1.15) and the in-memory actor state store; the tester has
// no sidecar (daprd 1.17 refuses a reminder of a type it does not host: 403; and the tester may
// not load another app's daprd).
//
// Bounds: the registration's achieved rate at least 480 requests/s (Dapr's), scaled by
// DAPR_PERF_QPS/3000 when that override is set; the trigger rate at least 6,860 fires/s (Dapr's),
// warn-only under a load override (DAPR_PERF_QPS, DAPR_TEST_DURATION: the smoke's 1,000
// reminders are too few for a rate); every expected fire in Dapr's 100 s window
// ("reminders.missing" = 0, daprperf's: Dapr's test fails on its timeout); the trigger phase's
// 20,000 registrations done within 450 s (Dapr's: its reminders are due 450 s after the start;
// ours are due sooner, from the measured rate, so an overrun would also show as late fires); no errors, no
// restarts, no failed host call. The fire lag is reported, not gated (Dapr does not measure it).
func ActorReminder() perf.Scenario {
	apps := actorApps("-types", ReminderActorType)
	apps[0].Sidecar = nil
	host := *apps[1].Sidecar
	host.Scheduler = true
	apps[1].Sidecar = &host
	op := perf.Operation{Kind: perf.OpActorReminder, ActorType: ReminderActorType, ActorID: perf.UUIDToken, Reminder: reminderName}
	minQPS := perf.Threshold{Figure: "qps", Op: perf.AtLeast, Limit: reminderMinQPS, Source: reminderSource + ": actual QPS >= 600 - 120"}
	rate := perf.Threshold{Figure: "reminders.triggerRate", Op: perf.AtLeast, Limit: reminderTriggerRate, Source: reminderSource + ": trigger QPS >= 10200 - 3340"}
	return perf.Scenario{
		ForEnv:    reminderBoundsForEnv,
		Test:      "actor_reminder",
		Transport: perf.HTTP,
		Apps:      apps,
		Tester:    TesterApp,
		Main:      perf.Route{To: ActorHostApp, ThroughSidecar: true, Operation: op},
		MainOptions: []perf.Option{
			perf.WithQPS(reminderRegistrationQPS), perf.WithConnections(24), perf.WithDuration(time.Minute),
			perf.WithPayload(`{"dueTime":"24h","period":"24h"}`),
		},
		WarmupOptions: []perf.Option{
			perf.WithQPS(300), perf.WithConnections(24), perf.WithDuration(5 * time.Second),
			perf.WithPayload(`{"dueTime":"24h","period":"24h"}`),
		},
		Plan: &plan.ReminderPlan{Host: ActorHostApp, ActorType: ReminderActorType, Reminder: reminderName,
			Reminders: 20_000, FiresPerReminder: 5, Period: time.Millisecond, TTL: 5 * time.Millisecond,
			RegisterVUs: 50, TriggerWindow: 100 * time.Second},
		Thresholds: []perf.Threshold{
			{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: reminderSource + ": no 400s or 500s"},
			{Figure: "restarts", Op: perf.AtMost, Limit: 0, Source: reminderSource},
			minQPS, rate,
			{Figure: "reminders.missing", Op: perf.AtMost, Limit: 0, Source: "daprperf: every expected fire within Dapr's 100 s window"},
			{Figure: "reminders.registeredSeconds", Op: perf.AtMost, Limit: 450, Source: reminderSource + ": the trigger test's reminders registered within their 450 s due time"},
			doubleActivationGate, actorErrorsGate,
		},
	}
}

// ActorReminderRegistration is Dapr's TestActorReminderRegistrationPerformance alone: the
// warmup and the registration load of ActorReminder, its bounds those of the registration
// (achieved rate, errors, restarts, the host's), under the test name
// "actor_reminder_registration".
func ActorReminderRegistration() perf.Scenario {
	return reminderPart(plan.ReminderRegistration, "reminders.")
}

// ActorReminderTrigger is Dapr's TestActorReminderTriggerPerformance alone: the warmup, then
// ActorReminder's trigger phase, the due time set from the warmup's achieved rate; its bounds
// those of the fires (trigger rate, none missing, errors, restarts, the host's), under the test
// name "actor_reminder_trigger".
func ActorReminderTrigger() perf.Scenario {
	return reminderPart(plan.ReminderTrigger, "qps")
}

// reminderPart is ActorReminder running part alone, without the thresholds whose figure starts
// with drop (the other part's).
func reminderPart(part, drop string) perf.Scenario {
	sc := ActorReminder()
	sc.Test += "_" + part
	rp := *sc.Plan.(*plan.ReminderPlan)
	rp.Part = part
	sc.Plan = &rp
	var keep []perf.Threshold
	for _, th := range sc.Thresholds {
		if !strings.HasPrefix(th.Figure, drop) {
			keep = append(keep, th)
		}
	}
	sc.Thresholds = keep
	return sc
}

// reminderBoundsForEnv is the reminder scenarios' Scenario.ForEnv: under a DAPR_PERF_QPS below
// Dapr's 3000 the registration's QPS bound scales by QPS/3000; under a load override
// (DAPR_PERF_QPS or DAPR_TEST_DURATION: the CI smoke) the trigger-rate bound, which holds only at
// Dapr's full 20,000 reminders, is warn-only. Each changed bound's Source says so in the result.
func reminderBoundsForEnv(env perf.Env, sc perf.Scenario) (perf.Scenario, error) {
	sc.Thresholds = slices.Clone(sc.Thresholds)
	for i := range sc.Thresholds {
		th := &sc.Thresholds[i]
		switch {
		case th.Figure == "qps" && env.QPS != nil && *env.QPS < reminderRegistrationQPS:
			f := float64(*env.QPS) / reminderRegistrationQPS
			th.Limit *= f
			th.Source += fmt.Sprintf(", scaled by %s/%d = %.4g", perf.EnvQPS, reminderRegistrationQPS, f)
		case th.Figure == "reminders.triggerRate" && (env.QPS != nil || env.Duration != nil):
			th.WarnOnly = true
			th.Source += "; warn only under a load override (DAPR_PERF_QPS / DAPR_TEST_DURATION): fewer reminders than Dapr's 20,000"
		}
	}
	return sc, nil
}
