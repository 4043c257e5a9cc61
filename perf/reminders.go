package perf

import (
	"time"
)

// ReminderReport is what a reminder run measured (Report.Reminders); counts are reminders or
// fires, times seconds.
type ReminderReport struct {
	ActorType string `json:"actorType"`
	// Reminders were registered for the trigger phase (ReminderPlan.Reminders after the
	// load-override cap), RequestedReminders what the scenario asked for; FiresPerReminder,
	// PeriodSeconds and TTLSeconds their schedule, ExpectedFires = Reminders x FiresPerReminder.
	Reminders          int     `json:"reminders"`
	RequestedReminders int     `json:"requestedReminders"`
	FiresPerReminder   int     `json:"firesPerReminder"`
	PeriodSeconds      float64 `json:"periodSeconds"`
	TTLSeconds         float64 `json:"ttlSeconds"`
	ExpectedFires      int64   `json:"expectedFires"`
	// Due is when every trigger reminder was due; LeadSeconds how long after the start of
	// their registration; RegisteredSeconds how long their registration took, Registered and
	// RegisterErrors its successes and failures; RegistrationOverran is set when it ended after
	// Due (some reminders were then registered late and fired at once).
	Due                 time.Time `json:"due"`
	LeadSeconds         float64   `json:"leadSeconds"`
	RegisteredSeconds   float64   `json:"registeredSeconds"`
	Registered          int64     `json:"registered"`
	RegisterErrors      int64     `json:"registerErrors"`
	RegistrationOverran bool      `json:"registrationOverran"`
	// Fires are the timed fires that arrived by the end of the wait (all of them may exceed
	// ExpectedFires), RemindersFired the distinct reminders that fired, MaxFiresPerReminder the
	// most of one; Missing = ExpectedFires - Fires, at least 0.
	Fires               int64 `json:"fires"`
	RemindersFired      int   `json:"remindersFired"`
	MaxFiresPerReminder int64 `json:"maxFiresPerReminder"`
	Missing             int64 `json:"missing"`
	// TriggerSeconds is from Due to the arrival of the ExpectedFires-th fire (or of the last
	// one, when fewer arrived); TriggerRate = min(Fires, ExpectedFires) / TriggerSeconds.
	TriggerSeconds float64 `json:"triggerSeconds"`
	TriggerRate    float64 `json:"triggerRate"`
	WindowSeconds  float64 `json:"windowSeconds"`
	// LagSeconds are the fire-lag percentiles ("p50", "p90", "p99", "max") of every timed fire.
	LagSeconds map[string]float64 `json:"lagSeconds,omitempty"`
	// TimelineStart and Timeline are the host's timed fires second by second (ActorStats);
	// empty in files written before them.
	TimelineStart time.Time `json:"timelineStart,omitzero"`
	Timeline      []Second  `json:"timeline,omitempty"`
}

// Fill takes the host's counters at the end of the wait.
func (rr *ReminderReport) Fill(st ActorStats) {
	rr.Fires, rr.RemindersFired, rr.MaxFiresPerReminder = st.ReminderFiresTimed, st.RemindersFired, st.MaxFiresPerReminder
	rr.Missing = max(0, rr.ExpectedFires-rr.Fires)
	rr.LagSeconds = st.ReminderLagSeconds
	rr.TimelineStart, rr.Timeline = st.ReminderTimelineStart, st.ReminderTimeline
	end := st.ReminderNthFire
	if end == nil {
		end = st.ReminderLastTimedFire
	}
	if end != nil && end.After(rr.Due) {
		rr.TriggerSeconds = end.Sub(rr.Due).Seconds()
		rr.TriggerRate = float64(min(rr.Fires, rr.ExpectedFires)) / rr.TriggerSeconds
	}
}
