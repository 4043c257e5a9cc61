// Package tester is the load generator of daprperf. It drives fortio as a library (fhttp,
// periodic) against an HTTP URL, Dapr's gRPC InvokeService API on a sidecar, or an app's
// AppCallback.OnInvoke, and returns a perf.Result.
//
// Run is the in-process entry point; NewHandler serves it over HTTP (POST /test) for the
// tester app that runs beside its own daprd.
package tester

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"fortio.org/fortio/fhttp"
	"fortio.org/fortio/periodic"
	"fortio.org/fortio/stats"
	"fortio.org/log"

	"github.com/daprperf/daprperf/perf"
)

func init() {
	// fortio logs every run at Info; the tester's output is its JSON result.
	log.SetLogLevelQuiet(log.Error)
}

// Run sends the load p describes and returns its result. It blocks for p.Duration (plus
// connection set-up); cancelling ctx stops the load early and returns ctx's error. p must have
// a Target; p is validated first.
func Run(ctx context.Context, p perf.Params) (perf.Result, error) {
	if err := p.Validate(); err != nil {
		return perf.Result{}, err
	}
	if p.Target == "" {
		return perf.Result{}, errors.New("tester: target is empty: must be a URL (http) or host:port (grpc)")
	}
	tracker := newScheduleTracker(p)
	ro := runnerOptions(p, tracker)
	stop := abortOnDone(ctx, ro.Stop)
	defer stop()

	var (
		res   periodic.RunnerResults
		codes map[string]int64
		err   error
	)
	switch {
	case p.Protocol == perf.HTTP && !p.UniquePath:
		res, codes, err = runHTTP(p, ro)
	case p.Protocol == perf.HTTP:
		res, codes, err = runCustom(ro, p.Connections, func() (caller, error) { return newUniqueHTTPCaller(p) })
	default:
		res, codes, err = runCustom(ro, p.Connections, func() (caller, error) { return newGRPCCaller(p) })
	}
	if cerr := ctx.Err(); cerr != nil {
		return perf.Result{}, fmt.Errorf("tester: run cancelled: %w", cerr)
	}
	if err != nil {
		return perf.Result{}, err
	}
	out := convert(p, res, codes)
	if !p.MaxRate {
		out.Schedule = tracker.summary(out.Requests)
	}
	return out, nil
}

// runnerOptions maps Params onto fortio's RunnerOptions. Resolution is fortio's "divider applied
// to durations in seconds"; the connections are fortio's threads.
func runnerOptions(p perf.Params, tracker *scheduleTracker) periodic.RunnerOptions {
	qps := float64(p.QPS)
	if p.MaxRate {
		qps = -1 // fortio: a negative rate means as fast as possible
	}
	return periodic.RunnerOptions{
		QPS:          qps,
		Duration:     p.Duration,
		NumThreads:   p.Connections,
		Percentiles:  p.Percentiles,
		Resolution:   p.Resolution.Seconds(),
		Out:          io.Discard,
		Stop:         periodic.NewAborter(),
		NoCatchUp:    !p.CatchUp,
		AccessLogger: tracker,
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

// runHTTP uses fortio's own HTTP runner and its fast client.
func runHTTP(p perf.Params, ro periodic.RunnerOptions) (periodic.RunnerResults, map[string]int64, error) {
	o := fhttp.HTTPRunnerOptions{RunnerOptions: ro, AllowInitialErrors: true}
	o.Payload = p.RequestBody()
	o.Init(p.Target)
	r, err := fhttp.RunHTTPTest(&o)
	if err != nil {
		return periodic.RunnerResults{}, nil, fmt.Errorf("tester: http load to %s: %w", p.Target, err)
	}
	codes := make(map[string]int64, len(r.RetCodes))
	for code, n := range r.RetCodes {
		codes[strconv.Itoa(code)] += n
	}
	return r.RunnerResults, codes, nil
}

// convert turns fortio's results into a perf.Result; fortio's float seconds stay seconds.
func convert(p perf.Params, r periodic.RunnerResults, codes map[string]int64) perf.Result {
	stored := p
	stored.PayloadBytes = len(p.RequestBody())
	stored.Payload = "" // never store the request payload
	h := r.DurationHistogram
	out := perf.Result{
		Params:         stored,
		StartTime:      r.StartTime,
		RequestedQPS:   requestedQPS(p),
		ActualQPS:      r.ActualQPS,
		ActualDuration: r.ActualDuration,
		RetCodes:       codes,
	}
	if h == nil {
		return out
	}
	out.Requests = h.Count
	out.Latency = perf.Latency{
		MinSeconds: h.Min, AvgSeconds: h.Avg, MaxSeconds: h.Max, StdDevSeconds: h.StdDev,
		Resolution: p.Resolution,
	}
	for _, q := range h.Percentiles {
		out.Latency.Percentiles = append(out.Latency.Percentiles, perf.PercentileValue{P: q.Percentile, Seconds: q.Value})
	}
	out.Latency.Histogram = buckets(h.Data)
	return out
}

func buckets(data []stats.Bucket) []perf.Bucket {
	out := make([]perf.Bucket, 0, len(data))
	for _, b := range data {
		out = append(out, perf.Bucket{StartSeconds: b.Start, EndSeconds: b.End, Count: b.Count})
	}
	return out
}

// requestedQPS is the target rate of p in requests/s; 0 for a max-rate run.
func requestedQPS(p perf.Params) float64 {
	if p.MaxRate {
		return 0
	}
	return float64(p.QPS)
}
