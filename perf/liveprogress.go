package perf

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// LiveWindow is the span the tester's live QPS is measured over: the last 5 s of the run
// (the tester samples its counters every second), or the whole run while it is shorter.
const LiveWindow = 5 * time.Second

// LivePollTimeout bounds one GET /progress, connection included: the tester answers from a
// few atomic counters in well under a millisecond, so 2 s only passes when its cores are
// saturated, and then the poll is dropped, never the run.
const LivePollTimeout = 2 * time.Second

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

// ReadLiveProgress asks tester for its live progress (GET /progress, with its token), bounded
// by ctx and by LivePollTimeout. A non-200 answer is an error with the tester's status and
// message.
func ReadLiveProgress(ctx context.Context, tester TesterClient) (LiveProgress, error) {
	ctx, cancel := context.WithTimeout(ctx, LivePollTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, tester.URL+"/progress", nil)
	if err != nil {
		return LiveProgress{}, fmt.Errorf("perf: tester progress: %w", err)
	}
	if tester.Token != "" {
		req.Header.Set("Authorization", "Bearer "+tester.Token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return LiveProgress{}, fmt.Errorf("perf: tester %s progress: %w", tester.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return LiveProgress{}, fmt.Errorf("perf: tester %s progress: %w", tester.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return LiveProgress{}, fmt.Errorf("perf: tester %s progress: %s: %s", tester.URL, resp.Status, body)
	}
	var lp LiveProgress
	if err := json.Unmarshal(body, &lp); err != nil {
		return LiveProgress{}, fmt.Errorf("perf: tester %s progress: decode: %w", tester.URL, err)
	}
	return lp, nil
}

// WatchLive polls tester's live progress every interval, on its own goroutine, until stop is
// called, and hands each reading to report with the time since the watch began; a failed or
// timed-out poll (LivePollTimeout) is handed over as its error and the watch goes on. stop
// cancels a poll in flight and returns once the goroutine has ended, so no report comes after
// it; it may be called more than once. report runs on the watch's goroutine.
func WatchLive(tester TesterClient, interval time.Duration, report func(since time.Duration, lp LiveProgress, err error)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	began := time.Now()
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			lp, err := ReadLiveProgress(ctx, tester)
			if ctx.Err() != nil { // stopped during the poll: the phase is over
				return
			}
			report(time.Since(began), lp, err)
		}
	})
	var once sync.Once
	return func() { once.Do(func() { cancel(); wg.Wait() }) }
}
