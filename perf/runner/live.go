package runner

import (
	"fmt"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// liveLine is one progress line of a phase: its name, how far it is, and the tester's live
// reading or why there is none.
func liveLine(name string, since, d time.Duration, lp perf.LiveProgress, err error) string {
	live := lp.String()
	if err != nil {
		live = "live figures unavailable: " + err.Error()
	}
	return fmt.Sprintf("  %s: %v of %v; %s", name, since.Round(time.Second), d, live)
}

// watchTester makes every phase of p that lasts at least twice progressTick log, every
// progressTick, the tester's live QPS, requests and errors (WatchLive) instead of its elapsed
// time alone. A nil progress ignores it.
func (p *progress) watchTester(tester perf.TesterClient) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.tester = &tester
	p.mu.Unlock()
}
