package perf

import (
	"fmt"
	"math"
	"strconv"
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

// PercentileName formats a percentile as "p50", "p99.9".
func PercentileName(p float64) string { return fmt.Sprintf("p%v", p) }
