// Package stats holds the statistics of daprperf's figures over rounds: the median and its
// distribution-free confidence interval (order statistics, benchmath's AssumeNothing, as
// benchstat takes it). It knows nothing of runs, reports or platforms.
package stats

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
	"gonum.org/v1/gonum/stat"
)

// IntervalConfidence is the confidence level an interval of a median over rounds aims for.
const IntervalConfidence = 0.95

// How an interval was obtained (Interval.Method).
const (
	// MethodOrderStatistics: the distribution-free interval between two order statistics of
	// the rounds, with at least IntervalConfidence (benchmath.AssumeNothing, benchstat's
	// method; from 6 rounds on).
	MethodOrderStatistics = "order statistics"
	// MethodRange: too few rounds for IntervalConfidence, so the interval is the range
	// [min, max] of the rounds and Confidence says what it is worth: 1 - 2 x 0.5^n, the chance
	// that the true median lies between the smallest and the largest of n independent rounds
	// (75 % for 3 rounds, 93.75 % for 5).
	MethodRange = "range"
	// MethodNone: one round, no interval.
	MethodNone = "none"
)

// Interval is the median of per-round values with a distribution-free confidence interval.
// Values are in the unit of the inputs.
type Interval struct {
	Median float64 `json:"median"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	// Confidence is the actual confidence level of [Low, High], in [0, 1): the probability that
	// the true median of the rounds' distribution lies inside it. 0 with one round.
	Confidence float64 `json:"confidence"`
	// Method is MethodOrderStatistics, MethodRange or MethodNone.
	Method string `json:"method"`
	// N is the number of rounds.
	N int `json:"n"`
}

// Median of xs (not modified), averaging the middle two of an even count; 0 for none.
func Median(xs []float64) float64 { return MedianInterval(xs).Median }

// MedianInterval is MedianIntervalAt(xs, IntervalConfidence).
func MedianInterval(xs []float64) Interval { return MedianIntervalAt(xs, IntervalConfidence) }

// MedianIntervalAt returns the median of xs and its interval: by order statistics at
// confidence when there are enough values (6 or more at 95 %; benchmath.AssumeNothing.Summary,
// binomial with p = 1/2, whose actual confidence is at least the one asked for), else their
// range with its exact, lower confidence (RangeConfidence). xs is not modified; an empty xs
// gives the zero Interval.
func MedianIntervalAt(xs []float64, confidence float64) Interval {
	n := len(xs)
	switch n {
	case 0:
		return Interval{Method: MethodNone}
	case 1:
		return Interval{Median: xs[0], Low: xs[0], High: xs[0], Method: MethodNone, N: 1}
	}
	s := benchmath.NewSample(slices.Clone(xs), &benchmath.DefaultThresholds) // sorts its copy
	sum := benchmath.AssumeNothing.Summary(s, confidence)
	if !math.IsInf(sum.Lo, 0) && !math.IsInf(sum.Hi, 0) {
		return Interval{Median: sum.Center, Low: sum.Lo, High: sum.Hi, Confidence: sum.Confidence, Method: MethodOrderStatistics, N: n}
	}
	return Interval{
		Median: sum.Center, Low: s.Values[0], High: s.Values[n-1],
		Confidence: RangeConfidence(n), Method: MethodRange, N: n,
	}
}

// RangeConfidence is the probability that the median of a continuous distribution lies
// between the smallest and the largest of n independent draws: 1 - 2 x 0.5^n (each of the two
// misses, all n draws on one side, has probability 0.5^n). 0 for n < 2.
func RangeConfidence(n int) float64 {
	if n < 2 {
		return 0
	}
	return 1 - 2*math.Pow(0.5, float64(n))
}

// LinearFit is the least-squares line y = a + b·x through the points: it returns the slope b
// (y units per x unit) and the coefficient of determination R² (0 to 1; 0 for a flat y).
func LinearFit(xs, ys []float64) (slope, r2 float64) {
	if len(xs) < 2 {
		return 0, 0
	}
	a, b := stat.LinearRegression(xs, ys, nil, false)
	r2 = stat.RSquared(xs, ys, nil, a, b)
	if r2 != r2 { // NaN: every y equal
		r2 = 0
	}
	return b, r2
}
