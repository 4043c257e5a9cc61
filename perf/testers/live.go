package testers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// PollTimeout bounds one GET /progress, connection included: the tester answers from a few
// atomic counters in well under a millisecond, so 2 s only passes when its cores are
// saturated, and then the poll is dropped, never the run.
const PollTimeout = 2 * time.Second

// Progress asks the tester for its live progress (GET /progress, with its token), bounded by
// ctx and by PollTimeout. A non-200 answer is an error with the tester's status and message.
// It makes Client a perf.LiveSource.
func (c Client) Progress(ctx context.Context) (perf.LiveProgress, error) {
	ctx, cancel := context.WithTimeout(ctx, PollTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+"/progress", nil)
	if err != nil {
		return perf.LiveProgress{}, fmt.Errorf("testers: progress: %w", err)
	}
	c.authorize(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return perf.LiveProgress{}, fmt.Errorf("testers: tester %s progress: %w", c.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return perf.LiveProgress{}, fmt.Errorf("testers: tester %s progress: %w", c.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return perf.LiveProgress{}, fmt.Errorf("testers: tester %s progress: %s: %s", c.URL, resp.Status, body)
	}
	var lp perf.LiveProgress
	if err := json.Unmarshal(body, &lp); err != nil {
		return perf.LiveProgress{}, fmt.Errorf("testers: tester %s progress: decode: %w", c.URL, err)
	}
	return lp, nil
}

// Watch polls src's live progress every interval, on its own goroutine, until stop is called,
// and hands each reading to report with the time since the watch began; a failed or timed-out
// poll (PollTimeout, for a Client) is handed over as its error and the watch goes on. stop
// cancels a poll in flight and returns once the goroutine has ended, so no report comes after
// it; it may be called more than once. report runs on the watch's goroutine.
func Watch(src perf.LiveSource, interval time.Duration, report func(since time.Duration, lp perf.LiveProgress, err error)) (stop func()) {
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
			lp, err := src.Progress(ctx)
			if ctx.Err() != nil { // stopped during the poll: the phase is over
				return
			}
			report(time.Since(began), lp, err)
		}
	})
	var once sync.Once
	return func() { once.Do(func() { cancel(); wg.Wait() }) }
}
