package tester

import (
	"io"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"fortio.org/fortio/fhttp"
	"fortio.org/fortio/periodic"

	"github.com/daprperf/daprperf/apps/httpapp"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/testers"
)

// BenchmarkMaxThroughput measures, in the same run against the same in-process httpapp on
// loopback, the tester's maximum throughput (Run with MaxRate, 16 connections, 3 s) and that of
// fortio's own HTTP runner called directly with the same settings. It reports both in
// requests/s and their ratio; the tester, which records every request in its HDR histograms,
// must reach >= 0.95 of fortio (make bench-tester).
func BenchmarkMaxThroughput(b *testing.B) {
	target := httpApp(b, httpapp.Options{})
	const connections, d = 16, 3 * time.Second
	var testerQPS, fortioQPS float64
	for b.Loop() {
		p := perf.DefaultParams()
		p.Target, p.MaxRate, p.Connections, p.Duration = target, true, connections, d
		res, err := Run(b.Context(), p)
		if err != nil {
			b.Fatal(err)
		}
		if res.Errors() > 0 {
			b.Fatalf("tester: %d errors: %v", res.Errors(), res.RetCodes)
		}
		testerQPS += res.ActualQPS

		o := fhttp.HTTPRunnerOptions{RunnerOptions: periodic.RunnerOptions{
			QPS: -1, NumThreads: connections, Duration: d, Out: io.Discard, Resolution: 1e-5,
		}}
		o.Init(target)
		fr, err := fhttp.RunHTTPTest(&o)
		if err != nil {
			b.Fatal(err)
		}
		fortioQPS += fr.ActualQPS
	}
	b.ReportMetric(testerQPS/float64(b.N), "tester-req/s")
	b.ReportMetric(fortioQPS/float64(b.N), "fortio-req/s")
	b.ReportMetric(testerQPS/fortioQPS, "ratio")
}

// BenchmarkMaxThroughputWhilePolled is BenchmarkMaxThroughput with the tester's run going
// through its HTTP API (POST /test, so the live counters' sampler runs) while testers.Watch
// polls GET /progress every 100 ms, a hundred times as often as a long phase's poller does.
// The live progress must not cost the load: the ratio to fortio must stay >= 0.95 (make
// bench-tester). It also reports the polls answered per second.
func BenchmarkMaxThroughputWhilePolled(b *testing.B) {
	target := httpApp(b, httpapp.Options{})
	srv := httptest.NewServer(openHandler(b, target))
	b.Cleanup(srv.Close)
	client := testers.Client{URL: srv.URL}
	const connections, d = 16, 3 * time.Second
	var testerQPS, fortioQPS float64
	var polls, running atomic.Int64
	for b.Loop() {
		p := perf.DefaultParams()
		p.Target, p.MaxRate, p.Connections, p.Duration = target, true, connections, d
		stop := testers.Watch(client, 100*time.Millisecond, func(_ time.Duration, lp perf.LiveProgress, err error) {
			polls.Add(1)
			if err == nil && lp.Running && lp.Requests > 0 {
				running.Add(1)
			}
		})
		res, err := testers.RunLoad(b.Context(), client, p)
		stop()
		if err != nil {
			b.Fatal(err)
		}
		if res.Errors() > 0 {
			b.Fatalf("tester: %d errors: %v", res.Errors(), res.RetCodes)
		}
		testerQPS += res.ActualQPS

		o := fhttp.HTTPRunnerOptions{RunnerOptions: periodic.RunnerOptions{
			QPS: -1, NumThreads: connections, Duration: d, Out: io.Discard, Resolution: 1e-5,
		}}
		o.Init(target)
		fr, err := fhttp.RunHTTPTest(&o)
		if err != nil {
			b.Fatal(err)
		}
		fortioQPS += fr.ActualQPS
	}
	if running.Load() == 0 {
		b.Fatalf("no poll saw the run in progress (%d polls)", polls.Load())
	}
	b.ReportMetric(testerQPS/float64(b.N), "tester-req/s")
	b.ReportMetric(fortioQPS/float64(b.N), "fortio-req/s")
	b.ReportMetric(testerQPS/fortioQPS, "ratio")
	b.ReportMetric(float64(running.Load())/(d.Seconds()*float64(b.N)), "polls/s")
}

// BenchmarkRecordPerRequest is what the recorder adds to one request of a fixed-rate run: the
// schedule bookkeeping before the send (Start) and the service- and response-time records
// after it (Report), on one connection (make bench-tester reports ns/op and allocs/op).
func BenchmarkRecordPerRequest(b *testing.B) {
	p := perf.DefaultParams()
	p.QPS, p.Connections, p.Duration = 1000, 16, time.Minute
	rec := newRecorder(p)
	ctx := b.Context()
	start := time.Now()
	var iter int64
	b.ReportAllocs()
	for b.Loop() {
		at := start.Add(time.Duration(iter) * time.Millisecond)
		ctx2 := rec.Start(ctx, 3, iter, at)
		rec.Report(ctx2, 3, iter, at, 0.0015+float64(iter%1000)*1e-6, true, "200")
		iter = (iter + 1) % 3000 // stay within the run's planned calls per connection
	}
}
