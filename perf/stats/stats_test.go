package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIntervalMethodAndConfidenceByRounds(t *testing.T) {
	for _, tc := range []struct {
		n      int
		method string
		conf   float64 // exact, for the range; a lower bound for order statistics
	}{
		{1, MethodNone, 0},
		{2, MethodRange, 0.5},
		{3, MethodRange, 0.75},
		{4, MethodRange, 0.875},
		{5, MethodRange, 0.9375},
		{6, MethodOrderStatistics, 0.95},
		{10, MethodOrderStatistics, 0.95},
		{20, MethodOrderStatistics, 0.95},
	} {
		xs := make([]float64, tc.n)
		for i := range xs {
			xs[i] = float64((i*7)%tc.n) + 1 // a permutation of 1..n: the input need not be sorted
		}
		iv := MedianInterval(xs)
		assert.Equal(t, tc.method, iv.Method, "n=%d", tc.n)
		assert.Equal(t, tc.n, iv.N)
		assert.InDelta(t, float64(tc.n+1)/2, iv.Median, 1e-12, "n=%d median", tc.n)
		assert.LessOrEqual(t, iv.Low, iv.Median)
		assert.GreaterOrEqual(t, iv.High, iv.Median)
		switch tc.method {
		case MethodRange:
			assert.InDelta(t, tc.conf, iv.Confidence, 1e-12, "n=%d", tc.n)
			assert.Equal(t, 1.0, iv.Low, "n=%d: the range's low end is the minimum", tc.n)
			assert.Equal(t, float64(tc.n), iv.High)
		case MethodOrderStatistics:
			assert.GreaterOrEqual(t, iv.Confidence, tc.conf, "n=%d: at least 95 %%", tc.n)
			assert.Less(t, iv.Confidence, 1.0)
		}
	}
	assert.Equal(t, Interval{Method: MethodNone}, MedianInterval(nil))
}

// TestIntervalCoverageMatchesItsStatedConfidence draws many sets of n rounds from a skewed
// distribution whose median is known (log-normal, median 1) and counts how often the interval
// holds the median: that share must match the stated confidence within 2 points.
func TestIntervalCoverageMatchesItsStatedConfidence(t *testing.T) {
	const draws = 20_000
	rng := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{3, 4, 5, 6, 8, 10, 15, 25} {
		hits := 0
		var stated float64
		xs := make([]float64, n)
		for range draws {
			for i := range xs {
				xs[i] = math.Exp(0.5 * rng.NormFloat64())
			}
			iv := MedianInterval(xs)
			if iv.Low <= 1 && 1 <= iv.High {
				hits++
			}
			stated = iv.Confidence // depends on n only
		}
		got := float64(hits) / draws
		t.Logf("n=%2d: stated %.4f, covered %.4f", n, stated, got)
		require.InDelta(t, stated, got, 0.02, "n=%d", n)
		if n >= 6 {
			assert.GreaterOrEqual(t, stated, 0.95, "n=%d", n)
		}
	}
}
