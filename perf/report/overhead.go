package report

import (
	"fmt"

	"github.com/daprperf/daprperf/perf"

	"github.com/daprperf/daprperf/perf/stats"
)

// ComputeOverheads returns the service-time overhead at each of OverheadPercentiles and at
// the mean, from rounds in order. It fails when a round lacks one of those percentiles.
func ComputeOverheads(rounds []perf.Round) ([]perf.Overhead, error) {
	return computeOverheads(rounds, func(r *perf.Result) (*perf.Latency, error) { return &r.Latency, nil })
}

// ComputeResponseOverheads is ComputeOverheads on the response time (timed from each request's
// intended start). It fails when a round has no response time.
func ComputeResponseOverheads(rounds []perf.Round) ([]perf.Overhead, error) {
	return computeOverheads(rounds, func(r *perf.Result) (*perf.Latency, error) {
		if r.ResponseTime == nil {
			return nil, fmt.Errorf("no response time")
		}
		return r.ResponseTime, nil
	})
}

func computeOverheads(rounds []perf.Round, pick func(*perf.Result) (*perf.Latency, error)) ([]perf.Overhead, error) {
	if len(rounds) == 0 {
		return nil, fmt.Errorf("perf: overhead: no rounds")
	}
	diffs := make([][]float64, len(perf.OverheadPercentiles)+1) // the last is the mean
	for i := range rounds {
		b, err := pick(&rounds[i].Baseline)
		if err != nil {
			return nil, fmt.Errorf("perf: overhead: round %d baseline: %w", i+1, err)
		}
		m, err := pick(&rounds[i].Main)
		if err != nil {
			return nil, fmt.Errorf("perf: overhead: round %d main: %w", i+1, err)
		}
		for j, p := range perf.OverheadPercentiles {
			bp, err := b.Percentile(p)
			if err != nil {
				return nil, fmt.Errorf("perf: overhead: round %d baseline: %w", i+1, err)
			}
			mp, err := m.Percentile(p)
			if err != nil {
				return nil, fmt.Errorf("perf: overhead: round %d main: %w", i+1, err)
			}
			diffs[j] = append(diffs[j], (mp - bp).Seconds())
		}
		diffs[len(perf.OverheadPercentiles)] = append(diffs[len(perf.OverheadPercentiles)], m.AvgSeconds-b.AvgSeconds)
	}
	out := make([]perf.Overhead, 0, len(diffs))
	for j, p := range perf.OverheadPercentiles {
		out = append(out, summarise(perf.PercentileName(p), diffs[j]))
	}
	return append(out, summarise("mean", diffs[len(perf.OverheadPercentiles)])), nil
}

func summarise(figure string, diffs []float64) perf.Overhead {
	iv := stats.MedianInterval(diffs)
	return perf.Overhead{
		Figure: figure, PerRoundSeconds: diffs, MedianSeconds: iv.Median,
		LowSeconds: iv.Low, HighSeconds: iv.High, HasInterval: len(diffs) >= 2,
		Confidence: iv.Confidence, Method: iv.Method,
	}
}

// median of xs (not modified); 0 for none.
func median(xs []float64) float64 { return stats.Median(xs) }
