package tester

import (
	"context"
	"math"
	"sync"
	"time"

	"fortio.org/fortio/periodic"

	"github.com/daprperf/daprperf/perf"
)

// scheduleTracker watches fortio's pacing through its AccessLogger hook and counts requests
// sent late: more than one inter-request period after their slot. fortio plans, per connection,
// n = floor(QPS x duration / connections) calls; call i is due at
// (i + i/(n-1)) / perConnectionQPS after the connection's first call (periodic.runOne).
type scheduleTracker struct {
	perThread     []threadSchedule
	perThreadQPS  float64
	callsPerThrd  int64
	periodSeconds float64
}

type threadSchedule struct {
	mu      sync.Mutex // Start is called from one goroutine per thread; the lock is for the final read
	first   time.Time
	late    int64
	maxLate float64
}

func newScheduleTracker(p perf.Params) *scheduleTracker {
	if p.MaxRate {
		return &scheduleTracker{perThread: make([]threadSchedule, p.Connections), perThreadQPS: math.Inf(1), callsPerThrd: 2}
	}
	total := max(p.ExpectedRequests(), 2)
	threads := p.Connections
	if int64(2*threads) > total { // fortio lowers the connection count the same way
		threads = int(total / 2)
	}
	calls := total / int64(threads)
	perThreadQPS := float64(p.QPS) / float64(threads)
	return &scheduleTracker{
		perThread:     make([]threadSchedule, threads),
		perThreadQPS:  perThreadQPS,
		callsPerThrd:  max(calls, 2),
		periodSeconds: 1 / perThreadQPS,
	}
}

// Start implements periodic.AccessLogger: it is called just before each request.
func (s *scheduleTracker) Start(ctx context.Context, id periodic.ThreadID, iter int64, at time.Time) context.Context {
	if int(id) >= len(s.perThread) {
		return ctx
	}
	t := &s.perThread[id]
	t.mu.Lock()
	defer t.mu.Unlock()
	if iter == 0 || t.first.IsZero() || math.IsInf(s.perThreadQPS, 1) {
		t.first = at
		return ctx
	}
	i := float64(iter)
	due := (i + i/float64(s.callsPerThrd-1)) / s.perThreadQPS
	late := at.Sub(t.first).Seconds() - due
	if late > s.periodSeconds {
		t.late++
	}
	t.maxLate = max(t.maxLate, late)
	return ctx
}

// Report implements periodic.AccessLogger; nothing to do after a request.
func (s *scheduleTracker) Report(context.Context, periodic.ThreadID, int64, time.Time, float64, bool, string) {
}

// Info implements periodic.AccessLogger.
func (s *scheduleTracker) Info() string { return "daprperf schedule tracker" }

// summary returns the schedule figures once the run has ended; sent is the number of requests
// actually made. Every planned slot without a request was skipped (fixed-rate pacing) or cut
// off by the end of the run: both mean the generator fell behind.
func (s *scheduleTracker) summary(sent int64) perf.Schedule {
	out := perf.Schedule{Scheduled: s.callsPerThrd * int64(len(s.perThread))}
	for i := range s.perThread {
		t := &s.perThread[i]
		t.mu.Lock()
		out.Late += t.late
		out.MaxLateSeconds = max(out.MaxLateSeconds, t.maxLate)
		t.mu.Unlock()
	}
	out.Skipped = max(out.Scheduled-sent, 0)
	return out
}
