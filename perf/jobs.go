package perf

import (
	"time"

	"github.com/daprperf/daprperf/perf/secondsjson"
)

// JobFault is a deliberate fault of the scheduler during a jobs run.
type JobFault struct {
	// Kind is "restart" (SIGTERM, then started again on its ports with its etcd data:
	// BackendRestarter) or "kill" (SIGKILL, not started again: the platform's Kill).
	Kind string `json:"kind"`
	// After is when, from the start of the scheduling.
	After time.Duration `json:"after"`
	// AtSeconds and DownSeconds say when it happened and, for a restart, how long the
	// scheduler was down; Error what went wrong doing it.
	AtSeconds   float64 `json:"atSeconds,omitempty"`
	DownSeconds float64 `json:"downSeconds,omitempty"`
	Error       string  `json:"error,omitempty"`
}

// MinJobs is the fewest jobs a scaled-down run schedules.
const MinJobs = 100

// JobsReport is what a jobs trigger run measured (Report.Jobs). Counts are jobs; seconds are
// seconds; rates jobs per second.
type JobsReport struct {
	// Jobs is the count asked for after scaling: JobsAtDaprLoad x LoadFactor (at least MinJobs).
	Jobs           int     `json:"jobs"`
	JobsAtDaprLoad int     `json:"jobsAtDaprLoad"`
	LoadFactor     float64 `json:"loadFactor"`
	DueInSeconds   float64 `json:"dueInSeconds"`
	Connections    int     `json:"connections"`
	// Scheduled were accepted by daprd, ScheduleErrors not; ScheduleSeconds is the scheduling's
	// time and ScheduleRate Scheduled / ScheduleSeconds; ScheduleError the first failure.
	Scheduled       int64   `json:"scheduled"`
	ScheduleErrors  int64   `json:"scheduleErrors"`
	ScheduleError   string  `json:"scheduleError,omitempty"`
	ScheduleSeconds float64 `json:"scheduleSeconds"`
	ScheduleRate    float64 `json:"scheduleRate"`
	// Fired triggered at least once, NeverFired not at all, FiredTwice more than once (ExtraFires
	// triggers beyond the first), Unexpected are triggers of names the app never scheduled.
	Fired          int64 `json:"fired"`
	NeverFired     int64 `json:"neverFired"`
	FiredTwice     int64 `json:"firedTwice"`
	ExtraFires     int64 `json:"extraFires"`
	Unexpected     int64 `json:"unexpected"`
	MaxFiresPerJob int   `json:"maxFiresPerJob"`
	// Lag is the trigger lag of each job's first trigger, receipt at the app minus due time
	// (the schedule request's send time plus DueIn; the scheduler counts from its own receipt,
	// a little later, so the lag is over-estimated by up to the schedule request's latency):
	// "p50", "p90", "p99", "min", "max" by nearest rank over every job, seconds.
	Lag map[string]float64 `json:"lagSeconds,omitempty"`
	// AllFiredSeconds is the time from the end of the scheduling to the last job's first
	// trigger (WindowSeconds when some never fired); AllFired says every accepted job fired
	// within the window.
	AllFiredSeconds float64 `json:"allFiredSeconds"`
	AllFired        bool    `json:"allFired"`
	WindowSeconds   float64 `json:"windowSeconds"`
	// TriggerRate is Dapr's figure: Fired / AllFiredSeconds (its test times from the end of the
	// scheduling load until the count is reached). TriggerThroughput is Fired / (last first
	// trigger - first trigger): the rate triggers arrived, bounded by the scheduling rate when
	// DueIn is shorter than the scheduling.
	TriggerRate       float64 `json:"triggerRate"`
	TriggerThroughput float64 `json:"triggerThroughput"`
	// Fault is the deliberate scheduler fault, when the plan had one.
	Fault *JobFault `json:"fault,omitempty"`
	// TimelineStart and Timeline are the app's triggers second by second (JobAppStats); empty
	// in files written before it.
	TimelineStart time.Time `json:"timelineStart,omitzero"`
	Timeline      []Second  `json:"timeline,omitempty"`
}

// JobAppStats are the job app's counts (apps/jobapp GET /stats) of the jobs scheduled since
// its last reset. Counts are jobs; seconds are float64 seconds; times are Unix nanoseconds (0
// when nothing fired).
type JobAppStats struct {
	// Scheduled is how many jobs daprd accepted; ScheduleErrors how many requests it refused.
	Scheduled      int64  `json:"scheduled"`
	ScheduleErrors int64  `json:"scheduleErrors"`
	LastError      string `json:"lastError,omitempty"`
	// Fired is how many scheduled jobs triggered at least once; NeverFired how many did not
	// (Scheduled - Fired); FiredTwice how many triggered more than once; ExtraFires the
	// triggers beyond each job's first; Unexpected the triggers of names never scheduled here.
	Fired      int64 `json:"fired"`
	NeverFired int64 `json:"neverFired"`
	FiredTwice int64 `json:"firedTwice"`
	ExtraFires int64 `json:"extraFires"`
	Unexpected int64 `json:"unexpected"`
	// MaxFiresPerJob is the most triggers of one job.
	MaxFiresPerJob int `json:"maxFiresPerJob"`
	// LagSeconds are the percentiles of the trigger lag (first receipt minus due time) of the
	// jobs that fired, by order statistics (nearest rank) of every lag: "p50", "p90", "p99",
	// "min", "max"; empty when none fired.
	LagSeconds map[string]float64 `json:"lagSeconds,omitempty"`
	// FirstFireUnixNano and LastFireUnixNano bound the triggers received;
	// LastFirstFireUnixNano is the latest first trigger of a job (a second one may come later).
	FirstFireUnixNano     int64 `json:"firstFireUnixNano,omitempty"`
	LastFireUnixNano      int64 `json:"lastFireUnixNano,omitempty"`
	LastFirstFireUnixNano int64 `json:"lastFirstFireUnixNano,omitempty"`
	// FirstDueUnixNano and LastDueUnixNano bound the due times of the jobs scheduled.
	FirstDueUnixNano int64 `json:"firstDueUnixNano,omitempty"`
	LastDueUnixNano  int64 `json:"lastDueUnixNano,omitempty"`
	// Timeline is the triggers second by second from TimelineStart (the first due time): each
	// second's triggers (Requests), those that were a job's second or later (Errors), and
	// their lag's percentiles; empty before the first trigger.
	TimelineStart time.Time `json:"timelineStart,omitzero"`
	Timeline      []Second  `json:"timeline,omitempty"`
}

// Fill takes the app's counts; scheduledAt is when the scheduling ended.
func (jr *JobsReport) Fill(st JobAppStats, scheduledAt time.Time) {
	jr.Scheduled = st.Scheduled // the app's own count of accepted jobs
	jr.Fired, jr.NeverFired, jr.FiredTwice, jr.ExtraFires = st.Fired, st.NeverFired, st.FiredTwice, st.ExtraFires
	jr.Unexpected, jr.MaxFiresPerJob, jr.Lag = st.Unexpected, st.MaxFiresPerJob, st.LagSeconds
	jr.TimelineStart, jr.Timeline = st.TimelineStart, st.Timeline
	jr.AllFired = st.NeverFired == 0 && st.Scheduled > 0
	jr.AllFiredSeconds = jr.WindowSeconds
	if jr.AllFired && st.LastFirstFireUnixNano > 0 {
		jr.AllFiredSeconds = max(time.Unix(0, st.LastFirstFireUnixNano).Sub(scheduledAt).Seconds(), 0)
	}
	if jr.AllFiredSeconds > 0 {
		jr.TriggerRate = float64(jr.Fired) / jr.AllFiredSeconds
	}
	if span := time.Duration(st.LastFirstFireUnixNano - st.FirstFireUnixNano).Seconds(); span > 0 {
		jr.TriggerThroughput = float64(jr.Fired) / span
	}
}

// MarshalJSON writes JobFault with its durations in seconds, under their names with "Seconds"
// after them (package secondsjson).
func (j JobFault) MarshalJSON() ([]byte, error) {
	type plain JobFault
	return secondsjson.Marshal(plain(j))
}

// UnmarshalJSON reads JobFault's durations in seconds, or in nanoseconds under their bare names
// (result files of schema 1).
func (j *JobFault) UnmarshalJSON(b []byte) error {
	type plain JobFault
	return secondsjson.Unmarshal(b, (*plain)(j))
}
