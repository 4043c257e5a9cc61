package perf

import (
	"fmt"
	"math"
	"strconv"

	"github.com/daprperf/daprperf/perf/stats"
)

// OverheadPercentiles are the percentiles whose sidecar overhead is reported.
var OverheadPercentiles = []float64{50, 75, 90, 99, 99.9}

// Overhead is the latency the sidecar path adds at one figure (a percentile, or the mean):
// main latency minus baseline latency of the same round, over all rounds. Seconds.
type Overhead struct {
	// Figure is "p50", "p75", "p90", "p99", "p99.9" or "mean".
	Figure string `json:"figure"`
	// PerRoundSeconds is main minus baseline in each round, in round order.
	PerRoundSeconds []float64 `json:"perRoundSeconds"`
	// MedianSeconds is the median over rounds.
	MedianSeconds float64 `json:"medianSeconds"`
	// LowSeconds and HighSeconds bound the interval of the median (stats.MedianInterval): order
	// statistics at 95 % or more from 6 rounds, else the range of the rounds. With one round
	// they equal MedianSeconds and HasInterval is false.
	LowSeconds  float64 `json:"lowSeconds"`
	HighSeconds float64 `json:"highSeconds"`
	HasInterval bool    `json:"hasInterval"`
	// Confidence is the interval's actual confidence level in [0, 1) (0.75 for 3 rounds), and
	// Method how it was obtained (stats.MethodOrderStatistics, MethodRange or MethodNone).
	Confidence float64 `json:"confidence"`
	Method     string  `json:"method"`
}

// GateSeconds is the figure thresholds compare: the interval's upper bound with three or more
// rounds, so that a pass holds with the interval's Confidence, else the median.
func (o Overhead) GateSeconds() float64 {
	if o.HasInterval && len(o.PerRoundSeconds) >= 3 {
		return o.HighSeconds
	}
	return o.MedianSeconds
}

// GateBasis says in words which figure GateSeconds is, e.g. "upper bound of the 75 % range
// of 3 rounds" or "median of 1 round".
func (o Overhead) GateBasis() string {
	n := len(o.PerRoundSeconds)
	if o.HasInterval && n >= 3 {
		if o.Method == "" {
			return fmt.Sprintf("upper bound of the bootstrap interval of %d rounds (older result file)", n)
		}
		return fmt.Sprintf("upper bound of the %s %s interval of %d rounds", formatConfidence(o.Confidence), o.Method, n)
	}
	return fmt.Sprintf("median of %d round(s), no interval", n)
}

// IntervalLabel names the interval for tables: "97 % interval (order statistics)".
func (o Overhead) IntervalLabel() string {
	switch {
	case !o.HasInterval:
		return "no interval (1 round)"
	case o.Method == "":
		return "bootstrap interval (older result file: its confidence is not stated)"
	}
	return fmt.Sprintf("%s interval (%s)", formatConfidence(o.Confidence), o.Method)
}

// formatConfidence prints a confidence level as a percentage with as many decimals as it
// needs: 75 %, 93.75 %, 96.9 %.
func formatConfidence(c float64) string {
	return strconv.FormatFloat(math.Round(c*1000)/10, 'f', -1, 64) + " %"
}

// ComputeOverheads returns the service-time overhead at each of OverheadPercentiles and at
// the mean, from rounds in order. It fails when a round lacks one of those percentiles.
func ComputeOverheads(rounds []Round) ([]Overhead, error) {
	return computeOverheads(rounds, func(r *Result) (*Latency, error) { return &r.Latency, nil })
}

// ComputeResponseOverheads is ComputeOverheads on the response time (timed from each request's
// intended start). It fails when a round has no response time.
func ComputeResponseOverheads(rounds []Round) ([]Overhead, error) {
	return computeOverheads(rounds, func(r *Result) (*Latency, error) {
		if r.ResponseTime == nil {
			return nil, fmt.Errorf("no response time")
		}
		return r.ResponseTime, nil
	})
}

func computeOverheads(rounds []Round, pick func(*Result) (*Latency, error)) ([]Overhead, error) {
	if len(rounds) == 0 {
		return nil, fmt.Errorf("perf: overhead: no rounds")
	}
	diffs := make([][]float64, len(OverheadPercentiles)+1) // the last is the mean
	for i := range rounds {
		b, err := pick(&rounds[i].Baseline)
		if err != nil {
			return nil, fmt.Errorf("perf: overhead: round %d baseline: %w", i+1, err)
		}
		m, err := pick(&rounds[i].Main)
		if err != nil {
			return nil, fmt.Errorf("perf: overhead: round %d main: %w", i+1, err)
		}
		for j, p := range OverheadPercentiles {
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
		diffs[len(OverheadPercentiles)] = append(diffs[len(OverheadPercentiles)], m.AvgSeconds-b.AvgSeconds)
	}
	out := make([]Overhead, 0, len(diffs))
	for j, p := range OverheadPercentiles {
		out = append(out, summarise(PercentileName(p), diffs[j]))
	}
	return append(out, summarise("mean", diffs[len(OverheadPercentiles)])), nil
}

// PercentileName formats a percentile as "p50", "p99.9".
func PercentileName(p float64) string { return fmt.Sprintf("p%v", p) }

func summarise(figure string, diffs []float64) Overhead {
	iv := stats.MedianInterval(diffs)
	return Overhead{
		Figure: figure, PerRoundSeconds: diffs, MedianSeconds: iv.Median,
		LowSeconds: iv.Low, HighSeconds: iv.High, HasInterval: len(diffs) >= 2,
		Confidence: iv.Confidence, Method: iv.Method,
	}
}

// median of xs (not modified); 0 for none.
func median(xs []float64) float64 { return stats.Median(xs) }
