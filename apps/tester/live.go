package tester

import (
	"sync"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// liveTick is how often a run's counters are sampled for the live QPS: LiveWindow / liveTick
// samples make the window.
const liveTick = time.Second

// liveSamples is the ring's size: the window's samples plus the one at its start.
const liveSamples = int(perf.LiveWindow/liveTick) + 1

// liveRun is a run in progress as GET /progress sees it. The load's goroutines only add to
// the recorder's atomic counters; the sampler goroutine (once per liveTick) and /progress
// read them, and share the ring under mu, which the load never takes.
type liveRun struct {
	counts   func() (requests, failed int64) // the recorder's or the driver's
	start    time.Time
	target   float64
	duration time.Duration
	done     chan struct{}
	wg       sync.WaitGroup
	stopOnce sync.Once

	mu   sync.Mutex
	ring [liveSamples]liveSample
	n    int // samples taken; the latest is ring[(n-1) % liveSamples]
}

type liveSample struct {
	at       time.Time
	requests int64
}

// newLiveRun starts sampling counts (the requests answered so far and how many failed) for
// p's load; stop ends it.
func newLiveRun(p perf.Params, counts func() (requests, failed int64)) *liveRun {
	l := &liveRun{counts: counts, start: time.Now(), target: requestedQPS(p), duration: p.RunDuration(), done: make(chan struct{})}
	l.add(l.start, 0)
	l.wg.Go(func() {
		tick := time.NewTicker(liveTick)
		defer tick.Stop()
		for {
			select {
			case <-l.done:
				return
			case now := <-tick.C:
				n, _ := l.counts()
				l.add(now, n)
			}
		}
	})
	return l
}

func (l *liveRun) add(at time.Time, requests int64) {
	l.mu.Lock()
	l.ring[l.n%liveSamples] = liveSample{at: at, requests: requests}
	l.n++
	l.mu.Unlock()
}

// stop ends the sampling and waits for its goroutine; it may be called more than once.
func (l *liveRun) stop() {
	l.stopOnce.Do(func() { close(l.done); l.wg.Wait() })
}

// progress is the run's reading at now: the counters as they are, and the QPS from the
// oldest sample in the ring (LiveWindow to LiveWindow + liveTick ago, or the run's start) to
// now.
func (l *liveRun) progress(now time.Time) perf.LiveProgress {
	requests, failed := l.counts()
	l.mu.Lock()
	oldest := l.ring[0]
	if l.n > liveSamples {
		oldest = l.ring[l.n%liveSamples]
	}
	l.mu.Unlock()
	out := perf.LiveProgress{Running: true, TargetQPS: l.target, Duration: l.duration, Elapsed: now.Sub(l.start),
		Requests: requests, Errors: failed}
	if span := now.Sub(oldest.at); span > 0 {
		out.WindowSeconds = span.Seconds()
		out.QPS = float64(requests-oldest.requests) / span.Seconds()
	}
	return out
}
