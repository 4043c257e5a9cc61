package driver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/daprperf/daprperf/perf/hdr"
	"github.com/daprperf/daprperf/perf/secondsjson"
)

// Caller makes one iteration: one request, its code (an HTTP status as text, a gRPC status
// name, "-1" for a socket error) and whether it succeeded. Each VU owns one Caller and calls
// it from its own goroutine only, so a Caller needs no lock of its own.
type Caller interface {
	Call(ctx context.Context) (code string, ok bool)
}

// TimedCaller is a Caller that times its iteration itself: CallTimed returns, beside the code
// and outcome, the time to record as the iteration's service time. An iteration that also
// waits for something else (a subscriber's receipt of the messages it published) records its
// request alone, as k6 bounds http_req_duration and not the iteration. The driver records
// took in place of the iteration's wall time; an arrival-rate run's response time still runs
// from the slot to the iteration's end.
type TimedCaller interface {
	Caller
	CallTimed(ctx context.Context) (code string, ok bool, took time.Duration)
}

// call makes one iteration of c and returns its code, outcome, service time and end.
func call(ctx context.Context, c Caller) (code string, ok bool, service time.Duration, end time.Time) {
	t0 := time.Now()
	if tc, timed := c.(TimedCaller); timed {
		code, ok, service = tc.CallTimed(ctx)
		return code, ok, service, time.Now()
	}
	code, ok = c.Call(ctx)
	end = time.Now()
	return code, ok, end.Sub(t0), end
}

// CallerFunc is a function as a Caller.
type CallerFunc func(ctx context.Context) (code string, ok bool)

// Call implements Caller.
func (f CallerFunc) Call(ctx context.Context) (string, bool) { return f(ctx) }

// maxShards bounds the histogram pairs a run keeps (each about 540 KB): VUs beyond it share
// shards, under the shard's lock (the tester's recorder does the same).
const maxShards = 32

// timelineSamples is about how many samples of the active VU count a run keeps.
const timelineSamples = 600

// minTimelineInterval is the shortest period of those samples.
const minTimelineInterval = 100 * time.Millisecond

// Driver runs one Executor once. Its counters may be read while Run runs.
type Driver struct {
	ex      Executor
	callers []Caller
	shards  []shard
	open    bool // ConstantArrivalRate: record response time from the slot

	active, inFlight, iterations, failed atomic.Int64
	maxActive                            atomic.Int64
	dropped, interrupted, late           atomic.Int64
	maxLate                              atomic.Int64 // nanoseconds
	ran                                  atomic.Bool
}

type shard struct {
	mu       sync.Mutex
	service  *hdr.Histogram
	response *hdr.Histogram // nil for a closed loop
	codes    map[string]int64
	// answers are the shard's iterations for the second-by-second timeline, at most
	// maxAnswers / shards of them; droppedFrom is the end of the first one left out (0: none).
	answers     []Answer
	droppedFrom time.Time
}

// Answer is one recorded iteration, for a timeline: when it ended, its service time, and
// whether it failed.
type Answer struct {
	End     time.Time
	Service time.Duration
	Failed  bool
}

// maxAnswers bounds the iterations a run keeps for its timeline (40 bytes each, at most
// 80 MiB): 1000 iterations/s for 35 minutes. A longer or faster run keeps them up to the first
// one left out (Result.AnswersFrom).
const maxAnswers = 1 << 21

// New returns a Driver that runs ex with callers, one per VU: len(callers) must be at least
// ex.PeakVUs() (the extra ones are not used). ex is validated first; a zero Executor is an
// error here (it means "no executor").
func New(ex Executor, callers []Caller) (*Driver, error) {
	if ex.IsZero() {
		return nil, errors.New("driver: executor.kind is empty: nothing to run")
	}
	if err := ex.Validate(); err != nil {
		return nil, err
	}
	ex = ex.withDefaults()
	if n := ex.PeakVUs(); len(callers) < n {
		return nil, fmt.Errorf("driver: %d callers for an executor of up to %d VUs: need one per VU", len(callers), n)
	}
	for i, c := range callers[:ex.PeakVUs()] {
		if c == nil {
			return nil, fmt.Errorf("driver: caller %d is nil", i)
		}
	}
	d := &Driver{ex: ex, callers: callers[:ex.PeakVUs()], open: ex.Kind == ConstantArrivalRate}
	d.shards = make([]shard, min(ex.PeakVUs(), maxShards))
	for i := range d.shards {
		d.shards[i].service = hdr.New()
		d.shards[i].codes = map[string]int64{}
		if d.open {
			d.shards[i].response = hdr.New()
		}
	}
	return d, nil
}

// Executor is the executor d runs, with k6's defaults filled in.
func (d *Driver) Executor() Executor { return d.ex }

// Active is the number of VUs running now: looping (ConstantVUs, RampingVUs,
// SharedIterations) or busy with an iteration (ConstantArrivalRate).
func (d *Driver) Active() int { return int(d.active.Load()) }

// InFlight is the number of iterations in progress now.
func (d *Driver) InFlight() int { return int(d.inFlight.Load()) }

// Iterations and Failed are the iterations recorded so far and how many of them failed.
func (d *Driver) Iterations() (done, failed int64) { return d.iterations.Load(), d.failed.Load() }

// VUSample is the active VU count at an offset from the run's start.
type VUSample struct {
	At  time.Duration `json:"at"`
	VUs int           `json:"vus"`
}

// Result is what one run measured. Service and Response hold every recorded iteration.
type Result struct {
	Executor Executor `json:"executor"`
	// Start is when the schedule started; Elapsed runs from then to the end of the last
	// iteration (graceful stop included).
	Start   time.Time     `json:"start"`
	Elapsed time.Duration `json:"elapsed"`
	// Iterations were recorded (completed, successfully or not); Failed of them failed.
	Iterations int64 `json:"iterations"`
	Failed     int64 `json:"failed"`
	// Scheduled is the iterations the schedule planned (Executor.PlannedIterations; 0 for
	// the VU loops). Dropped were planned but never started: every VU was busy at their slot
	// (ConstantArrivalRate) or Duration ran out (SharedIterations), k6's dropped_iterations.
	Scheduled int64 `json:"scheduled"`
	Dropped   int64 `json:"dropped"`
	// Interrupted iterations were still running when their grace ended: cancelled and not
	// recorded.
	Interrupted int64 `json:"interrupted"`
	// Late counts ConstantArrivalRate iterations started more than LateAfter after their
	// slot; MaxLate is the largest such delay.
	Late    int64         `json:"late"`
	MaxLate time.Duration `json:"maxLate"`
	// MaxActiveVUs is the most VUs active at once.
	MaxActiveVUs int `json:"maxActiveVUs"`
	// Codes counts recorded iterations by code.
	Codes map[string]int64 `json:"codes"`
	// Service is each iteration's service time, from its start to its end; Response (only
	// ConstantArrivalRate) from its slot to its end.
	Service  *hdr.Histogram `json:"-"`
	Response *hdr.Histogram `json:"-"`
	// Timeline samples Active over the run (about timelineSamples points, at least 100 ms
	// apart).
	Timeline []VUSample `json:"timeline"`
	// Answers are the recorded iterations, in no particular order, for a second-by-second
	// timeline; when the run recorded more than maxAnswers, AnswersCut is the end of the first
	// one left out (a timeline ends before its second), else zero.
	Answers    []Answer  `json:"-"`
	AnswersCut time.Time `json:"-"`
}

// Rate is the achieved rate in iterations per second: Iterations over the schedule's
// duration for ConstantArrivalRate (its slots span exactly that), over Elapsed otherwise.
func (r *Result) Rate() float64 {
	span := r.Elapsed
	if r.Executor.Kind == ConstantArrivalRate {
		span = r.Executor.Duration
	}
	if span <= 0 {
		return 0
	}
	return float64(r.Iterations) / span.Seconds()
}

// LateAfter is how long after its slot a ConstantArrivalRate iteration may start before it
// counts as Late: one inter-arrival period (1/Rate), but at least 10 ms, well above the
// wake-up slack of Go's timers on a loaded 2-core machine (a few ms), so that Late means
// the driver fell behind, not that a timer fired a millisecond late.
func LateAfter(rate int) time.Duration {
	return max(time.Duration(float64(time.Second)/float64(max(rate, 1))), 10*time.Millisecond)
}

// Run runs the schedule once and returns what it measured. It blocks for at most
// Executor.MaxRunDuration (plus the time a Caller ignores its context). Cancelling ctx stops
// the run and returns ctx's error with the partial result. A Driver runs once; a second
// Run is an error.
func (d *Driver) Run(ctx context.Context) (*Result, error) {
	if !d.ran.CompareAndSwap(false, true) {
		return nil, errors.New("driver: Run called twice: a Driver runs once")
	}
	start := time.Now()
	stopTimeline := d.sampleTimeline(start)
	switch d.ex.Kind {
	case ConstantVUs:
		d.runVUs(ctx, start, []step{{0, d.ex.VUs}}, nil)
	case RampingVUs:
		d.runVUs(ctx, start, d.ex.steps(), nil)
	case SharedIterations:
		var next atomic.Int64
		d.runVUs(ctx, start, []step{{0, d.ex.VUs}}, &next)
		if done := min(next.Load(), d.ex.Iterations); done < d.ex.Iterations {
			d.dropped.Add(d.ex.Iterations - done)
		}
	case ConstantArrivalRate:
		d.runArrivals(ctx, start)
	}
	res := &Result{Executor: d.ex, Start: start, Elapsed: time.Since(start), Timeline: stopTimeline()}
	d.collect(res)
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("driver: run cancelled: %w", err)
	}
	return res, nil
}

// sampleTimeline samples Active until the returned function is called, which returns the
// samples.
func (d *Driver) sampleTimeline(start time.Time) (stop func() []VUSample) {
	interval := max(minTimelineInterval, d.ex.MaxRunDuration()/timelineSamples)
	done := make(chan struct{})
	var out []VUSample
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		out = append(out, VUSample{0, d.Active()})
		for n := 0; n < 2*timelineSamples+10; n++ { // bounded: the run ends well before
			select {
			case <-done:
				return
			case now := <-tick.C:
				out = append(out, VUSample{now.Sub(start), d.Active()})
			}
		}
	})
	return func() []VUSample { close(done); wg.Wait(); return out }
}

// vu is one running VU of a closed loop.
type vu struct {
	stop        chan struct{} // closed: finish the iteration in flight, start no other
	cancel      context.CancelFunc
	interrupted atomic.Bool // set just before cancel when a grace ran out
	grace       atomic.Pointer[time.Timer]
	done        chan struct{}
}

// runVUs runs a closed loop: it follows steps (offsets from start, each the VU count from
// then on), starting VUs in index order and stopping the highest first, each ramped-down VU
// given GracefulRampDown; at the end of the schedule (ScheduleDuration) every VU still
// running is stopped and given GracefulStop. next, when not nil, is the shared iteration
// counter of SharedIterations: a VU stops once it is past Iterations, and the run ends early
// when every VU has.
func (d *Driver) runVUs(ctx context.Context, start time.Time, steps []step, next *atomic.Int64) {
	running := make([]*vu, 0, len(d.callers))
	var wg sync.WaitGroup
	var exited atomic.Int64
	allExited := make(chan struct{}, 1)
	startVU := func(i int) {
		vctx, cancel := context.WithCancel(ctx)
		v := &vu{stop: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
		running = append(running, v)
		storeMax(&d.maxActive, d.active.Add(1))
		wg.Go(func() {
			defer func() {
				cancel()
				close(v.done)
				if t := v.grace.Load(); t != nil {
					t.Stop()
				}
				d.active.Add(-1)
				if next != nil && int(exited.Add(1)) == len(d.callers) {
					allExited <- struct{}{}
				}
			}()
			d.loop(vctx, i, v, next)
		})
	}
	stopVU := func(v *vu, grace time.Duration) {
		close(v.stop)
		t := time.AfterFunc(grace, func() { v.interrupted.Store(true); v.cancel() })
		v.grace.Store(t)
		select { // the VU may have ended before the timer was stored: it could not stop it
		case <-v.done:
			t.Stop()
		default:
		}
	}
	end := time.NewTimer(time.Until(start.Add(d.ex.ScheduleDuration())))
	defer end.Stop()
	// wait sleeps until offset at and returns true, or returns false as soon as the schedule
	// ends, ctx is done or every VU has exited (shared iterations all taken); each of those
	// is received once, so after a false nothing more is waited for.
	wait := func(at time.Duration) bool {
		t := time.NewTimer(time.Until(start.Add(at)))
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-end.C:
		case <-ctx.Done():
		case <-allExited:
		}
		return false
	}
	over := false
	for _, s := range steps {
		if s.At > 0 && !wait(s.At) {
			over = true
			break
		}
		for len(running) < s.VUs {
			startVU(len(running))
		}
		for len(running) > s.VUs {
			v := running[len(running)-1]
			running = running[:len(running)-1]
			stopVU(v, d.ex.GracefulRampDown)
		}
	}
	if !over { // hold the last level until the schedule's end
		wait(d.ex.ScheduleDuration() + time.Hour)
	}
	for _, v := range running {
		stopVU(v, d.ex.GracefulStop)
	}
	wg.Wait()
}

// loop is one VU's life: iterations back to back until stopped, its context ends, or (with
// next) the shared iterations run out; bounded by MaxIterations in all.
func (d *Driver) loop(ctx context.Context, i int, v *vu, next *atomic.Int64) {
	c := d.callers[i]
	s := &d.shards[i%len(d.shards)]
	for {
		select {
		case <-v.stop:
			return
		case <-ctx.Done():
			return
		default:
		}
		if next != nil && next.Add(1) > d.ex.Iterations {
			return
		}
		if d.iterations.Load()+d.inFlight.Load() >= MaxIterations {
			return
		}
		d.inFlight.Add(1)
		code, ok, service, _ := call(ctx, c)
		d.inFlight.Add(-1)
		if v.interrupted.Load() {
			d.interrupted.Add(1)
			return
		}
		if ctx.Err() != nil { // the run's context: not this iteration's fault, not recorded
			return
		}
		d.record(s, service, 0, code, ok)
	}
}

// slot is one arrival of a ConstantArrivalRate run: when it was due.
type slot struct {
	due time.Time
}

// runArrivals runs ConstantArrivalRate: a dispatcher hands slot i, due at start + i/Rate, to
// a free VU; a slot that finds none free is dropped. A dispatcher that wakes
// late hands every past-due slot out at once, each timed from its own slot. At the end of
// the schedule, iterations in flight get GracefulStop.
func (d *Driver) runArrivals(ctx context.Context, start time.Time) {
	total := d.ex.scheduledCount()
	// idle counts the VUs free for a slot: taken by the dispatcher when it hands one out, given
	// back by the VU as its iteration ends (before it next waits on work, so a VU the Go
	// scheduler has not run yet still counts as free). work never blocks: it has room for
	// every VU, and a slot is sent only with a free VU reserved.
	var idle atomic.Int64
	idle.Store(int64(len(d.callers)))
	work := make(chan slot, len(d.callers))
	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	var stopping atomic.Bool
	var wg sync.WaitGroup
	lateAfter := LateAfter(d.ex.Rate)
	for i := range d.callers {
		s := &d.shards[i%len(d.shards)]
		c := d.callers[i]
		wg.Go(func() {
			for sl := range work {
				t0 := time.Now()
				if late := t0.Sub(sl.due); late > lateAfter {
					d.late.Add(1)
				}
				storeMax(&d.maxLate, int64(t0.Sub(sl.due)))
				storeMax(&d.maxActive, d.active.Add(1))
				d.inFlight.Add(1)
				code, ok, service, end := call(runCtx, c)
				d.inFlight.Add(-1)
				d.active.Add(-1)
				idle.Add(1)
				if runCtx.Err() != nil {
					if stopping.Load() && ctx.Err() == nil {
						d.interrupted.Add(1)
					}
					continue
				}
				d.record(s, service, end.Sub(sl.due), code, ok)
			}
		})
	}
	period := float64(time.Second) / float64(d.ex.Rate)
	timer := time.NewTimer(0)
	<-timer.C
dispatch:
	for i := range total {
		due := start.Add(time.Duration(float64(i) * period))
		if wait := time.Until(due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				break dispatch
			}
		}
		if idle.Add(-1) < 0 {
			idle.Add(1)
			d.dropped.Add(1)
			continue
		}
		work <- slot{due: due}
	}
	if rest := time.Until(start.Add(d.ex.Duration)); rest > 0 && ctx.Err() == nil { // the last slot is one period before the end
		timer.Reset(rest)
		select {
		case <-timer.C:
		case <-ctx.Done():
		}
	}
	close(work)
	grace := time.AfterFunc(d.ex.GracefulStop, func() { stopping.Store(true); cancelRun() })
	wg.Wait()
	grace.Stop()
}

// record adds one iteration, which ended now, to its shard.
func (d *Driver) record(s *shard, service, response time.Duration, code string, ok bool) {
	end := time.Now()
	s.mu.Lock()
	s.service.Record(service)
	if s.response != nil {
		s.response.Record(response)
	}
	s.codes[code]++
	if len(s.answers) < maxAnswers/len(d.shards) {
		s.answers = append(s.answers, Answer{End: end, Service: service, Failed: !ok})
	} else if s.droppedFrom.IsZero() {
		s.droppedFrom = end
	}
	s.mu.Unlock()
	d.iterations.Add(1)
	if !ok {
		d.failed.Add(1)
	}
}

// collect merges the shards and counters into res once the run has ended.
func (d *Driver) collect(res *Result) {
	res.Service = hdr.New()
	if d.open {
		res.Response = hdr.New()
	}
	res.Codes = map[string]int64{}
	for i := range d.shards {
		s := &d.shards[i]
		s.mu.Lock()
		res.Service.Merge(s.service)
		if res.Response != nil {
			res.Response.Merge(s.response)
		}
		for code, n := range s.codes {
			res.Codes[code] += n
		}
		res.Answers = append(res.Answers, s.answers...)
		if !s.droppedFrom.IsZero() && (res.AnswersCut.IsZero() || s.droppedFrom.Before(res.AnswersCut)) {
			res.AnswersCut = s.droppedFrom
		}
		s.mu.Unlock()
	}
	res.Iterations, res.Failed = d.iterations.Load(), d.failed.Load()
	res.Scheduled = d.ex.PlannedIterations()
	res.Dropped, res.Interrupted = d.dropped.Load(), d.interrupted.Load()
	res.Late, res.MaxLate = d.late.Load(), time.Duration(max(d.maxLate.Load(), 0))
	res.MaxActiveVUs = int(d.maxActive.Load())
}

// storeMax raises a to v when v is larger, atomically.
func storeMax(a *atomic.Int64, v int64) {
	for {
		old := a.Load()
		if v <= old || a.CompareAndSwap(old, v) {
			return
		}
	}
}

// MarshalJSON writes VUSample with its durations in seconds, under their names with "Seconds"
// after them (package secondsjson).
func (v VUSample) MarshalJSON() ([]byte, error) {
	type plain VUSample
	return secondsjson.Marshal(plain(v))
}

// UnmarshalJSON reads VUSample's durations in seconds, or in nanoseconds under their bare names
// (result files of schema 1).
func (v *VUSample) UnmarshalJSON(b []byte) error {
	type plain VUSample
	return secondsjson.Unmarshal(b, (*plain)(v))
}

// MarshalJSON writes Result with its durations in seconds, under their names with "Seconds"
// after them (package secondsjson).
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return secondsjson.Marshal(plain(r))
}

// UnmarshalJSON reads Result's durations in seconds, or in nanoseconds under their bare names
// (result files of schema 1).
func (r *Result) UnmarshalJSON(b []byte) error {
	type plain Result
	return secondsjson.Unmarshal(b, (*plain)(r))
}
