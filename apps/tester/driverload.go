package tester

import (
	"context"
	"fmt"
	"time"

	"fortio.org/log"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
)

// runDriver sends p's load with the closed-loop driver (perf/driver) instead of fortio: one
// caller per VU, made exactly as fortio's path makes one per connection (HTTP: fortio's fast
// client, its standard client for unique paths; gRPC: the typed operations of callers.go),
// each iteration bounded by iterationTimeout. The result has the shape of fortio's: service time
// (and, for an arrival rate, response time from each slot) in HDR histograms, every code
// counted, the sockets the callers opened, plus the driver's own figures (Result.Executor).
// Result.Params.Connections is the executor's VU count (one connection each).
func runDriver(ctx context.Context, p perf.Params, req httpRequest, newCaller func() (caller, error), started func(*liveRun)) (perf.Result, error) {
	n := p.Executor.PeakVUs()
	timeout := iterationTimeout(p)
	callers := make([]caller, 0, n)
	defer func() {
		for _, c := range callers {
			_ = c.close()
		}
	}()
	vus := make([]driver.Caller, 0, n)
	for i := range n {
		c, err := newCaller()
		if err != nil {
			return perf.Result{}, fmt.Errorf("tester: VU %d: %w", i, err)
		}
		callers = append(callers, c)
		if ac, ok := c.(*awaitCaller); ok {
			vus = append(vus, timedVU{c: ac, timeout: timeout})
			continue
		}
		vus = append(vus, driver.CallerFunc(func(ctx context.Context) (string, bool) {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			return c.call(ctx)
		}))
	}
	if down := awaitConnected(callers); down > 0 {
		log.Errf("tester: %d of %d connections not up after %v; the load starts anyway", down, len(callers), connectTimeout)
	}
	d, err := driver.New(p.Executor, vus)
	if err != nil {
		return perf.Result{}, fmt.Errorf("tester: %w", err)
	}
	if started != nil {
		started(newLiveRun(p, func() (int64, int64) { return d.Iterations() }))
	}
	res, err := d.Run(ctx)
	if err != nil {
		return perf.Result{}, fmt.Errorf("tester: %w", err)
	}
	out, err := convertDriver(p, res)
	if err != nil {
		return perf.Result{}, err
	}
	if p.Protocol == perf.HTTP {
		out.Params.PayloadBytes = req.ValueBytes
	}
	for _, c := range callers {
		out.Sockets += c.sockets()
	}
	return out, nil
}

// timedVU is a VU whose awaitCaller times its own iterations (driver.TimedCaller), each
// bounded by timeout.
type timedVU struct {
	c       *awaitCaller
	timeout time.Duration
}

func (v timedVU) Call(ctx context.Context) (string, bool) {
	code, ok, _ := v.CallTimed(ctx)
	return code, ok
}

func (v timedVU) CallTimed(ctx context.Context) (string, bool, time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, v.timeout)
	defer cancel()
	return v.c.callTimed(ctx)
}

// k6RequestTimeout is k6's default bound of one HTTP request or gRPC invoke (the `timeout`
// parameter of http.request and of Client.invoke, 60 s). The driver runs k6's executors, so an
// iteration waits as long as one of Dapr's k6 scripts would: a request queued behind thousands of
// VUs is slow, and counted so, not an error after a shorter bound of our own.
const k6RequestTimeout = 60 * time.Second

// iterationTimeout bounds one iteration of p's driver load: k6RequestTimeout, but for shared
// iterations the whole run's bound (maxDuration plus the graceful stop), as k6's iterations
// there are bounded by the run, not by the request: one of Dapr's workflow iterations is a whole
// workflow, 6 s at the median of its 350-VU run (Dapr v1.17 report). The executor's graceful
// stop still ends every iteration at the end of its schedule.
func iterationTimeout(p perf.Params) time.Duration {
	if p.Await != nil { // the request, then the wait for its messages
		return k6RequestTimeout + p.Await.Timeout + awaitSlack
	}
	if p.Executor.Kind == driver.SharedIterations {
		return max(k6RequestTimeout, p.Executor.MaxRunDuration())
	}
	return k6RequestTimeout
}

// convertDriver turns the driver's result into a perf.Result. A closed loop has no target
// rate (RequestedQPS 0) and no response time (it has no schedule: service time is what its
// users see); an arrival rate has both, and its dropped iterations are its skipped schedule.
func convertDriver(p perf.Params, r *driver.Result) (perf.Result, error) {
	stored := p
	stored.PayloadBytes = len(p.RequestBody())
	stored.Payload = "" // never store the request payload
	stored.Connections = p.Executor.PeakVUs()
	out := perf.Result{
		Params:         stored,
		Baseline:       p.Operation.BaselineKind(),
		StartTime:      r.Start,
		RequestedQPS:   float64(r.Executor.Rate),
		ActualQPS:      r.Rate(),
		ActualDuration: r.Elapsed,
		Requests:       r.Service.Count(),
		RetCodes:       r.Codes,
		Schedule: perf.Schedule{Scheduled: r.Scheduled, Skipped: r.Dropped, Late: r.Late,
			MaxLateSeconds: r.MaxLate.Seconds()},
		Executor: &perf.ExecutorStats{Kind: r.Executor.Kind, Iterations: r.Iterations, Scheduled: r.Scheduled,
			Dropped: r.Dropped, Interrupted: r.Interrupted, MaxVUs: r.Executor.PeakVUs(),
			MaxActiveVUs: r.MaxActiveVUs, Timeline: r.Timeline},
	}
	answers := make([]perf.Answer, len(r.Answers))
	for i, a := range r.Answers {
		answers[i] = perf.Answer{End: a.End.UnixNano(), Latency: a.Service, Failed: a.Failed}
	}
	out.Timeline = perf.Timeline(r.Start, r.AnswersCut, answers)
	var err error
	if out.Latency, err = perf.NewLatency(r.Service, p.Percentiles); err != nil {
		return perf.Result{}, fmt.Errorf("tester: service time: %w", err)
	}
	if r.Response != nil {
		rt, err := perf.NewLatency(r.Response, p.Percentiles)
		if err != nil {
			return perf.Result{}, fmt.Errorf("tester: response time: %w", err)
		}
		out.ResponseTime = &rt
	}
	return out, nil
}
