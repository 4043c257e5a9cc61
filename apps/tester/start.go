package tester

import (
	"context"
	"fmt"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// startWait is how long the tester waits before p's load starts (perf.Params.StartAt): 0 for
// no StartAt or one already past. Error: a StartAt more than perf.MaxStartLead ahead of this
// tester's clock, which would hold the tester idle (and busy) for no load.
func startWait(p perf.Params) (time.Duration, error) {
	if p.StartAt.IsZero() {
		return 0, nil
	}
	d := time.Until(p.StartAt)
	if d > perf.MaxStartLead {
		return 0, fmt.Errorf("tester: startAt = %s: must be at most %v after the tester's clock (%s)",
			p.StartAt.UTC().Format(time.RFC3339Nano), perf.MaxStartLead, time.Now().UTC().Format(time.RFC3339Nano))
	}
	return max(d, 0), nil
}

// waitStart waits until p.StartAt (startWait), or returns ctx's error when it ends first.
func waitStart(ctx context.Context, p perf.Params) error {
	d, err := startWait(p)
	if err != nil || d == 0 {
		return err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("tester: cancelled while waiting for startAt: %w", ctx.Err())
	}
}
