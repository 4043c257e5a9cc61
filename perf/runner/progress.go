package runner

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// progressTick is how often a long phase reports that it is still going.
const progressTick = 10 * time.Second

// phaseOverhead is what each load phase costs beyond its duration (the tester's start and its
// answer), for the expected time; measured on the local platform at about 0.5 s.
const phaseOverhead = 500 * time.Millisecond

// progress logs a run's plan before it starts, then one line per phase with the elapsed time
// and the expected time left, and every progressTick of a phase that lasts at least twice as
// long, how far it is, with the tester's live QPS, requests and errors once watchTester has
// named the tester (liveprogress.go). Safe to use from one goroutine; its ticker runs in its own.
type progress struct {
	t        testing.TB
	start    time.Time
	expected time.Duration      // the whole plan
	planned  time.Duration      // the phases started so far, as planned
	tester   *perf.TesterClient // set by watchTester: ticks show its live figures (liveprogress.go)
	mu       sync.Mutex
}

// planPhase is one step of a run's plan.
type planPhase struct {
	name string
	d    time.Duration
}

// newProgress logs the plan of sc (its steps, Plan.steps) on the named platform and its
// expected duration, and starts the clock.
func newProgress(t testing.TB, sc perf.Scenario, plan []perf.Step, platform string) *progress {
	t.Helper()
	p := &progress{t: t, start: time.Now()}
	names := make([]string, len(plan))
	for i, ph := range plan {
		names[i] = ph.Name
		p.expected += ph.Duration + phaseOverhead
	}
	t.Logf("plan: %s/%s on %s, %d phases, expected about %v after start-up:\n  %s", sc.Test, sc.Transport,
		platform, len(plan), p.expected.Round(time.Second), strings.Join(names, "\n  "))
	return p
}

// phase logs the start of a phase planned to last d, with the elapsed time and the expected
// time left, and returns the function that ends it. A nil progress does nothing.
func (p *progress) phase(name string, d time.Duration) (done func()) {
	if p == nil {
		return func() {}
	}
	p.t.Helper()
	p.mu.Lock()
	elapsed := time.Since(p.start)
	left := max(0, p.expected-p.planned)
	p.planned += d + phaseOverhead
	tester := p.tester
	p.mu.Unlock()
	p.t.Logf("[%v elapsed, about %v left] %s (%v)", elapsed.Round(time.Second), left.Round(time.Second), name, d)
	if d >= 2*progressTick && tester != nil {
		return perf.WatchLive(*tester, progressTick, func(since time.Duration, lp perf.LiveProgress, err error) {
			p.t.Log(liveLine(name, since, d, lp, err))
		})
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	if d >= 2*progressTick {
		began := time.Now()
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(progressTick)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					p.t.Logf("  %s: %v of %v", name, time.Since(began).Round(time.Second), d)
				}
			}
		}()
	}
	var once sync.Once
	return func() {
		once.Do(func() { close(stop); wg.Wait() })
	}
}
