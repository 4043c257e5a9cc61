package perf

import (
	"errors"
	"fmt"
	"time"

	"github.com/daprperf/daprperf/perf/driver"
)

// WithExecutor runs the load with the closed-loop driver's executor ex (package perf/driver)
// instead of fortio's fixed-rate load. For example Dapr's actor_type_scale ramp:
//
//	perf.WithExecutor(driver.Executor{Kind: driver.RampingVUs,
//		Stages: []driver.Stage{{Duration: 8 * time.Second, Target: 500}}})
func WithExecutor(ex driver.Executor) Option { return func(p *Params) { p.Executor = ex } }

// HasExecutor reports whether p's load runs on the closed-loop driver (Params.Executor set).
func (p Params) HasExecutor() bool { return !p.Executor.IsZero() }

// RunDuration is the most p's load can take: Duration for fortio's load, the executor's
// schedule plus its graceful stop for the driver's (driver.Executor.MaxRunDuration). The
// tester's deadline, its limits and the client's timeout use it.
func (p Params) RunDuration() time.Duration {
	if p.HasExecutor() {
		return p.Executor.MaxRunDuration()
	}
	return p.Duration
}

// executorProblems are the errors of p's Executor (each named "executor.<field>"), and of
// the fields it cannot go with: a max-rate flag (the executor has its own pace) and a
// schedule longer than MaxDuration.
func (p Params) executorProblems() []error {
	if !p.HasExecutor() {
		return nil
	}
	var errs []error
	if err := p.Executor.Validate(); err != nil {
		var joined interface{ Unwrap() []error }
		if errors.As(err, &joined) {
			errs = append(errs, joined.Unwrap()...)
		} else {
			errs = append(errs, err)
		}
		return errs
	}
	if p.MaxRate {
		errs = append(errs, fmt.Errorf("maxRate = true: must be false with an executor (%s sets its own pace)", p.Executor.Kind))
	}
	if d := p.Executor.MaxRunDuration(); d > MaxDuration {
		errs = append(errs, fmt.Errorf("executor: schedule plus graceful stop = %v: must be at most %v", d, MaxDuration))
	}
	return errs
}

// ExecutorStats is what the closed-loop driver reports beside the latencies of a load run
// (Result.Executor), with k6's meanings.
type ExecutorStats struct {
	// Kind is the executor (k6's name).
	Kind driver.Kind `json:"kind"`
	// Iterations were completed and recorded (Result.Requests); Scheduled is what the
	// schedule fixed in advance (shared iterations: their count; arrival rate: rate x
	// duration; 0 for the VU loops).
	Iterations int64 `json:"iterations"`
	Scheduled  int64 `json:"scheduled"`
	// Dropped were planned but never started: every VU busy at their slot (arrival rate) or
	// the maximum duration over (shared iterations); k6's dropped_iterations.
	Dropped int64 `json:"dropped"`
	// Interrupted were still running when their graceful stop or ramp-down ended: cancelled,
	// not recorded.
	Interrupted int64 `json:"interrupted"`
	// MaxVUs is the most VUs the executor may use, MaxActiveVUs the most active at once.
	MaxVUs       int `json:"maxVUs"`
	MaxActiveVUs int `json:"maxActiveVUs"`
	// Timeline is the active VU count over the run (about 600 samples, at least 100 ms apart).
	Timeline []driver.VUSample `json:"timeline,omitempty"`
}
