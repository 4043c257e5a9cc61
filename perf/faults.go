package perf

import (
	"time"
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
