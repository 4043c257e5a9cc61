package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"

	"github.com/daprperf/daprperf/perf/driver"
)

// ReminderPlan is Dapr's actor_reminder perf test (dapr/dapr tests/perf/actor_reminder): the
// throughput of registering actor reminders, then of triggering them. In order:
//
//  1. a warmup of registrations (Scenario.WarmupOptions), its result discarded;
//  2. registration (TestActorReminderRegistrationPerformance): Scenario.Main, an
//     actor.reminder Operation sent to the host app's own port, which relays each registration
//     to its daprd (apps/actorapp; daprd 1.15 and later refuse a reminder of a type they do not
//     host, 403 ERR_ACTOR_REMINDER_NON_HOSTED, and the tester may load only its own daprd and
//     the apps' ports; Dapr's own test sends from inside the host's pod to its daprd,
//     127.0.0.1:3500), at Dapr's 3000 QPS over 24
//     connections for 1 minute, each request a reminder on a new actor id due in 24 h (so none
//     fires during the run). Its gate is the achieved rate ("qps"; Dapr's: at least 480,
//     600 - 120); it is a throughput test, so a rate below the target does not make the run
//     invalid. Resources are sampled meanwhile;
//  3. trigger (TestActorReminderTriggerPerformance): Reminders reminders, each on its own new
//     actor id, registered through the host (and its daprd) by RegisterVUs closed-loop VUs (k6's
//     shared-iterations; Dapr's test uses 50 goroutines), all due at one absolute time with
//     period Period and ttl TTL (Dapr's 1 ms and 5 ms: FiresPerReminder = 5 fires each). The due
//     time is set after the registration phase from its achieved rate: the expected
//     registration time x 1.5 + 3 s, so that every reminder is registered before it is due (the
//     report says if one was not). From the due time the host's counters are read every 100 ms
//     until Reminders x FiresPerReminder fires have arrived or TriggerWindow (Dapr's 100 s) has
//     passed. The trigger rate is those fires over the time from the due time to the arrival of
//     the last of them (Dapr's: the same count over the time from its wait's end, polled every
//     100 ms); the fire lag of every fire (arrival minus its scheduled time) comes from the
//     host (apps/actorapp, ReminderData in the reminder's data).
//
// Reminders are capped at the registration phase's own planned count (QPS x duration) when a
// load override makes it smaller: DAPR_PERF_QPS=100 and DAPR_TEST_DURATION=10s (CI's smoke)
// trigger 1,000 reminders x 5 fires. Report.Reminders says how many ran.
//
// Gate figures (report.reminderGates): "qps" (registration, requests/s), "errors" (failed
// registrations of both phases), "reminders.triggerRate" (fires/s), "reminders.missing"
// (expected fires that did not arrive within the window), "reminders.lag.p50" .. ".max"
// (seconds), "reminders.registrationOverran" (1 when a reminder was registered after its due
// time), "reminders.registeredSeconds" (how long the trigger phase's registration took), and
// "restarts". It reads the actor host's own port (perf.AppControl).
type ReminderPlan struct {
	// Host is the actor host app (Kind ActorApp) that serves the reminders' actor type.
	Host string
	// ActorType is the reminders' actor type; Reminder their name.
	ActorType, Reminder string
	// Reminders is the trigger phase's count (Dapr's 20,000), FiresPerReminder the fires each
	// makes (Dapr's 5), Period and TTL their schedule (1 ms, 5 ms).
	Reminders, FiresPerReminder int
	Period, TTL                 time.Duration
	// RegisterVUs register the trigger phase's reminders (Dapr's 50).
	RegisterVUs int
	// TriggerWindow bounds the wait for the fires from the due time (Dapr's 100 s).
	TriggerWindow time.Duration
	// Part runs one of Dapr's two tests alone: ReminderRegistration (the fixed-rate
	// registration load) or ReminderTrigger (the warmup, then the trigger phase, its due time
	// set from the warmup's achieved rate); "" runs both, the trigger's due time then set from
	// the registration's rate.
	Part string
}

// reminderRun is one run of a ReminderPlan: the trigger phase's reminders after the load-override cap.
type reminderRun struct {
	ReminderPlan

	reminders int // Reminders after the load-override cap, set by configure
}

// The parts of a ReminderPlan (ReminderPlan.Part).
const (
	ReminderRegistration = "registration" // Dapr's TestActorReminderRegistrationPerformance
	ReminderTrigger      = "trigger"      // Dapr's TestActorReminderTriggerPerformance
)

// Kind is "reminders".
func (*ReminderPlan) Kind() string { return perf.KindReminders }

func (rp *ReminderPlan) registers() bool { return rp.Part != ReminderTrigger }
func (rp *ReminderPlan) triggers() bool  { return rp.Part != ReminderRegistration }

// Bounds of the trigger phase's due time (reminderLead) and its poll period.
const (
	reminderMinLead = 3 * time.Second
	reminderMaxLead = 3 * time.Minute
	reminderPoll    = 100 * time.Millisecond
)

func (rp *ReminderPlan) Configure(sc perf.Scenario, cfg *perf.RunConfig) (perf.PlanRun, error) {
	r := &reminderRun{ReminderPlan: *rp}
	var errs problems
	add := errs.add
	loadParams(sc, cfg, add)
	if sc.Transport != perf.HTTP {
		add(fmt.Errorf("reminder plan: Transport %q: only %q", sc.Transport, perf.HTTP))
	}
	if op := sc.Main.Operation; op.Kind != perf.OpActorReminder || !sc.Main.ThroughSidecar {
		add(fmt.Errorf("reminder plan: Main must register reminders through a sidecar (Operation.Kind %q, ThroughSidecar true: the plan sends them to the Host's daprd); got %q, %v", perf.OpActorReminder, op.Kind, sc.Main.ThroughSidecar))
	}
	found := false
	for _, a := range sc.Apps {
		if a.Name == rp.Host {
			found = a.Kind == perf.ActorApp && a.Sidecar != nil && a.Sidecar.Scheduler
		}
	}
	if !found {
		add(fmt.Errorf("reminder plan: Host %q must name an app of Kind %q with a sidecar that has Scheduler set", rp.Host, perf.ActorApp))
	}
	if err := perf.PathSegment(rp.ActorType); rp.ActorType == "" || err != nil {
		add(fmt.Errorf("reminder plan: ActorType %q: must be one URL path segment", rp.ActorType))
	}
	if err := perf.PathSegment(rp.Reminder); rp.Reminder == "" || err != nil {
		add(fmt.Errorf("reminder plan: Reminder %q: must be one URL path segment", rp.Reminder))
	}
	if rp.Reminders < 1 || rp.Reminders > 1_000_000 {
		add(fmt.Errorf("reminder plan: Reminders = %d: must be from 1 to 1000000", rp.Reminders))
	}
	if rp.FiresPerReminder < 1 || rp.Period <= 0 || rp.TTL < time.Duration(rp.FiresPerReminder-1)*rp.Period {
		add(fmt.Errorf("reminder plan: FiresPerReminder %d, Period %v, TTL %v: need at least 1 fire, a period > 0 and a ttl of at least (fires-1) periods", rp.FiresPerReminder, rp.Period, rp.TTL))
	}
	if rp.RegisterVUs < 1 || rp.RegisterVUs > driver.MaxVUsLimit {
		add(fmt.Errorf("reminder plan: RegisterVUs = %d: must be from 1 to %d", rp.RegisterVUs, driver.MaxVUsLimit))
	}
	if rp.Part != "" && rp.Part != ReminderRegistration && rp.Part != ReminderTrigger {
		add(fmt.Errorf("reminder plan: Part %q: must be %q, %q or empty (both)", rp.Part, ReminderRegistration, ReminderTrigger))
	}
	if rp.TriggerWindow <= 0 || rp.TriggerWindow > time.Hour {
		add(fmt.Errorf("reminder plan: TriggerWindow = %v: must be in (0, 1h]", rp.TriggerWindow))
	}
	r.reminders = rp.Reminders
	if n := cfg.Main.ExpectedRequests(); n > 0 && n < int64(r.reminders) {
		r.reminders = int(n)
	}
	return r, errors.Join(errs...)
}

func (rp *reminderRun) Steps(_ perf.Scenario, cfg perf.RunConfig) []perf.Step {
	steps := []perf.Step{{Name: fmt.Sprintf("warmup, register %d reminders/s x %v", cfg.Warmup.QPS, cfg.Warmup.Duration), Duration: cfg.Warmup.Duration}}
	if rp.registers() {
		steps = append(steps, perf.Step{Name: fmt.Sprintf("registration: %d reminders/s x %v over %d connections", cfg.Main.QPS, cfg.Main.Duration, cfg.Main.Connections), Duration: cfg.Main.Duration})
	}
	if rp.triggers() {
		steps = append(steps, perf.Step{Name: fmt.Sprintf("trigger: register %d reminders x %d fires, then up to %v for the fires", rp.reminders, rp.FiresPerReminder, rp.TriggerWindow), Duration: 2 * reminderMinLead})
	}
	return steps
}

func (rp *reminderRun) Run(s perf.Session) error {
	t, sc, cfg, rep := s.T(), s.Scenario(), s.Config(), s.Report()
	ctx := t.Context()
	trig := rp.triggerParams(cfg.Main, time.Now())
	dep := s.Deploy(t, "", sc.Apps, cfg.Main, cfg.Warmup, trig)
	tester, err := startTester(s, dep)
	if err != nil {
		return err
	}
	hostURL, err := dep.Endpoint(rp.Host, perf.AppControl)
	if err != nil {
		return err
	}
	// onHost routes p to the host app's own port, which relays it to its daprd.
	onHost := func(p perf.Params, op perf.Operation) (perf.Params, error) {
		return routed(dep, sc, perf.Route{To: rp.Host, Operation: op}, p)
	}
	warm, err := onHost(cfg.Warmup, sc.Main.Operation)
	if err != nil {
		return fmt.Errorf("warmup: %w", err)
	}
	main, err := onHost(cfg.Main, sc.Main.Operation)
	if err != nil {
		return fmt.Errorf("registration: %w", err)
	}

	warmed, err := runWarmup(s, tester, warm, fmt.Sprintf(", register %d reminders/s", warm.QPS), warm.Duration)
	if err != nil {
		return err
	}
	rate := warmed.ActualQPS // the trigger part alone: the warmup's rate sets the due time
	rep.Params = cfg.Main
	if rp.registers() {
		phase := perf.Step{Name: fmt.Sprintf("registration: %d reminders/s to %s", main.QPS, main.Target), Duration: main.Duration}
		res, series, err := measure(s, dep, tester, phase, main, sc.Roles(), "registration")
		if err != nil {
			return fmt.Errorf("registration: %w", err)
		}
		rep.Params = res.Params
		rep.Loads = append(rep.Loads, perf.NamedLoad{Name: "registration", Result: res})
		rep.Resources = report.SummariseResources([]perf.Round{{Main: res, Resources: series}}, nil)
		s.Checkpoint("registration")
		rate = res.ActualQPS
	}
	if !rp.triggers() {
		return nil
	}

	// The trigger phase: a due time the registration's own rate can meet.
	rr := &perf.ReminderReport{ActorType: rp.ActorType, Reminders: rp.reminders, RequestedReminders: rp.Reminders,
		FiresPerReminder: rp.FiresPerReminder, PeriodSeconds: rp.Period.Seconds(), TTLSeconds: rp.TTL.Seconds(),
		ExpectedFires: int64(rp.reminders) * int64(rp.FiresPerReminder), WindowSeconds: rp.TriggerWindow.Seconds()}
	rep.Reminders = rr
	lead := reminderLead(rp.reminders, rate)
	start := time.Now()
	due := start.Add(lead).Truncate(time.Second).Add(time.Second) // whole seconds: RFC 3339 without fraction
	rr.Due, rr.LeadSeconds = due, due.Sub(start).Seconds()
	reg := rp.triggerParams(cfg.Main, due)
	if reg, err = onHost(reg, reg.Operation); err != nil {
		return fmt.Errorf("trigger registration: %w", err)
	}
	reg.Payload = rp.triggerBody(due)
	phase := perf.Step{Name: fmt.Sprintf("trigger: register %d reminders due %s (%.0f s ahead), %d VUs", rp.reminders, due.Format(time.RFC3339), rr.LeadSeconds, rp.RegisterVUs), Duration: lead}
	regRes, err := runPhase(s, tester, phase, reg)
	if err != nil {
		return fmt.Errorf("trigger registration: %w", err)
	}
	rr.RegisteredSeconds = time.Since(start).Seconds()
	rr.RegisterErrors = regRes.Errors()
	rr.Registered = regRes.Requests - rr.RegisterErrors
	rr.RegistrationOverran = time.Now().After(due)
	rep.Loads = append(rep.Loads, perf.NamedLoad{Name: "trigger registration", Result: regRes})
	s.Checkpoint("trigger registration")

	host := actorHost{url: hostURL}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Until(due)):
	}
	done := s.Phase(fmt.Sprintf("trigger: waiting for %d fires", rr.ExpectedFires), rp.TriggerWindow)
	st, err := host.waitFires(ctx, rr.ExpectedFires, due.Add(rp.TriggerWindow))
	done()
	if err != nil {
		return fmt.Errorf("trigger: %w", err)
	}
	rr.Fill(st)
	s.Checkpoint("trigger")
	return nil
}

// reminderLead is how far ahead of the trigger registration its reminders are due: the
// expected registration time of n reminders at rate (the registration phase's achieved
// requests/s) x 1.5 + reminderMinLead, at most reminderMaxLead.
func reminderLead(n int, rate float64) time.Duration {
	if rate <= 0 {
		return reminderMaxLead
	}
	lead := time.Duration(1.5*float64(n)/rate*float64(time.Second)) + reminderMinLead
	return min(lead, reminderMaxLead)
}

// triggerParams is the trigger phase's registration load: rp.reminders shared iterations on
// RegisterVUs VUs, each a reminder on a new actor id, at most reminderMaxLead (k6's
// maxDuration).
func (rp *reminderRun) triggerParams(main perf.Params, due time.Time) perf.Params {
	p := main
	p.Operation = perf.Operation{Kind: perf.OpActorReminder, ActorType: rp.ActorType, ActorID: perf.UUIDToken, Reminder: rp.Reminder}
	p.Executor = driver.Executor{Kind: driver.SharedIterations, VUs: rp.RegisterVUs, Iterations: int64(rp.reminders),
		Duration: reminderMaxLead, GracefulStop: 10 * time.Second}
	p.Payload = rp.triggerBody(due)
	return p
}

// triggerBody is each trigger reminder's registration body: Dapr's {"dueTime": <RFC 3339>,
// "period": "1ms", "ttl": "5ms"}, plus the data that lets the host time each fire.
func (rp *ReminderPlan) triggerBody(due time.Time) string {
	data, _ := json.Marshal(map[string]string{"due": due.UTC().Format(time.RFC3339Nano), "period": rp.Period.String()})
	b, _ := json.Marshal(map[string]any{"dueTime": due.UTC().Format(time.RFC3339), "period": rp.Period.String(),
		"ttl": rp.TTL.String(), "data": json.RawMessage(data)})
	return string(b)
}

func (rp *reminderRun) Finish(s perf.Session, runErr error) {
	r := s.Report()
	r.Validity = perf.Validity{Valid: true}
	addRunError(r, "reminders", runErr)
	done, notDone := r.Reminders != nil && r.Reminders.WindowSeconds != 0, "the trigger phase did not complete"
	if rp.Part == ReminderRegistration {
		done, notDone = len(r.Loads) == 1, "the registration phase did not complete"
	}
	if finishCounted(r, done, notDone) && r.Reminders != nil && r.Reminders.RegistrationOverran {
		r.Validity = perf.Validity{Reasons: []string{fmt.Sprintf("the trigger registration took %.1f s, past the due time %.1f s after its start: late reminders fired at once, so the trigger rate is not Dapr's", r.Reminders.RegisteredSeconds, r.Reminders.LeadSeconds)}}
	}
	if len(r.Loads) > 0 && r.Loads[0].RequestedQPS > 0 && r.Loads[0].QPSRatio() < report.MinValidQPSRatio {
		r.Warnings = append(r.Warnings, fmt.Sprintf("registration: achieved %.1f of %.0f requests/s: a throughput test (Dapr's gate is the achieved rate), not invalid", r.Loads[0].ActualQPS, r.Loads[0].RequestedQPS))
	}
}

// waitFires reads the host's counters every reminderPoll until want timed fires have arrived or
// until is reached, and returns the last counters (with the want-th fire's arrival when it came).
func (h actorHost) waitFires(ctx context.Context, want int64, until time.Time) (perf.ActorStats, error) {
	for {
		st, err := h.stats(ctx, max(want, 1))
		if err != nil || st.ReminderFiresTimed >= want || time.Now().After(until) {
			return st, err
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-time.After(reminderPoll):
		}
	}
}
