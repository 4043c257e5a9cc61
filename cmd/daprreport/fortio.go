package main

import (
	"strconv"
	"time"

	"fortio.org/fortio/stats"

	"github.com/daprperf/daprperf/perf"
)

// fortioResult is the JSON fortio's load command writes with -json (fortio's HTTPRunnerResults
// and GRPCRunnerResults, written indented by two spaces), which Dapr's tester answers and
// Dapr's fortio tests log: the fields Dapr reads (tests/perf/test_result.go, TestResult;
// tests/perf/report/fortio_charts.go, FortioResult), in fortio's order. RunType must come first:
// Dapr's report starts collecting the summary at the line that holds it
// (tests/perf/report/charts.go, main). Times are seconds but ActualDuration, in nanoseconds.
type fortioResult struct {
	// RunType is "HTTP", or "GRPC Dapr" for fortio's Dapr gRPC runner (dapr/fortio
	// fgrpc/grpcrunner.go, RunGRPCTest).
	RunType string `json:"RunType"`
	// Labels and Version are fortio's labels and version: not in a daprperf result, left empty.
	Labels            string    `json:"Labels"`
	StartTime         time.Time `json:"StartTime"`
	RequestedQPS      string    `json:"RequestedQPS"`      // "1000", or "max"
	RequestedDuration string    `json:"RequestedDuration"` // Go's duration text, "1m0s"
	ActualQPS         float64   `json:"ActualQPS"`
	ActualDuration    int64     `json:"ActualDuration"` // nanoseconds
	NumThreads        int       `json:"NumThreads"`     // connections
	Version           string    `json:"Version"`
	// DurationHistogram is fortio's histogram of every request's time: count, extremes, sum,
	// mean, standard deviation, buckets and percentiles, seconds.
	DurationHistogram stats.HistogramData `json:"DurationHistogram"`
	Exactly           int64               `json:"Exactly"` // fortio's -n: 0, loads run for a duration
	// RetCodes counts answers by code: HTTP status text, -1 a socket error; gRPC's success is
	// fortio's "SERVING" (our "OK"), other gRPC codes by our name.
	RetCodes    map[string]int64 `json:"RetCodes"`
	URL         string           `json:"URL"`
	SocketCount int64            `json:"SocketCount"`
	AbortOn     int              `json:"AbortOn"`
}

// fortioServing is the code fortio's gRPC runner counts a successful call under, and the one
// Dapr's report counts as a gRPC success (fortio_charts.go, convertFortioPerfToRunner).
const fortioServing = "SERVING"

// fortioSummary is s as fortio's -json output.
func fortioSummary(s *sample) (fortioResult, error) {
	st, err := measure(s)
	if err != nil {
		return fortioResult{}, err
	}
	first := &s.Results[0]
	f := fortioResult{
		RunType:        "HTTP",
		StartTime:      first.StartTime,
		RequestedQPS:   requestedQPS(first),
		ActualQPS:      st.QPS,
		ActualDuration: int64(st.Duration),
		NumThreads:     first.Params.Connections,
		URL:            first.Params.Target,
		RetCodes:       map[string]int64{},
		DurationHistogram: stats.HistogramData{
			Count: st.Count, Min: st.Min, Max: st.Max, Sum: st.Sum, Avg: st.Mean, StdDev: st.StdDev,
			Data: st.Buckets,
		},
	}
	grpc := first.Params.Protocol == perf.GRPC
	if grpc {
		f.RunType = "GRPC Dapr"
	}
	var requested time.Duration
	for i := range s.Results {
		r := &s.Results[i]
		requested += r.Params.Duration
		f.SocketCount += r.Sockets
		for code, n := range r.RetCodes {
			if grpc && code == "OK" {
				code = fortioServing
			}
			f.RetCodes[code] += n
		}
	}
	f.RequestedDuration = requested.String()
	for _, p := range summaryPercentiles {
		if v, ok := st.Pct[p]; ok {
			f.DurationHistogram.Percentiles = append(f.DurationHistogram.Percentiles, stats.Percentile{Percentile: p, Value: v})
		}
	}
	return f, nil
}

// requestedQPS is r's target rate as fortio writes it: the number, or "max" for no schedule.
func requestedQPS(r *perf.Result) string {
	if r.Params.MaxRate || r.RequestedQPS <= 0 {
		return "max"
	}
	return strconv.FormatFloat(r.RequestedQPS, 'g', 9, 64)
}
