package perf

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// OverheadPercentiles are the percentiles whose sidecar overhead is reported.
var OverheadPercentiles = []float64{50, 75, 90, 99, 99.9}

// Bootstrap settings of the overhead interval: 10,000 resamples, 95 % two-sided, and a fixed
// seed so that the same rounds always give the same interval.
const (
	bootstrapResamples = 10_000
	confidence         = 0.95
)

// Overhead is the latency the sidecar path adds at one figure (a percentile, or the mean):
// sidecar latency minus baseline latency of the same round, over all rounds. Seconds.
type Overhead struct {
	// Figure is "p50", "p75", "p90", "p99", "p99.9" or "mean".
	Figure string `json:"figure"`
	// PerRoundSeconds is main minus baseline in each round, in round order.
	PerRoundSeconds []float64 `json:"perRoundSeconds"`
	// MedianSeconds is the median over rounds.
	MedianSeconds float64 `json:"medianSeconds"`
	// LowSeconds and HighSeconds bound a 95 % bootstrap confidence interval of the median
	// (percentile method over resampled rounds). With one round they equal MedianSeconds and
	// HasInterval is false: a single run cannot say how much its figure varies.
	LowSeconds  float64 `json:"lowSeconds"`
	HighSeconds float64 `json:"highSeconds"`
	HasInterval bool    `json:"hasInterval"`
}

// GateSeconds is the figure thresholds compare: the interval's upper bound with three or more
// rounds (so a pass holds with 95 % confidence), else the median.
func (o Overhead) GateSeconds() float64 {
	if o.HasInterval && len(o.PerRoundSeconds) >= 3 {
		return o.HighSeconds
	}
	return o.MedianSeconds
}

// ComputeOverheads returns the overhead at each of OverheadPercentiles and at the mean, from
// rounds in order. It fails when a round lacks one of those percentiles.
func ComputeOverheads(rounds []Round) ([]Overhead, error) {
	if len(rounds) == 0 {
		return nil, fmt.Errorf("perf: overhead: no rounds")
	}
	var out []Overhead
	for _, p := range OverheadPercentiles {
		diffs := make([]float64, 0, len(rounds))
		for i, r := range rounds {
			b, err := r.Baseline.Percentile(p)
			if err != nil {
				return nil, fmt.Errorf("perf: overhead: round %d baseline: %w", i+1, err)
			}
			m, err := r.Main.Percentile(p)
			if err != nil {
				return nil, fmt.Errorf("perf: overhead: round %d main: %w", i+1, err)
			}
			diffs = append(diffs, (m - b).Seconds())
		}
		out = append(out, summarise(PercentileName(p), diffs))
	}
	diffs := make([]float64, 0, len(rounds))
	for _, r := range rounds {
		diffs = append(diffs, r.Main.Latency.AvgSeconds-r.Baseline.Latency.AvgSeconds)
	}
	return append(out, summarise("mean", diffs)), nil
}

// PercentileName formats a percentile as "p50", "p99.9".
func PercentileName(p float64) string { return fmt.Sprintf("p%v", p) }

func summarise(figure string, diffs []float64) Overhead {
	o := Overhead{Figure: figure, PerRoundSeconds: diffs, MedianSeconds: median(diffs)}
	o.LowSeconds, o.HighSeconds = o.MedianSeconds, o.MedianSeconds
	if len(diffs) >= 2 {
		o.LowSeconds, o.HighSeconds = bootstrapMedianInterval(diffs)
		o.HasInterval = true
	}
	return o
}

// bootstrapMedianInterval resamples xs with replacement, takes each resample's median, and
// returns the (1-confidence)/2 and (1+confidence)/2 quantiles of those medians.
func bootstrapMedianInterval(xs []float64) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	medians := make([]float64, bootstrapResamples)
	sample := make([]float64, len(xs))
	for i := range medians {
		for j := range sample {
			sample[j] = xs[rng.IntN(len(xs))]
		}
		medians[i] = median(sample)
	}
	slices.Sort(medians)
	return quantileSorted(medians, (1-confidence)/2), quantileSorted(medians, (1+confidence)/2)
}

// median of xs (not modified); 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return quantileSorted(s, 0.5)
}

// quantileSorted interpolates linearly between the closest ranks of sorted s (q in [0, 1]).
func quantileSorted(s []float64, q float64) float64 {
	if len(s) == 1 {
		return s[0]
	}
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	frac := pos - float64(i)
	return s[i] + frac*(s[i+1]-s[i])
}
