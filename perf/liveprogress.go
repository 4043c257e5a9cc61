package perf

import (
	"context"
	"fmt"
	"time"
)

// LiveWindow is the span the tester's live QPS is measured over: the last 5 s of the run
// (the tester samples its counters every second), or the whole run while it is shorter.
const LiveWindow = 5 * time.Second

// LiveProgress is the tester's GET /progress answer: how far the load in progress has got.
// Running false means no load is in progress (every other field is then zero).
type LiveProgress struct {
	Running bool `json:"running"`
	// TargetQPS is the load's target rate in requests/s (0 for a max-rate load); Duration
	// its planned length.
	TargetQPS float64       `json:"targetQPS"`
	Duration  time.Duration `json:"duration"`
	// Elapsed is the time since the load started.
	Elapsed time.Duration `json:"elapsed"`
	// Requests is the number of answers so far (successes and failures); Errors those that
	// failed, counted as Result.Errors counts them (every non-2xx HTTP code, socket error
	// or non-OK gRPC status).
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
	// QPS is the current rate, answers per second over the last WindowSeconds (LiveWindow,
	// or the whole load while it is shorter).
	QPS           float64 `json:"qps"`
	WindowSeconds float64 `json:"windowSeconds"`
}

// String is the reading in one log line: "live 499.8 QPS (target 500), 12500 requests, 0
// errors at 25s", or "no load in progress".
func (l LiveProgress) String() string {
	if !l.Running {
		return "no load in progress"
	}
	target := "max rate"
	if l.TargetQPS > 0 {
		target = fmt.Sprintf("target %g", l.TargetQPS)
	}
	return fmt.Sprintf("live %.1f QPS (%s), %d requests, %d errors at %v", l.QPS, target, l.Requests, l.Errors, l.Elapsed.Round(time.Second))
}

// LiveSource is a tester whose live progress can be read: testers.Client, whose Progress is
// its GET /progress. Session.WatchTester takes one.
type LiveSource interface {
	// Progress is the tester's live progress, bounded by ctx; an error when it cannot be read.
	Progress(ctx context.Context) (LiveProgress, error)
}
