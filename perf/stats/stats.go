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

// Shift is the Hodges–Lehmann estimate of how far a sample y lies above a sample x, with its
// distribution-free interval. Values are in the unit of the inputs.
type Shift struct {
	// Estimate is the median of the n1·n2 differences y_j − x_i (Hodges and Lehmann, "Estimates
	// of location based on rank tests", Ann. Math. Statist. 34, 1963).
	Estimate float64 `json:"estimate"`
	// Low and High are the k-th smallest and k-th largest of those differences, the interval
	// that inverts the two-sided Mann–Whitney test (Bauer, "Constructing confidence sets using
	// rank statistics", JASA 67, 1972; Hollander and Wolfe, Nonparametric Statistical Methods,
	// §4.3).
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Confidence is the interval's actual confidence, 1 − 2·P(U <= k − 1) under the null
	// distribution of U, at least the one asked for with MethodOrderStatistics.
	Confidence float64 `json:"confidence"`
	// Method is MethodOrderStatistics (an interval at the asked confidence), MethodRange (too
	// few values for it: the smallest and largest difference, with their lower confidence
	// 1 − 2 / C(n1+n2, n1)) or MethodNone (a sample is empty).
	Method string `json:"method"`
	N1     int    `json:"n1"`
	N2     int    `json:"n2"`
}

// exactUMax bounds n1·n2 for the exact null distribution of the Mann–Whitney U; above it the
// normal approximation is used, whose error is then far below the discreteness of the
// confidences asked for.
const exactUMax = 4000

// ShiftInterval returns the Hodges–Lehmann shift of y against x (y − x) and its interval at
// confidence (in (0, 1)), from the exact null distribution of the Mann–Whitney U when
// n1·n2 <= 4000, else its normal approximation (mean n1·n2/2, variance n1·n2·(n1+n2+1)/12).
// The interval assumes the two samples differ by a shift; ties in the data make it
// conservative. xs and ys are not modified.
func ShiftInterval(xs, ys []float64, confidence float64) Shift {
	m, n := len(xs), len(ys)
	out := Shift{N1: m, N2: n, Method: MethodNone}
	if m == 0 || n == 0 {
		return out
	}
	d := make([]float64, 0, m*n)
	for _, x := range xs {
		for _, y := range ys {
			d = append(d, y-x)
		}
	}
	slices.Sort(d)
	out.Estimate = d[len(d)/2]
	if len(d)%2 == 0 {
		out.Estimate = (d[len(d)/2-1] + d[len(d)/2]) / 2
	}
	alpha := (1 - confidence) * (1 + 1e-9) // 1 − 0.9 is 0.0999…: let an exact 90 % count
	k := 0                                 // the largest k >= 1 with 2·P(U <= k−1) <= alpha; 0 when there is none
	var tail func(u int) float64
	if m*n <= exactUMax {
		cdf := mannWhitneyCDF(m, n)
		tail = func(u int) float64 { return cdf[u] }
	} else {
		mean, sd := float64(m*n)/2, math.Sqrt(float64(m*n*(m+n+1))/12)
		tail = func(u int) float64 { return normalCDF((float64(u) + 0.5 - mean) / sd) }
	}
	for k < m*n/2 && 2*tail(k) <= alpha {
		k++
	}
	if k == 0 {
		out.Low, out.High, out.Method = d[0], d[len(d)-1], MethodRange
		out.Confidence = max(0, 1-2*tail(0))
		return out
	}
	out.Low, out.High = d[k-1], d[len(d)-k]
	out.Confidence = 1 - 2*tail(k-1)
	out.Method = MethodOrderStatistics
	return out
}

// mannWhitneyCDF is the null distribution of the Mann–Whitney U of samples of m and n values
// (no ties): cdf[u] = P(U <= u), u = 0..m·n. It uses the recurrence on the largest of the m + n
// values (Mann and Whitney, Ann. Math. Statist. 18, 1947): p(u; i, j) = i/(i+j)·p(u − j; i−1, j)
// + j/(i+j)·p(u; i, j−1).
func mannWhitneyCDF(m, n int) []float64 {
	// p[i] is the distribution for i and the current j; p[i][u] for u = 0..i·j.
	p := make([][]float64, m+1)
	for i := range p {
		p[i] = []float64{1} // j = 0: U = 0
	}
	for j := 1; j <= n; j++ {
		// p[0] stays [1]: no x, U = 0.
		for i := 1; i <= m; i++ {
			next := make([]float64, i*j+1)
			wx, wy := float64(i)/float64(i+j), float64(j)/float64(i+j)
			for u, q := range p[i-1] { // i−1 and j, already updated: shifted by j
				next[u+j] += wx * q
			}
			for u, q := range p[i] { // i and j−1
				next[u] += wy * q
			}
			p[i] = next
		}
	}
	cdf := p[m]
	for u := 1; u < len(cdf); u++ {
		cdf[u] += cdf[u-1]
	}
	return cdf
}

// normalCDF is the standard normal distribution function.
func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
