package hdr

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reportedPercentiles are the percentiles every result file reports, and p99.99.
var reportedPercentiles = []float64{50, 75, 90, 99, 99.9, 99.99}

// sampleSets are the shapes issue 11 names, 60,000 samples each, from a fixed seed.
func sampleSets() map[string][]time.Duration {
	rng := rand.New(rand.NewPCG(7, 11))
	const n = 60_000
	sets := map[string][]time.Duration{}
	// Log-normal with a median of 7 ms (sigma 0.6): the shape of the sidecar path on 2 cores.
	logNormal := make([]time.Duration, n)
	for i := range logNormal {
		logNormal[i] = time.Duration(7e6 * math.Exp(0.6*rng.NormFloat64()))
	}
	sets["log-normal, median 7 ms"] = logNormal
	// Clustered at 12 ms: normal with a 0.3 ms standard deviation.
	clustered := make([]time.Duration, n)
	for i := range clustered {
		clustered[i] = time.Duration(12e6 + 3e5*rng.NormFloat64())
	}
	sets["clustered at 12 ms"] = clustered
	// Bimodal: 99.5 % near 1 ms (normal, sd 0.05 ms), 0.5 % uniform in [100, 200) ms.
	bimodal := make([]time.Duration, n)
	for i := range bimodal {
		if i%200 == 0 {
			bimodal[i] = time.Duration(100e6 + 100e6*rng.Float64())
		} else {
			bimodal[i] = time.Duration(1e6 + 5e4*rng.NormFloat64())
		}
	}
	sets["bimodal 1 ms / 100-200 ms"] = bimodal
	return sets
}

// exact is the nearest-rank order statistic: the k-th smallest, k = max(1, floor(p/100 n + 0.5)).
func exact(sorted []time.Duration, p float64) time.Duration {
	k := max(int(p/100*float64(len(sorted))+0.5), 1)
	return sorted[min(k, len(sorted))-1]
}

func TestPercentilesWithinOneThousandthOfTheOrderStatistic(t *testing.T) {
	for name, samples := range sampleSets() {
		t.Run(name, func(t *testing.T) {
			h := New()
			for _, s := range samples {
				h.Record(s)
			}
			sorted := slices.Clone(samples)
			slices.Sort(sorted)
			require.EqualValues(t, len(samples), h.Count())
			assert.Equal(t, sorted[0], h.Min(), "exact minimum")
			assert.Equal(t, sorted[len(sorted)-1], h.Max(), "exact maximum")
			for _, p := range reportedPercentiles {
				want, got := exact(sorted, p), h.Percentile(p)
				rel := float64(got-want) / float64(want)
				assert.LessOrEqual(t, math.Abs(rel), 0.001, "p%v: got %v, exact %v (%.4f %%)", p, got, want, 100*rel)
				assert.GreaterOrEqual(t, got, want, "p%v never understates the order statistic", p)
			}
			var sum float64
			for _, s := range samples {
				sum += s.Seconds()
			}
			assert.InEpsilon(t, sum/float64(len(samples)), h.MeanSeconds(), 1e-12, "exact mean")
		})
	}
}

func TestPercentilesAreClampedToTheObservedRange(t *testing.T) {
	h := New()
	for range 10 {
		h.Record(123_456_789) // 123.456789 ms: its sub-bucket's top is above it
	}
	for _, p := range []float64{0.001, 50, 99.99} {
		assert.Equal(t, time.Duration(123_456_789), h.Percentile(p), "p%v", p)
	}
	assert.Zero(t, New().Percentile(50), "an empty histogram answers 0")
}

func TestEncodeDecodeKeepsEveryPercentile(t *testing.T) {
	samples := sampleSets()["bimodal 1 ms / 100-200 ms"]
	h := New()
	for _, s := range samples {
		h.Record(s)
	}
	enc, err := h.Encode()
	require.NoError(t, err)
	assert.Less(t, len(enc), 64<<10, "compact: %d bytes of text for %d samples", len(enc), len(samples))
	back, err := Decode(enc, h.Min(), h.Max())
	require.NoError(t, err)
	assert.Equal(t, h.Count(), back.Count())
	for _, p := range []float64{1, 50, 99, 99.5, 99.9, 99.99, 99.999} {
		assert.Equal(t, h.Percentile(p), back.Percentile(p), "p%v after a round trip", p)
	}

	_, err = Decode("not an encoding", 0, 0)
	assert.ErrorContains(t, err, "hdr: decode")
	_, err = Decode("", 0, 0)
	assert.ErrorContains(t, err, "empty encoding")
}

func TestMergeEqualsRecordingEverythingInOne(t *testing.T) {
	samples := sampleSets()["log-normal, median 7 ms"]
	all, a, b := New(), New(), New()
	for i, s := range samples {
		all.Record(s)
		if i%3 == 0 {
			a.Record(s)
		} else {
			b.Record(s)
		}
	}
	a.Merge(b)
	assert.Equal(t, all.Count(), a.Count())
	assert.Equal(t, all.Min(), a.Min())
	assert.Equal(t, all.Max(), a.Max())
	assert.InEpsilon(t, all.MeanSeconds(), a.MeanSeconds(), 1e-9)
	assert.InEpsilon(t, all.StdDevSeconds(), a.StdDevSeconds(), 1e-9)
	for _, p := range reportedPercentiles {
		assert.Equal(t, all.Percentile(p), a.Percentile(p), "p%v", p)
	}
}

func TestValuesAboveTheRangeAreClampedAndCounted(t *testing.T) {
	h := New()
	h.Record(2 * time.Hour)
	h.Record(-time.Second)
	assert.EqualValues(t, 1, h.Clamped())
	assert.Equal(t, time.Duration(0), h.Min())
	assert.Equal(t, 2*time.Hour, h.Max(), "the exact maximum is kept")
}

// BenchmarkRecord is the cost of recording one latency (make bench-tester reports it).
func BenchmarkRecord(b *testing.B) {
	h := New()
	d := 1500 * time.Microsecond
	b.ReportAllocs()
	for b.Loop() {
		h.Record(d)
		d += 997
		if d > 50*time.Millisecond {
			d = 1500 * time.Microsecond
		}
	}
}
