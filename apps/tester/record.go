package tester

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"fortio.org/fortio/periodic"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/hdr"
)

// maxShards bounds the number of histogram pairs a run keeps (each about 540 KB): connections
// share shards beyond it, under the shard's lock.
const maxShards = 32

// recorder records every request of a run through fortio's AccessLogger hook, which fortio
// calls on the connection's own goroutine just before (Start) and just after (Report) each
// request. For each request it records:
//   - the service time, fortio's own measure from the actual send to the answer;
//   - the response time, from the slot the schedule gave the request to the answer.
//
// fortio plans, per connection, n = floor(QPS x duration / connections) calls; call i is due at
// (i + i/(n-1)) / perConnectionQPS after the connection's first call (periodic.runOne). When a
// connection is still busy as its next slot passes, fortio sends the next request as soon as
// it is free (its catch-up mode): the response time then counts the wait, which the service
// time hides (coordinated omission). A max-rate run has no slots and records service time only.
type recorder struct {
	threads      []threadState
	shards       []shard
	perThreadQPS float64
	callsPerThrd int64
	period       time.Duration // one connection's inter-request period
	scheduled    bool          // false for a max-rate run
}

// threadState is touched only by its connection's goroutine, but for the final read.
type threadState struct {
	mu      sync.Mutex
	first   time.Time // the connection's first send: slot 0
	due     time.Time // the slot of the request in flight
	late    int64
	maxLate time.Duration
}

type shard struct {
	mu       sync.Mutex
	service  *hdr.Histogram
	response *hdr.Histogram
	// requests and failed count the shard's answers for GET /progress: added under mu (the
	// cache line is the lock's, already held), read without it.
	requests, failed atomic.Int64
	// points are the shard's answers for the timeline (timeline.go), at most cap(points);
	// droppedFrom is the answer time of the first one left out (0: none).
	points      []perf.Answer
	pointLimit  int
	droppedFrom int64
}

func newRecorder(p perf.Params) *recorder {
	threads := p.Connections
	r := &recorder{callsPerThrd: 2, perThreadQPS: math.Inf(1)}
	if !p.MaxRate {
		total := max(p.ExpectedRequests(), 2)
		if int64(2*threads) > total { // at least 2 calls per connection, as fortio runs them (runnerOptions)
			threads = int(total / 2)
		}
		r.scheduled = true
		r.perThreadQPS = float64(p.QPS) / float64(threads)
		r.callsPerThrd = max(total/int64(threads), 2)
		r.period = time.Duration(float64(time.Second) / r.perThreadQPS)
	}
	r.threads = make([]threadState, threads)
	r.shards = make([]shard, min(threads, maxShards))
	for i := range r.shards {
		r.shards[i].pointLimit = maxTimelinePoints / len(r.shards)
		r.shards[i].points = make([]perf.Answer, 0, min(r.shards[i].pointLimit, expectedPerShard(p, len(r.shards))))
		r.shards[i].service = hdr.New()
		if r.scheduled {
			r.shards[i].response = hdr.New()
		}
	}
	return r
}

// Start implements periodic.AccessLogger: it notes the request's slot and whether its send is late.
func (r *recorder) Start(ctx context.Context, id periodic.ThreadID, iter int64, at time.Time) context.Context {
	if int(id) >= len(r.threads) {
		return ctx
	}
	t := &r.threads[id]
	t.mu.Lock()
	defer t.mu.Unlock()
	if iter == 0 || t.first.IsZero() || !r.scheduled {
		t.first, t.due = at, at
		return ctx
	}
	i := float64(iter)
	offset := (i + i/float64(r.callsPerThrd-1)) / r.perThreadQPS
	t.due = t.first.Add(time.Duration(offset * float64(time.Second)))
	// fortio times its slots from its own start, a little before this connection's first
	// send (our slot 0), so an on-time send can come before the slot computed here: a slot is
	// never after its send, or the response time would be shorter than the service time.
	if t.due.After(at) {
		t.due = at
	}
	late := at.Sub(t.due)
	if late > r.period {
		t.late++
	}
	t.maxLate = max(t.maxLate, late)
	return ctx
}

// Report implements periodic.AccessLogger: it records the request's service and response time.
func (r *recorder) Report(_ context.Context, id periodic.ThreadID, _ int64, start time.Time, latency float64, ok bool, code string) {
	if int(id) >= len(r.threads) {
		return
	}
	service := time.Duration(latency * float64(time.Second))
	t := &r.threads[id]
	t.mu.Lock()
	due := t.due
	t.mu.Unlock()
	s := &r.shards[int(id)%len(r.shards)]
	s.mu.Lock()
	s.service.Record(service)
	s.addPoint(start.Add(service).UnixNano(), service, !ok || code == teapot)
	if s.response != nil {
		s.response.Record(start.Add(service).Sub(due))
	}
	s.requests.Add(1)
	if !ok || code == teapot { // fortio counts 418 as a success; perf.Result.Errors does not
		s.failed.Add(1)
	}
	s.mu.Unlock()
}

// teapot is the one non-2xx HTTP code fortio's runner reports as a success.
const teapot = "418"

// counts are the answers recorded so far and how many of them failed, summed over the
// shards without their locks (each shard's own counts are exact; the sum is a snapshot).
func (r *recorder) counts() (requests, failed int64) {
	for i := range r.shards {
		requests += r.shards[i].requests.Load()
		failed += r.shards[i].failed.Load()
	}
	return requests, failed
}

// Info implements periodic.AccessLogger.
func (r *recorder) Info() string { return "daprperf recorder" }

// histograms merges the shards once the run has ended; response is nil for a max-rate run.
func (r *recorder) histograms() (service, response *hdr.Histogram) {
	service = hdr.New()
	if r.scheduled {
		response = hdr.New()
	}
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		service.Merge(s.service)
		if response != nil {
			response.Merge(s.response)
		}
		s.mu.Unlock()
	}
	return service, response
}

// schedule returns the schedule figures once the run has ended; sent is the number of
// requests actually made. Every planned slot without a request was cut off by the end of the
// run, which means the generator fell behind.
func (r *recorder) schedule(sent int64) perf.Schedule {
	out := perf.Schedule{Scheduled: r.callsPerThrd * int64(len(r.threads))}
	for i := range r.threads {
		t := &r.threads[i]
		t.mu.Lock()
		out.Late += t.late
		out.MaxLateSeconds = max(out.MaxLateSeconds, t.maxLate.Seconds())
		t.mu.Unlock()
	}
	out.Skipped = max(out.Scheduled-sent, 0)
	return out
}
