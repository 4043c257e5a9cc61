package tester

import (
	"io"
	"testing"
	"time"

	"fortio.org/fortio/fhttp"
	"fortio.org/fortio/periodic"

	"github.com/daprperf/daprperf/apps/httpapp"
	"github.com/daprperf/daprperf/perf"
)

// BenchmarkMaxThroughput measures, in the same run against the same in-process httpapp on
// loopback, the tester's maximum throughput (Run with MaxRate, 16 connections, 3 s) and that of
// fortio's own HTTP runner called directly with the same settings. It reports both in
// requests/s and their ratio; the tester must reach >= 0.90 of fortio (make bench-tester).
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
