package main

import (
	"fmt"
	"math"
	"time"

	"fortio.org/fortio/stats"

	"github.com/daprperf/daprperf/perf"
)

// summaryPercentiles are the percentiles a summary carries, in this order: fortio's default
// list (-p "50,75,90,99,99.9", which Dapr's tests read by position: index 2 is p90, 3 p99), then
// p95, which Dapr's report reads by value (fortio_charts.go, convertFortioPerfToRunner) and k6's
// summary has.
var summaryPercentiles = []float64{50, 75, 90, 99, 99.9, 95}

// fortioResolution is the width of fortio's first histogram buckets in seconds: fortio's
// default -r, which Dapr's tester does not change (tests/apps/perf/tester/fortio.go,
// buildFortioArgs).
const fortioResolution = 0.001

// stat is the latency of a sample, every time in seconds.
type stat struct {
	// Count is the requests (or iterations) measured; Errors those that failed.
	Count, Errors int64
	// Min, Max, Sum and StdDev are over every request of the sample: exact extremes, the exact
	// sum, the pooled population standard deviation.
	Min, Max, Sum, StdDev float64
	// Mean is the mean service time: of the one result, the median over rounds of each
	// round's mean (PhaseFigures.MeanSeconds), or Sum/Count for pooled loads.
	Mean float64
	// Pct holds each of summaryPercentiles that is known, by percentile.
	Pct map[float64]float64
	// QPS is the achieved rate, requests/s; Duration the measured time, summed over results.
	QPS      float64
	Duration time.Duration
	// Buckets are fortio's histogram buckets filled from the HDR histograms (nil when a result
	// has none).
	Buckets []stats.Bucket
}

// measure derives s's latency. A single result gives its own figures; the rounds of a phase
// give the phase's figures (the median over rounds, as daprperf's summary) for the percentiles,
// mean and rate, and their totals for the rest; pooled loads give the figures of their merged
// histogram. It fails only on a stored histogram that does not decode.
func measure(s *sample) (stat, error) {
	st := stat{Pct: map[float64]float64{}, Min: math.Inf(1)}
	var sumSq float64
	for i := range s.Results {
		r := &s.Results[i]
		n := float64(r.Requests)
		st.Count += r.Requests
		st.Errors += r.Errors()
		st.Min = min(st.Min, r.Latency.MinSeconds)
		st.Max = max(st.Max, r.Latency.MaxSeconds)
		st.Sum += r.Latency.AvgSeconds * n
		sumSq += n * (r.Latency.StdDevSeconds*r.Latency.StdDevSeconds + r.Latency.AvgSeconds*r.Latency.AvgSeconds)
		st.Duration += r.ActualDuration
	}
	if st.Count == 0 {
		return stat{Pct: st.Pct}, nil
	}
	pooledMean := st.Sum / float64(st.Count)
	st.StdDev = math.Sqrt(max(sumSq/float64(st.Count)-pooledMean*pooledMean, 0))

	merged, err := mergeHistograms(s.Results)
	if err != nil {
		return stat{}, err
	}
	switch {
	case len(s.Results) == 1:
		r := &s.Results[0]
		st.Mean, st.QPS = r.Latency.AvgSeconds, r.ActualQPS
		for _, p := range summaryPercentiles {
			if d, err := r.Latency.Percentile(p); err == nil {
				st.Pct[p] = d.Seconds()
			}
		}
	case s.Rounds != nil:
		st.Mean, st.QPS = s.Rounds.MeanSeconds, s.Rounds.QPS
		for _, p := range summaryPercentiles {
			if v, ok := s.Rounds.Quantile(p, false); ok {
				st.Pct[p] = v
			}
		}
		if _, ok := st.Pct[95]; !ok && s.P95 > 0 {
			st.Pct[95] = s.P95
		}
	default:
		st.Mean = pooledMean
		if st.Duration > 0 {
			st.QPS = float64(st.Count) / st.Duration.Seconds()
		}
		if merged != nil {
			for _, p := range summaryPercentiles {
				st.Pct[p] = merged.percentile(p)
			}
		}
	}
	if merged != nil {
		st.Buckets = merged.buckets
	}
	return st, nil
}

// histogram is what this command needs of a merged HDR histogram: its percentiles and fortio's
// buckets filled from it.
type histogram struct {
	percentile func(p float64) float64 // seconds
	buckets    []stats.Bucket
}

// mergeHistograms merges the stored HDR histograms of results; nil when one has none.
func mergeHistograms(results []perf.Result) (*histogram, error) {
	for i := range results {
		if results[i].Latency.HDR == "" {
			return nil, nil
		}
	}
	merged, err := results[0].Latency.Histogram()
	if err != nil {
		return nil, fmt.Errorf("result 1: %w", err)
	}
	for i := 1; i < len(results); i++ {
		h, err := results[i].Latency.Histogram()
		if err != nil {
			return nil, fmt.Errorf("result %d: %w", i+1, err)
		}
		merged.Merge(h)
	}
	// fortio's buckets, each HDR sub-bucket counted at its midpoint (an HDR sub-bucket is at
	// most 1/1024 of its value wide, far narrower than fortio's buckets).
	fh := stats.NewHistogram(0, fortioResolution)
	for _, b := range merged.Bars() {
		fh.RecordN(((b.From + b.To) / 2).Seconds(), int(b.Count))
	}
	data := fh.Export().Data
	if len(data) > 0 { // fortio's first bucket starts at the minimum, its last ends at the maximum
		data[0].Start = merged.Min().Seconds()
		data[len(data)-1].End = merged.Max().Seconds()
	}
	return &histogram{percentile: func(p float64) float64 { return merged.Percentile(p).Seconds() }, buckets: data}, nil
}
