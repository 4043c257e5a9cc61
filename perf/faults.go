package perf

import (
	"time"

	"github.com/daprperf/daprperf/perf/secondsjson"
)

// FaultReport is what a fault plan injected, and where (Report.Faults); the counts are in the
// target host's ActorStats.Faults.
type FaultReport struct {
	// Target is the host app the fault went to: the one hosting the actor after the warmup.
	Target       string        `json:"target"`
	Delay        time.Duration `json:"delay"`
	FailFraction float64       `json:"failFraction"`
	Window       time.Duration `json:"window"`
	// Note says how the window relates to the load (for the summary).
	Note string `json:"note,omitempty"`
}

// MarshalJSON writes FaultReport with its durations in seconds, under their names with "Seconds"
// after them (package secondsjson).
func (f FaultReport) MarshalJSON() ([]byte, error) {
	type plain FaultReport
	return secondsjson.Marshal(plain(f))
}

// UnmarshalJSON reads FaultReport's durations in seconds, or in nanoseconds under their bare names
// (result files of schema 1).
func (f *FaultReport) UnmarshalJSON(b []byte) error {
	type plain FaultReport
	return secondsjson.Unmarshal(b, (*plain)(f))
}
