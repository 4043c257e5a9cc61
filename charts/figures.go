package main

import (
	"math"
	"slices"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// The process roles of a service-invocation scenario, as perf.Series.Role and
// perf.ResourceSummary.Role name them.
const (
	roleCallerSidecar = "caller-sidecar"
	roleCalleeSidecar = "callee-sidecar"
)

// tablePercentiles are the latency percentiles of the tables, as in Dapr's published report.
func tablePercentiles() []float64 { return []float64{50, 90, 99, 99.9} }

// summaryOverheads are the overhead figures of summary rows and comparisons.
func summaryOverheads() []string { return []string{"p50", "p90", "p99"} }

// baselineResults returns the baseline phase of every round, in order.
func baselineResults(rep *perf.Report) []perf.Result {
	out := make([]perf.Result, len(rep.Rounds))
	for i, rd := range rep.Rounds {
		out[i] = rd.Baseline
	}
	return out
}

// medianPercentile is the median over results of percentile p; false when there are no
// results or one lacks p.
func medianPercentile(results []perf.Result, p float64) (time.Duration, bool) {
	if len(results) == 0 {
		return 0, false
	}
	vals := make([]float64, 0, len(results))
	for i := range results {
		d, err := results[i].Percentile(p)
		if err != nil {
			return 0, false
		}
		vals = append(vals, float64(d))
	}
	return time.Duration(math.Round(median(vals))), true
}

// median of xs (not modified), averaging the middle two of an even count; 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// mainTotals sums requests and errors over the main phases.
func mainTotals(rep *perf.Report) (requests, errs int64) {
	for i := range rep.Rounds {
		requests += rep.Rounds[i].Main.Requests
		errs += rep.Rounds[i].Main.Errors()
	}
	return requests, errs
}

// lowestActualQPS is the lowest actual QPS of the main phases (the one qps.ratio gates on).
func lowestActualQPS(rep *perf.Report) (float64, bool) {
	if len(rep.Rounds) == 0 {
		return 0, false
	}
	low := math.Inf(1)
	for _, rd := range rep.Rounds {
		low = min(low, rd.Main.ActualQPS)
	}
	return low, true
}

// resourceOf returns the summary of the first process with role.
func resourceOf(rep *perf.Report, role string) (perf.ResourceSummary, bool) {
	for _, r := range rep.Resources {
		if r.Role == role {
			return r, true
		}
	}
	return perf.ResourceSummary{}, false
}

// unit is a latency unit for axes: values in seconds times PerSecond.
type unit struct {
	Name      string
	PerSecond float64
}

// latencyUnit is µs when the largest magnitude shown is below 1 ms, else ms.
func latencyUnit(maxSeconds float64) unit {
	if math.Abs(maxSeconds) < 1e-3 {
		return unit{Name: "µs", PerSecond: 1e6}
	}
	return unit{Name: "ms", PerSecond: 1e3}
}
