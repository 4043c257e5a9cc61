// Package tester is the load generator of daprperf. It drives fortio as a library (fhttp,
// periodic) with one of Dapr's APIs as a typed operation (perf.Operation): over HTTP, service
// invocation, state get/save/delete, publish, bulk publish, actor calls, job scheduling and
// configuration reads against daprd's HTTP API (operation.go); over gRPC, Dapr's
// InvokeService on a sidecar or an app's AppCallback.OnInvoke (callers.go, the seam for the
// other kinds). It returns a perf.Result. Every request's service time and response time are
// recorded in HDR histograms (package perf/hdr) through fortio's per-request hook.
//
// Run is the in-process entry point; NewHandler serves it over HTTP (POST /test, and GET
// /progress while a run goes) for the tester app that runs beside its own daprd.
package tester

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"

	"fortio.org/fortio/fhttp"
	"fortio.org/fortio/periodic"
	"fortio.org/log"

	"github.com/daprperf/daprperf/perf"
)

func init() {
	// fortio logs every run at Info; the tester's output is its JSON result.
	log.SetLogLevelQuiet(log.Error)
}

// Run sends the load p describes and returns its result: fortio's fixed-rate load, or with
// p.Executor the closed-loop driver's (driverload.go). It blocks for p.RunDuration() (plus
// connection set-up); cancelling ctx stops the load early and returns ctx's error. p must have
// a Target; p is validated first.
func Run(ctx context.Context, p perf.Params) (perf.Result, error) { return run(ctx, p, nil) }

// run is Run; started, when not nil, is handed the run's live counters once the load is
// about to start (GET /progress reads them).
func run(ctx context.Context, p perf.Params, started func(*liveRun)) (perf.Result, error) {
	if err := p.Validate(); err != nil {
		return perf.Result{}, err
	}
	if p.Target == "" {
		return perf.Result{}, errors.New("tester: target is empty: must be a URL (http) or host:port (grpc)")
	}
	if err := checkDirect(p); err != nil {
		return perf.Result{}, err
	}
	direct := p.Operation.Direct != "" // the store's own client, whatever the transport (direct.go)
	var req httpRequest
	if p.Protocol == perf.HTTP && !direct {
		var err error
		if req, err = httpRequestFor(p); err != nil {
			return perf.Result{}, err
		}
	}
	if err := waitStart(ctx, p); err != nil {
		return perf.Result{}, err
	}
	if p.HasExecutor() {
		return runDriver(ctx, p, req, driverCaller(p, req), started)
	}
	rec := newRecorder(p)
	ro := runnerOptions(p, rec)
	stop := abortOnDone(ctx, ro.Stop)
	defer stop()
	if started != nil {
		started(newLiveRun(p, rec.counts))
	}

	var (
		res     periodic.RunnerResults
		codes   map[string]int64
		sockets int64
		warmups int64 // requests sent before the schedule (runHTTP)
		err     error
	)
	switch {
	case p.Operation.Direct != "" && (p.Operation.Kind == perf.OpPublish || p.Operation.Kind == perf.OpPublishBulk):
		res, codes, sockets, err = runCustom(ro, p.Connections, func() (caller, error) { return newDirectPublishCaller(p) })
	case direct && slices.Contains(configurationKinds, p.Operation.Kind): // configuration.go
		res, codes, sockets, err = runCustom(ro, p.Connections, directCallers(p))
	case direct:
		res, codes, sockets, err = runCustom(ro, p.Connections, func() (caller, error) { return newDirectCaller(p) })
	case p.Protocol == perf.HTTP && !p.UniquePath && perf.HasStamps(req.Body): // stamp.go
		seq := &sequence{}
		res, codes, sockets, err = runCustom(ro, p.Connections, func() (caller, error) { return newStampCaller(req, seq), nil })
	case p.Protocol == perf.HTTP && p.Operation.Kind == perf.OpPublish && p.Operation.Repeat > 1:
		res, codes, sockets, err = runCustom(ro, p.Connections, func() (caller, error) { return newRepeatCaller(req, p.Operation.Repeat) })
	case p.Protocol == perf.HTTP && !p.UniquePath && answersNoContent(p.Operation):
		res, codes, sockets, err = runCustom(ro, p.Connections, func() (caller, error) { return newStdHTTPCaller(req) })
	case p.Protocol == perf.HTTP && !p.UniquePath && bytes.Contains(req.Body, []byte(perf.UUIDToken)):
		res, codes, sockets, err = runCustom(ro, p.Connections, func() (caller, error) { return newFetchCaller(req) })
	case p.Protocol == perf.HTTP && !p.UniquePath:
		res, codes, sockets, warmups, err = runHTTP(req, ro)
	case p.Protocol == perf.HTTP:
		res, codes, sockets, err = runCustom(ro, p.Connections, func() (caller, error) { return newUniqueHTTPCaller(req) })
	default:
		res, codes, sockets, err = runCustom(ro, p.Connections, func() (caller, error) { return newGRPCCaller(p) })
	}
	if cerr := ctx.Err(); cerr != nil {
		return perf.Result{}, fmt.Errorf("tester: run cancelled: %w", cerr)
	}
	if err != nil {
		return perf.Result{}, err
	}
	out, err := convert(p, res, codes, rec)
	if err != nil {
		return perf.Result{}, err
	}
	if p.Protocol == perf.HTTP && !direct {
		out.Params.PayloadBytes = req.ValueBytes
	}
	out.Sockets = sockets
	out.WarmupRequests = warmups
	if !p.MaxRate {
		out.Schedule = rec.schedule(out.Requests)
	}
	return out, nil
}

// driverCaller is how runDriver makes each VU's caller: the caller fortio's path would use
// for p (run's switch), with fortio's fast client in place of its HTTP runner; with p.Await,
// wrapped to wait for the messages each request stamped (await.go).
func driverCaller(p perf.Params, req httpRequest) func() (caller, error) {
	return awaitable(p, driverRequestCaller(p, req))
}

// driverRequestCaller is driverCaller's caller of one request.
func driverRequestCaller(p perf.Params, req httpRequest) func() (caller, error) {
	switch {
	case p.Operation.Direct != "": // the store's own client (configuration.go)
		return directCallers(p)
	case p.Protocol == perf.HTTP && p.Operation.ActorTypes > 0: // actortypes.go
		return actorTypesCaller(p)
	case p.Protocol == perf.HTTP && !p.UniquePath && perf.HasStamps(req.Body): // stamp.go
		seq := &sequence{}
		return func() (caller, error) { return newStampCaller(req, seq), nil }
	case p.Protocol == perf.HTTP && p.Operation.Kind == perf.OpPublish && p.Operation.Repeat > 1: // singles in turn
		return func() (caller, error) { return newRepeatCaller(req, p.Operation.Repeat) }
	case p.Protocol == perf.HTTP && !p.UniquePath && answersNoContent(p.Operation): // 204 answers
		return func() (caller, error) { return newStdHTTPCaller(req) }
	case p.Protocol == perf.HTTP && !p.UniquePath:
		req.Timeout = iterationTimeout(p)
		return func() (caller, error) { return newFetchCaller(req) }
	case p.Protocol == perf.HTTP:
		return func() (caller, error) { return newUniqueHTTPCaller(req) }
	}
	return func() (caller, error) { return newGRPCCaller(p) }
}

// fortioResolution is the bucket width of fortio's own histogram, in seconds. No reported
// figure comes from it (the recorder's HDR histograms hold them); fortio requires one.
const fortioResolution = 1e-4

// runnerOptions maps Params onto fortio's RunnerOptions; the connections are fortio's threads.
// Pacing is fortio's catch-up mode (NoCatchUp false): a request whose slot passed is sent as
// soon as its connection is free, never dropped, and the recorder times it from its slot.
//
// fortio runs at least 2 calls per thread and lowers the thread count of a shorter schedule,
// but only once its run starts: its HTTP runner has by then made a client, opened a connection
// and sent a warm-up request on every thread it was given, and it neither closes nor counts
// the threads it dropped (fhttp.RunHTTPTest, fortio v1.75.3); runCustom would likewise have
// made a caller for each. So fortio is given the lowered count the recorder planned
// (newRecorder), and every connection opened carries the load.
func runnerOptions(p perf.Params, rec *recorder) periodic.RunnerOptions {
	qps := float64(p.QPS)
	if p.MaxRate {
		qps = -1 // fortio: a negative rate means as fast as possible
	}
	return periodic.RunnerOptions{
		QPS:          qps,
		Duration:     p.Duration,
		NumThreads:   len(rec.threads),
		Percentiles:  p.Percentiles,
		Resolution:   fortioResolution,
		Out:          io.Discard,
		Stop:         periodic.NewAborter(),
		AccessLogger: rec,
	}
}

// abortOnDone stops fortio's run when ctx ends (a client that hung up, a test deadline).
func abortOnDone(ctx context.Context, a *periodic.Aborter) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-ctx.Done():
			a.Abort(false)
		case <-done:
		}
	})
	return func() { close(done); wg.Wait() }
}

// runHTTP sends req with fortio's own HTTP runner and its fast client; it returns the sockets
// fortio counted (one per connection, plus every reconnect) and its warm-up requests.
//
// Before its schedule, fortio's runner sends req once on every connection, all at once, each
// on the connection's own client (fhttp.RunHTTPTest, fortio v1.75.3): the connection is then
// open, so the first timed request pays no connect time. Those requests go through no
// Runnable, so neither the recorder nor the codes see them, and with AllowInitialErrors their
// failures do not stop the load. fortio skips them only for an Exactly count of calls, which is
// not the tester's duration-bound schedule; so they are kept, and counted: one per connection
// (ro.NumThreads, which fortio's RunnerOptions.Normalize leaves as it is when positive).
func runHTTP(req httpRequest, ro periodic.RunnerOptions) (res periodic.RunnerResults, codes map[string]int64, sockets, warmups int64, err error) {
	o := fhttp.HTTPRunnerOptions{RunnerOptions: ro, AllowInitialErrors: true}
	o.Payload, o.ContentType, o.MethodOverride = req.Body, req.ContentType, req.Method
	o.Init(req.URL)
	r, err := fhttp.RunHTTPTest(&o)
	if err != nil {
		return periodic.RunnerResults{}, nil, 0, 0, fmt.Errorf("tester: http load to %s: %w", req.URL, err)
	}
	codes = make(map[string]int64, len(r.RetCodes))
	for code, n := range r.RetCodes {
		codes[strconv.Itoa(code)] += n
	}
	return r.RunnerResults, codes, r.SocketCount, int64(ro.NumThreads), nil
}

// convert turns fortio's run and the recorder's histograms into a perf.Result.
func convert(p perf.Params, r periodic.RunnerResults, codes map[string]int64, rec *recorder) (perf.Result, error) {
	stored := p
	stored.PayloadBytes = len(p.RequestBody())
	stored.Payload = "" // never store the request payload
	out := perf.Result{
		Params:         stored,
		Baseline:       p.Operation.BaselineKind(),
		StartTime:      r.StartTime,
		RequestedQPS:   requestedQPS(p),
		ActualQPS:      r.ActualQPS,
		ActualDuration: r.ActualDuration,
		RetCodes:       codes,
	}
	service, response := rec.histograms()
	out.Requests = service.Count()
	out.Timeline = rec.timeline(r.StartTime)
	if p.KeepSamples {
		out.ServiceSamples = rec.samples()
	}
	var err error
	if out.Latency, err = perf.NewLatency(service, p.Percentiles); err != nil {
		return perf.Result{}, fmt.Errorf("tester: service time: %w", err)
	}
	if response != nil {
		rt, err := perf.NewLatency(response, p.Percentiles)
		if err != nil {
			return perf.Result{}, fmt.Errorf("tester: response time: %w", err)
		}
		out.ResponseTime = &rt
	}
	return out, nil
}

// requestedQPS is the target rate of p in requests/s; 0 for a max-rate run and for a closed
// loop of the driver, the arrival rate for the driver's constant-arrival-rate.
func requestedQPS(p perf.Params) float64 {
	if p.HasExecutor() {
		return float64(p.Executor.Rate)
	}
	if p.MaxRate {
		return 0
	}
	return float64(p.QPS)
}
