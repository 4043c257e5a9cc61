package perf

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf/secondsjson"
)

// Dapr's control plane for actors, as the platforms provide it (Sidecar.Placement,
// Sidecar.Scheduler). The report's environment lists each service with the backends.
const (
	// ControlPlacement is Dapr's placement service: which host runs which actor id.
	ControlPlacement Backend = "placement"
	// ControlScheduler is Dapr's scheduler: reminders, jobs and workflow timers.
	ControlScheduler Backend = "scheduler"
	// ControlSentry is Dapr's certificate authority: with mTLS on (EnvMTLS) every daprd, and
	// placement and scheduler, take their identity certificates from it.
	ControlSentry Backend = "sentry"
	// DefaultPlacement is the placement group of a sidecar that leaves Placement empty but
	// loads an actor state store.
	DefaultPlacement = "default"
)

// EnvBackendAddr is the environment variable that gives an app the host:port of backend b it
// asked for in App.Backends: "DAPR_PERF_REDIS_ADDR" for BackendRedis.
func EnvBackendAddr(b Backend) string { return "DAPR_PERF_" + strings.ToUpper(string(b)) + "_ADDR" }

// HasActorStateStore reports whether s loads a component with metadata actorStateStore "true".
func (s *Sidecar) HasActorStateStore() bool {
	if s == nil {
		return false
	}
	return slices.ContainsFunc(s.Components, func(c Component) bool {
		return strings.EqualFold(c.Metadata["actorStateStore"], "true")
	})
}

// PlacementGroup is the placement service s registers with: Placement, or DefaultPlacement
// when s loads an actor state store; "" for none.
func (s *Sidecar) PlacementGroup() string {
	switch {
	case s == nil:
		return ""
	case s.Placement != "":
		return s.Placement
	case s.HasActorStateStore():
		return DefaultPlacement
	}
	return ""
}

// PlacementGroups lists the distinct placement groups of apps' sidecars, sorted.
func PlacementGroups(apps []App) []string {
	set := map[string]bool{}
	for _, a := range apps {
		if g := a.Sidecar.PlacementGroup(); g != "" {
			set[g] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// NeedsScheduler reports whether a sidecar of apps asks for the scheduler.
func NeedsScheduler(apps []App) bool {
	return slices.ContainsFunc(apps, func(a App) bool { return a.Sidecar != nil && a.Sidecar.Scheduler })
}

// PlacementProcess is the process name of placement group g: "placement" for the default
// group, "placement-<g>" for another.
func PlacementProcess(g string) string {
	if g == DefaultPlacement || g == "" {
		return string(ControlPlacement)
	}
	return string(ControlPlacement) + "-" + g
}

// ActorStats are an actor host's counters (apps/actorapp serves them as JSON on GET /stats);
// runner.Run reads them from every app of kind ActorApp after the plan's phases and records
// them in Report.Actors.
type ActorStats struct {
	// App is the app's name in the scenario (filled in by the runner); Host is the host's name
	// in the lock (app and PID).
	App  string `json:"app,omitempty"`
	Host string `json:"host"`
	// Lock says which lock detects double activations: "redis 127.0.0.1:6379" or
	// "in-process" (one host only: it cannot see another host's activation).
	Lock string `json:"lock"`
	// Activations counts first calls of an actor id on this host (again after a deactivation).
	Activations int64 `json:"activations"`
	// Deactivations counts deactivations (DELETE /actors/{type}/{id}).
	Deactivations int64 `json:"deactivations"`
	// Active is how many actors were active when read.
	Active int `json:"active"`
	// IDs is how many distinct ids were ever activated here; MaxActivationsPerID is the most
	// activations of one of them.
	IDs                 int   `json:"ids"`
	MaxActivationsPerID int64 `json:"maxActivationsPerID"`
	// DoubleActivations counts activations that found the same id active on another host.
	DoubleActivations int64 `json:"doubleActivations"`
	// DoubleActivated lists up to 100 of them, "type/id held by host".
	DoubleActivated []string `json:"doubleActivated,omitempty"`
	// Calls counts method calls through daprd; DirectCalls the baseline's straight calls.
	Calls       int64 `json:"calls"`
	DirectCalls int64 `json:"directCalls"`
	// TimersRegistered counts the timers registered, TimerFires every fire (a periodic timer
	// fires many times); TimersNeverFired those registered that have not fired yet, nil in
	// files written before it (one-shot timers then: registered minus fires). TimerLagSeconds
	// are the percentiles of the first fire's lag (fire time minus registration time minus due
	// time) by order statistics over the timers: "p50", "p90", "p99", "max", in seconds.
	TimersRegistered int64              `json:"timersRegistered"`
	TimerFires       int64              `json:"timerFires"`
	TimersNeverFired *int64             `json:"timersNeverFired,omitempty"`
	TimerLagSeconds  map[string]float64 `json:"timerLagSeconds,omitempty"`
	ReminderFires    int64              `json:"reminderFires"`
	// RemindersFired is how many distinct reminders (actor and name) fired at least once;
	// MaxFiresPerReminder the most fires of one. ReminderFiresTimed counts the fires whose
	// callback said when they were due (apps/actorapp.ReminderData); ReminderLagSeconds are
	// their lag percentiles (arrival minus scheduled time, order statistics: "p50", "p90",
	// "p99", "max", seconds). ReminderFirstFire is the first fire's arrival,
	// ReminderLastTimedFire the last timed one's; ReminderNthFire, only when GET /stats was
	// asked ?reminderFires=N, is the N-th timed fire's arrival.
	RemindersFired        int                `json:"remindersFired,omitempty"`
	MaxFiresPerReminder   int64              `json:"maxFiresPerReminder,omitempty"`
	ReminderFiresTimed    int64              `json:"reminderFiresTimed,omitempty"`
	ReminderLagSeconds    map[string]float64 `json:"reminderLagSeconds,omitempty"`
	ReminderFirstFire     *time.Time         `json:"reminderFirstFire,omitempty"`
	ReminderLastTimedFire *time.Time         `json:"reminderLastTimedFire,omitempty"`
	ReminderNthFire       *time.Time         `json:"reminderNthFire,omitempty"`
	// ReminderTimeline is the timed reminder fires second by second from
	// ReminderTimelineStart (the first fire): each second's fires and their lag.
	ReminderTimelineStart time.Time `json:"reminderTimelineStart,omitzero"`
	ReminderTimeline      []Second  `json:"reminderTimeline,omitempty"`
	// Errors counts the host's failed lock and timer-registration calls; LastError is the last.
	Errors    int64  `json:"errors"`
	LastError string `json:"lastError,omitempty"`
	// Faults is the host's last fault window (apps/actorapp POST /faults; FaultPlan), nil when
	// none was opened.
	Faults *FaultStats `json:"faults,omitempty"`
}

// FaultStats are one fault window of an actor host: from From to Until every actor method
// call waited Delay, and FailFraction of them (deterministically: 1 of every 10 at 0.1) were
// answered 500 by the host without running. Calls counts the calls the window saw, Failed the
// 500s it injected: the count a gate subtracts from the client's errors.
type FaultStats struct {
	Delay        time.Duration `json:"delay"`
	FailFraction float64       `json:"failFraction"`
	Window       time.Duration `json:"window"`
	From         time.Time     `json:"from"`
	Until        time.Time     `json:"until"`
	Calls        int64         `json:"calls"`
	Failed       int64         `json:"failed"`
}

// MarshalJSON writes FaultStats with its durations in seconds, under their names with "Seconds"
// after them (package secondsjson).
func (f FaultStats) MarshalJSON() ([]byte, error) {
	type plain FaultStats
	return secondsjson.Marshal(plain(f))
}

// UnmarshalJSON reads FaultStats's durations in seconds, or in nanoseconds under their bare names
// (result files of schema 1).
func (f *FaultStats) UnmarshalJSON(b []byte) error {
	type plain FaultStats
	return secondsjson.Unmarshal(b, (*plain)(f))
}
