package driver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// app is an in-process HTTP app on loopback that answers every request after delay, and
// counts requests, requests in flight (and the most at once) and when each arrived.
type app struct {
	url      string
	delay    time.Duration
	inFlight atomic.Int64
	maxIn    atomic.Int64
	mu       sync.Mutex
	arrivals []time.Time
}

func newApp(t *testing.T, delay time.Duration) *app {
	t.Helper()
	a := &app{delay: delay}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		storeMax(&a.maxIn, a.inFlight.Add(1))
		defer a.inFlight.Add(-1)
		a.mu.Lock()
		a.arrivals = append(a.arrivals, now)
		a.mu.Unlock()
		select {
		case <-time.After(a.delay):
		case <-r.Context().Done():
		}
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	a.url = srv.URL
	return a
}

func (a *app) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.arrivals)
}

// countingCaller is one VU's HTTP caller: it counts its own calls.
type countingCaller struct {
	client *http.Client
	url    string
	calls  atomic.Int64
}

func (c *countingCaller) Call(ctx context.Context) (string, bool) {
	c.calls.Add(1)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return "-1", false
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return "-1", false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return strconv.Itoa(resp.StatusCode), resp.StatusCode/100 == 2
}

// callers makes n counting callers of a, each with its own connection.
func callers(t *testing.T, a *app, n int) ([]Caller, []*countingCaller) {
	t.Helper()
	out := make([]Caller, n)
	cs := make([]*countingCaller, n)
	for i := range n {
		tr := &http.Transport{MaxIdleConnsPerHost: 1}
		t.Cleanup(tr.CloseIdleConnections)
		cs[i] = &countingCaller{client: &http.Client{Transport: tr, Timeout: 10 * time.Second}, url: a.url}
		out[i] = cs[i]
	}
	return out, cs
}

func run(t *testing.T, ex Executor, cs []Caller) *Result {
	t.Helper()
	d, err := New(ex, cs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), ex.MaxRunDuration()+10*time.Second)
	defer cancel()
	res, err := d.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestSharedIterationsRunExactlyM(t *testing.T) {
	const n, m = 10, 300
	a := newApp(t, 2*time.Millisecond)
	cs, counting := callers(t, a, n)
	res := run(t, Executor{Kind: SharedIterations, VUs: n, Iterations: m, Duration: 30 * time.Second}, cs)
	if got := a.count(); got != m {
		t.Errorf("the app got %d requests, want exactly %d", got, m)
	}
	if res.Iterations != m || res.Dropped != 0 || res.Interrupted != 0 || res.Failed != 0 {
		t.Errorf("iterations %d, dropped %d, interrupted %d, failed %d; want %d, 0, 0, 0", res.Iterations, res.Dropped, res.Interrupted, res.Failed, m)
	}
	if res.Codes["200"] != m || res.Service.Count() != m {
		t.Errorf("codes %v, %d recorded: want 200 x %d", res.Codes, res.Service.Count(), m)
	}
	var sum int64
	for i, c := range counting {
		k := c.calls.Load()
		if k == 0 {
			t.Errorf("VU %d ran no iteration: the %d iterations were not shared over %d VUs", i, m, n)
		}
		sum += k
	}
	if sum != m {
		t.Errorf("the VUs made %d calls in all, want %d", sum, m)
	}
	if got := a.maxIn.Load(); got > n {
		t.Errorf("%d requests in flight at once at the app, more than %d VUs", got, n)
	}
	if res.MaxActiveVUs != n {
		t.Errorf("max active VUs %d, want %d", res.MaxActiveVUs, n)
	}
}

func TestSharedIterationsDropWhatMaxDurationCuts(t *testing.T) {
	const n, m = 2, 1000
	a := newApp(t, 20*time.Millisecond)
	cs, _ := callers(t, a, n)
	start := time.Now()
	res := run(t, Executor{Kind: SharedIterations, VUs: n, Iterations: m, Duration: time.Second, GracefulStop: time.Second}, cs)
	if res.Iterations+res.Dropped+res.Interrupted != m {
		t.Errorf("iterations %d + dropped %d + interrupted %d != %d", res.Iterations, res.Dropped, res.Interrupted, m)
	}
	// 2 VUs at >= 20 ms per iteration do at most 2 x (1 s / 20 ms) + 2 = 102 in 1 s.
	if res.Iterations > 2*50+n || res.Dropped < m-2*50-n {
		t.Errorf("iterations %d, dropped %d: 2 VUs at 20 ms each cannot do more than %d in 1 s", res.Iterations, res.Dropped, 2*50+n)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("the run took %v, past maxDuration 1 s + gracefulStop 1 s", el)
	}
}

// TestRampingVUsFollowStages samples the driver's active VU count and the app's requests in
// flight while a ramp runs, and checks each sample against the stages: within 1 s of the
// schedule, the count is one the schedule asks for.
func TestRampingVUsFollowStages(t *testing.T) {
	ex := Executor{Kind: RampingVUs, Stages: []Stage{
		{Duration: 1500 * time.Millisecond, Target: 20},
		{Duration: time.Second, Target: 20},
		{Duration: 1500 * time.Millisecond, Target: 0},
	}, GracefulRampDown: time.Second, GracefulStop: time.Second}
	a := newApp(t, 10*time.Millisecond)
	cs, _ := callers(t, a, ex.PeakVUs())
	d, err := New(ex, cs)
	if err != nil {
		t.Fatal(err)
	}
	type sample struct {
		at               time.Time
		active, inFlight int
	}
	var samples []sample
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(25 * time.Millisecond)
		defer tick.Stop()
		for range 1000 { // 25 s at most
			select {
			case <-done:
				return
			case now := <-tick.C:
				samples = append(samples, sample{now, d.Active(), int(a.inFlight.Load())})
			}
		}
	})
	res, err := d.Run(t.Context())
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	bounds := func(at time.Duration) (lo, hi int) {
		lo, hi = ex.Target(at), ex.Target(at)
		for dt := -time.Second; dt <= time.Second; dt += 10 * time.Millisecond {
			v := ex.Target(max(at+dt, 0))
			lo, hi = min(lo, v), max(hi, v)
		}
		return lo, hi
	}
	var checked, sumIn, sumTarget int
	for _, s := range samples {
		at := s.at.Sub(res.Start)
		if at < 0 || at > ex.ScheduleDuration() {
			continue
		}
		lo, hi := bounds(at)
		if s.active < lo || s.active > hi {
			t.Errorf("at %v: %d VUs active, the stages ask for %d to %d within 1 s", at.Round(time.Millisecond), s.active, lo, hi)
		}
		if s.inFlight > hi {
			t.Errorf("at %v: %d requests in flight at the app, the stages allow at most %d within 1 s", at.Round(time.Millisecond), s.inFlight, hi)
		}
		checked++
		sumIn += s.inFlight
		sumTarget += ex.Target(at)
	}
	if checked < 40 {
		t.Fatalf("only %d samples within the 4 s schedule", checked)
	}
	// The VUs are busy at the app most of the time (10 ms requests back to back): the
	// requests in flight follow the ramp too, not only the driver's own count.
	if ratio := float64(sumIn) / float64(sumTarget); ratio < 0.5 {
		t.Errorf("requests in flight at the app were %.0f %% of the stages' VUs on average, want at least 50 %%", 100*ratio)
	}
	if res.MaxActiveVUs != 20 {
		t.Errorf("max active VUs %d, want the ramp's peak 20", res.MaxActiveVUs)
	}
	if res.Interrupted != 0 || res.Failed != 0 {
		t.Errorf("interrupted %d, failed %d: want 0 (10 ms requests, 1 s grace)", res.Interrupted, res.Failed)
	}
	if len(res.Timeline) < 10 {
		t.Errorf("timeline has %d samples, want one each 100 ms", len(res.Timeline))
	}
}

func TestRampTargetIsLinearInSteps(t *testing.T) {
	ex := Executor{Kind: RampingVUs, StartVUs: 2, Stages: []Stage{
		{Duration: 4 * time.Second, Target: 6}, // +1 VU each second
		{Duration: 0, Target: 10},              // a jump
		{Duration: 2 * time.Second, Target: 0}, // -1 VU each 200 ms
	}}
	for _, c := range []struct {
		at   time.Duration
		want int
	}{
		{0, 2}, {999 * time.Millisecond, 2}, {time.Second, 3}, {3999 * time.Millisecond, 5},
		{4 * time.Second, 10}, {4200 * time.Millisecond, 9}, {5 * time.Second, 5}, {6 * time.Second, 0}, {time.Hour, 0},
	} {
		if got := ex.Target(c.at); got != c.want {
			t.Errorf("Target(%v) = %d, want %d", c.at, got, c.want)
		}
	}
	steps := ex.steps()
	if last := steps[len(steps)-1]; last.At != 6*time.Second || last.VUs != 0 {
		t.Errorf("last step %+v, want 0 VUs at 6s", last)
	}
	if len(steps) != 1+4+4+10 {
		t.Errorf("%d steps, want 19 (start, +4, +4 at once, -10)", len(steps))
	}
}

func TestConstantArrivalRateKeepsItsRate(t *testing.T) {
	const rate = 200
	duration := 2 * time.Second
	a := newApp(t, 2*time.Millisecond)
	cs, _ := callers(t, a, 200)
	res := run(t, Executor{Kind: ConstantArrivalRate, Rate: rate, Duration: duration, MaxVUs: 200}, cs)
	want := int64(rate * duration.Seconds())
	// 200 VUs for ~1 request in flight at a time: a slot finds them all busy only if the machine
	// stalls the app for a whole second (200 slots at 5 ms); 20 were not enough on a loaded CI
	// machine, where a 100 ms stall dropped 8 slots. So every slot runs.
	if res.Scheduled != want || res.Iterations != want || res.Dropped != 0 || int64(a.count()) != want {
		t.Errorf("scheduled %d, iterations %d, dropped %d, app got %d; want %d, %d, 0, %d", res.Scheduled, res.Iterations, res.Dropped, a.count(), want, want, want)
	}
	// The rate holds over the window, not only on the whole: each half of it gets its half
	// of the slots, within 15 % (a stall of up to 150 ms moves slots into the next half).
	a.mu.Lock()
	var first, second int
	for _, at := range a.arrivals {
		if at.Sub(res.Start) < duration/2 {
			first++
		} else {
			second++
		}
	}
	a.mu.Unlock()
	for i, n := range []int{first, second} {
		if half := int(want / 2); n < half*85/100 || n > half*115/100 {
			t.Errorf("half %d of the window got %d requests, want %d +- 15 %%", i+1, n, half)
		}
	}
	if got := res.Rate(); got < 0.99*rate || got > 1.01*rate {
		t.Errorf("achieved rate %.1f/s, want %d +- 1 %%", got, rate)
	}
	if res.Response == nil || res.Response.Count() != want {
		t.Fatalf("response time: want %d recorded from their slots", want)
	}
	if res.Response.Percentile(50) < res.Service.Percentile(50) {
		t.Errorf("response-time p50 %v below service-time p50 %v: response time counts from the slot, before the send", res.Response.Percentile(50), res.Service.Percentile(50))
	}
}

func TestConstantArrivalRateDropsWhenVUsRunOut(t *testing.T) {
	a := newApp(t, 100*time.Millisecond)
	cs, _ := callers(t, a, 2)
	res := run(t, Executor{Kind: ConstantArrivalRate, Rate: 100, Duration: time.Second, MaxVUs: 2}, cs)
	if res.Iterations+res.Dropped != 100 {
		t.Errorf("iterations %d + dropped %d != 100 slots", res.Iterations, res.Dropped)
	}
	// 2 VUs busy >= 100 ms per iteration start at most 2 x 10 + 2 in 1 s.
	if res.Iterations > 22 || res.Dropped < 78 {
		t.Errorf("iterations %d, dropped %d: 2 VUs at 100 ms each can run at most 22 of 100 slots", res.Iterations, res.Dropped)
	}
	if got := a.maxIn.Load(); got > 2 {
		t.Errorf("%d requests in flight at once, more than maxVUs 2", got)
	}
}

// TestConstantVUsKeepNInFlight samples the app's requests in flight during the run.
func TestConstantVUsKeepNInFlight(t *testing.T) {
	const n = 8
	delay := 20 * time.Millisecond
	duration := 1500 * time.Millisecond
	a := newApp(t, delay)
	cs, counting := callers(t, a, n)
	d, err := New(Executor{Kind: ConstantVUs, VUs: n, Duration: duration}, cs)
	if err != nil {
		t.Fatal(err)
	}
	var samples, sum, overN, activeOff int
	done := make(chan struct{})
	var wg sync.WaitGroup
	begin := time.Now()
	wg.Go(func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for range 1000 {
			select {
			case <-done:
				return
			case now := <-tick.C:
				at := now.Sub(begin)
				if at < 300*time.Millisecond || at > duration-300*time.Millisecond {
					continue // away from the start (first dials) and the end
				}
				k := int(a.inFlight.Load())
				samples++
				sum += k
				if k > n {
					overN++
				}
				if d.Active() != n {
					activeOff++
				}
			}
		}
	})
	res, err := d.Run(t.Context())
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if samples < 20 {
		t.Fatalf("only %d samples", samples)
	}
	if overN > 0 || a.maxIn.Load() > n {
		t.Errorf("more than %d requests in flight: %d samples over, max %d", n, overN, a.maxIn.Load())
	}
	if a.maxIn.Load() != n {
		t.Errorf("at most %d requests in flight at once, want %d", a.maxIn.Load(), n)
	}
	if activeOff > 0 {
		t.Errorf("%d of %d samples had another active VU count than %d", activeOff, samples, n)
	}
	if mean := float64(sum) / float64(samples); mean < 0.75*n {
		t.Errorf("mean requests in flight %.2f, want at least 75 %% of %d", mean, n)
	}
	// Each iteration takes at least 20 ms: n VUs fit at most n x (1.5 s / 20 ms) + n.
	if most := int64(n*int(duration/delay) + n); res.Iterations > most {
		t.Errorf("%d iterations, more than %d VUs can fit in %v", res.Iterations, n, duration)
	}
	for i, c := range counting {
		if c.calls.Load() == 0 {
			t.Errorf("VU %d made no call", i)
		}
	}
}

func TestGracefulStopInterruptsWhatOverruns(t *testing.T) {
	const n = 3
	block := make([]Caller, n)
	for i := range block {
		block[i] = CallerFunc(func(ctx context.Context) (string, bool) { <-ctx.Done(); return "-1", false })
	}
	start := time.Now()
	res := run(t, Executor{Kind: ConstantVUs, VUs: n, Duration: time.Second, GracefulStop: 200 * time.Millisecond}, block)
	if res.Interrupted != n || res.Iterations != 0 {
		t.Errorf("interrupted %d, iterations %d; want %d, 0", res.Interrupted, res.Iterations, n)
	}
	if el := time.Since(start); el < 1200*time.Millisecond || el > 3*time.Second {
		t.Errorf("the run took %v, want 1 s + 200 ms grace", el)
	}
}

func TestValidateNamesEachField(t *testing.T) {
	for _, c := range []struct {
		ex   Executor
		want []string
	}{
		{Executor{Kind: "ramping-arrival-rate"}, []string{`executor.kind = "ramping-arrival-rate"`}},
		{Executor{Kind: ConstantVUs}, []string{"executor.vus = 0", "executor.duration = 0s"}},
		{Executor{Kind: ConstantVUs, VUs: 1, Duration: time.Second, Rate: 5, Stages: []Stage{{time.Second, 1}}}, []string{"executor.rate: not a field", "executor.stages: not a field"}},
		{Executor{Kind: RampingVUs}, []string{"executor.stages = (0 stages)"}},
		{Executor{Kind: RampingVUs, Stages: []Stage{{-time.Second, 5}, {time.Second, MaxVUsLimit + 1}}}, []string{"executor.stages[0].duration", "executor.stages[1].target = 10001"}},
		{Executor{Kind: RampingVUs, Stages: []Stage{{time.Second, 0}}}, []string{"every target 0"}},
		{Executor{Kind: SharedIterations, VUs: -1, Iterations: -5}, []string{"executor.vus = -1", "executor.iterations = -5"}},
		{Executor{Kind: ConstantArrivalRate, Duration: time.Second}, []string{"executor.rate = 0", "executor.maxVUs = 0"}},
		{Executor{Kind: ConstantArrivalRate, Rate: 10, Duration: time.Second, MaxVUs: 1, GracefulStop: -1}, []string{"executor.gracefulStop = -1ns"}},
		{Executor{VUs: 3}, []string{`executor.kind = ""`}},
	} {
		err := c.ex.Validate()
		if err == nil {
			t.Errorf("%+v: valid, want an error", c.ex)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: error %q does not name %q", c.ex, err, w)
			}
		}
	}
	for _, ok := range []Executor{
		{},
		{Kind: ConstantVUs, VUs: 50, Duration: 30 * time.Second},
		{Kind: RampingVUs, Stages: []Stage{{9 * time.Second, 500}}},
		{Kind: SharedIterations}, // k6's defaults: 1 VU, 1 iteration, 10 min
		{Kind: ConstantArrivalRate, Rate: 200, Duration: time.Second, MaxVUs: 10},
	} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}

func TestNewNeedsACallerPerVU(t *testing.T) {
	_, err := New(Executor{Kind: ConstantVUs, VUs: 3, Duration: time.Second}, make([]Caller, 2))
	if err == nil || !strings.Contains(err.Error(), "2 callers for an executor of up to 3 VUs") {
		t.Errorf("New with too few callers: %v", err)
	}
	if _, err := New(Executor{}, nil); err == nil {
		t.Error("New with the zero executor: no error")
	}
}

// timedCaller sleeps sleep per iteration and says it took took.
type timedCaller struct{ sleep, took time.Duration }

func (c timedCaller) Call(ctx context.Context) (string, bool) {
	code, ok, _ := c.CallTimed(ctx)
	return code, ok
}

func (c timedCaller) CallTimed(context.Context) (string, bool, time.Duration) {
	time.Sleep(c.sleep)
	return "200", true, c.took
}

// A TimedCaller's own time is what the driver records, not the iteration's wall time, in a
// closed loop and in an arrival-rate run's service time (its response time still runs from
// the slot to the iteration's end).
func TestTimedCallerRecordsItsOwnTime(t *testing.T) {
	c := timedCaller{sleep: 20 * time.Millisecond, took: 3 * time.Millisecond}
	for _, ex := range []Executor{
		{Kind: SharedIterations, VUs: 2, Iterations: 10, Duration: 10 * time.Second},
		{Kind: ConstantArrivalRate, Rate: 20, Duration: time.Second, MaxVUs: 4},
	} {
		res := run(t, ex, []Caller{c, c, c, c})
		if res.Iterations == 0 {
			t.Fatalf("%s: no iteration", ex.Kind)
		}
		if got := res.Service.Max(); got > 4*time.Millisecond {
			t.Errorf("%s: service max %v: want the caller's 3 ms, not its 20 ms wall time", ex.Kind, got)
		}
		if res.Response != nil {
			if got := res.Response.Min(); got < 20*time.Millisecond {
				t.Errorf("%s: response min %v: want at least the 20 ms the iteration took", ex.Kind, got)
			}
		}
	}
}
