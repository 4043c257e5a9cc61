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

// TestMannWhitneyCDF: the null distribution of U for 3 against 3 counts 1, 1, 2, 3, 3, 3, 3,
// 2, 1, 1 of the C(6,3) = 20 orderings (the Gaussian binomial [6 choose 3]).
func TestMannWhitneyCDF(t *testing.T) {
	counts := []float64{1, 1, 2, 3, 3, 3, 3, 2, 1, 1}
	cdf := mannWhitneyCDF(3, 3)
	if len(cdf) != len(counts) {
		t.Fatalf("%d values, want %d", len(cdf), len(counts))
	}
	sum := 0.0
	for u, c := range counts {
		sum += c
		if math.Abs(cdf[u]-sum/20) > 1e-12 {
			t.Errorf("P(U <= %d) = %v, want %v", u, cdf[u], sum/20)
		}
	}
	// 6 against 6: P(U = 0) = 1/924.
	if got := mannWhitneyCDF(6, 6)[0]; math.Abs(got-1.0/924) > 1e-15 {
		t.Errorf("6 against 6: P(U = 0) = %v, want 1/924", got)
	}
}

// TestShiftInterval: y is x shifted by 1 (6 values each): the Hodges–Lehmann shift is 1 and
// the 99 % interval is the 3rd smallest and 3rd largest of the 36 differences, at
// 1 − 2·4/924; with 3 against 3 no 99 % interval exists and the range comes back with its
// 1 − 2/20 = 90 %; with 40 against 40 the normal approximation gives an interval of at least
// the asked confidence around the shift.
func TestShiftInterval(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6}
	y := []float64{2, 3, 4, 5, 6, 7}
	s := ShiftInterval(x, y, 0.99)
	if s.Estimate != 1 || s.Method != MethodOrderStatistics {
		t.Fatalf("shift %v (%s), want 1 by order statistics", s.Estimate, s.Method)
	}
	// The differences y_j − x_i are −4 once, −3 twice, ..., 6 once: the 3rd smallest is −3,
	// the 3rd largest 5.
	if s.Low != -3 || s.High != 5 || math.Abs(s.Confidence-(1-8.0/924)) > 1e-12 {
		t.Errorf("interval [%v, %v] at %v, want [-3, 5] at %v", s.Low, s.High, s.Confidence, 1-8.0/924)
	}
	few := ShiftInterval([]float64{1, 2, 3}, []float64{11, 12, 13}, 0.99)
	if few.Method != MethodRange || few.Low != 8 || few.High != 12 || math.Abs(few.Confidence-0.9) > 1e-12 || few.Estimate != 10 {
		t.Errorf("3 against 3: %+v, want the range [8, 12] at 90 %%, shift 10", few)
	}
	// The same 3 against 3 at exactly 90 %: the range is an interval at the asked confidence.
	if s := ShiftInterval([]float64{1, 2, 3}, []float64{11, 12, 13}, 0.90); s.Method != MethodOrderStatistics {
		t.Errorf("3 against 3 at 90 %%: %s, want order statistics", s.Method)
	}
	var a, b []float64
	for i := range 40 {
		a = append(a, float64(i))
		b = append(b, float64(i)+5)
	}
	big := ShiftInterval(a, b, 0.95)
	if big.Estimate != 5 || big.Low >= 5 || big.High <= 5 || big.Confidence < 0.95 || big.Method != MethodOrderStatistics {
		t.Errorf("40 against 40: %+v", big)
	}
	if math.Abs((5-big.Low)-(big.High-5)) > 1e-9 {
		t.Errorf("40 against 40: [%v, %v] not symmetric about 5", big.Low, big.High)
	}
	if none := ShiftInterval(nil, y, 0.99); none.Method != MethodNone {
		t.Errorf("empty x: %s", none.Method)
	}
}
