package perf

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf/hdr"
)

func sampleResult(proto Protocol, codes map[string]int64) Result {
	p := DefaultParams()
	p.Protocol = proto
	return Result{
		Params:         p,
		StartTime:      time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
		RequestedQPS:   1000,
		ActualQPS:      999.5,
		ActualDuration: 5 * time.Second,
		Requests:       4998,
		Latency: Latency{
			MinSeconds: 0.0001, AvgSeconds: 0.0004, MaxSeconds: 0.01, StdDevSeconds: 0.0002,
			Percentiles: []PercentileValue{
				{P: 50, Seconds: 0.00031}, {P: 75, Seconds: 0.00042}, {P: 90, Seconds: 0.0006},
				{P: 99, Seconds: 0.0015}, {P: 99.9, Seconds: 0.004},
			},
		},
		RetCodes: codes,
		Schedule: Schedule{Scheduled: 5000, Skipped: 2},
	}
}

func TestPercentileIsLookedUpByValue(t *testing.T) {
	r := sampleResult(HTTP, nil)
	// Reverse the order: a lookup by index would now return the wrong figure.
	ps := r.Latency.Percentiles
	for i, j := 0, len(ps)-1; i < j; i, j = i+1, j-1 {
		ps[i], ps[j] = ps[j], ps[i]
	}
	p90, err := r.Percentile(90)
	require.NoError(t, err)
	assert.Equal(t, 600*time.Microsecond, p90)
	p999, err := r.Percentile(99.9)
	require.NoError(t, err)
	assert.Equal(t, 4*time.Millisecond, p999)

	_, err = r.Percentile(99.99)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "p99.99 was not computed")
	assert.Contains(t, err.Error(), "stores no histogram")
	_, err = r.Percentile(100)
	assert.ErrorContains(t, err, "open range (0, 100)")
}

// TestAnyPercentileComesFromTheStoredHistogram records 1..10,000 µs, stores the result as JSON,
// reads it back and asks for percentiles that were not computed when the run ended.
func TestAnyPercentileComesFromTheStoredHistogram(t *testing.T) {
	h := hdr.New()
	for i := 1; i <= 10_000; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	lat, err := NewLatency(h, DefaultPercentiles)
	require.NoError(t, err)
	assert.Equal(t, hdr.SignificantDigits, lat.SignificantDigits)
	b, err := json.Marshal(Result{Latency: lat})
	require.NoError(t, err)
	var back Result
	require.NoError(t, json.Unmarshal(b, &back))
	for p, want := range map[float64]time.Duration{99.99: 9999 * time.Microsecond, 12.5: 1250 * time.Microsecond, 50: 5000 * time.Microsecond} {
		got, err := back.Percentile(p)
		require.NoError(t, err)
		assert.InEpsilon(t, want.Seconds(), got.Seconds(), hdr.MaxRelativeError, "p%v", p)
		assert.GreaterOrEqual(t, got, want, "p%v", p)
	}
	got, err := back.Percentile(99.9999)
	require.NoError(t, err)
	assert.Equal(t, 10*time.Millisecond, got, "clamped to the exact maximum")
	_, err = back.ResponsePercentile(50)
	assert.ErrorContains(t, err, "no response time")
}

func TestErrorsCountEveryFailure(t *testing.T) {
	http := sampleResult(HTTP, map[string]int64{"200": 90, "204": 5, "418": 1, "503": 2, "500": 1, "-1": 3, "404": 1})
	assert.Equal(t, int64(8), http.Errors(), "418, 503, 500, socket errors and 404 all count")

	grpc := sampleResult(GRPC, map[string]int64{"OK": 95, "Unavailable": 3, "Internal": 1, "DeadlineExceeded": 1})
	assert.Equal(t, int64(5), grpc.Errors(), "every non-OK gRPC status counts")

	none := sampleResult(GRPC, map[string]int64{"OK": 100})
	assert.Zero(t, none.Errors())
}

func TestResultJSONRoundTripIsStable(t *testing.T) {
	r := sampleResult(HTTP, map[string]int64{"200": 4998})
	b1, err := json.Marshal(r)
	require.NoError(t, err)
	var back Result
	require.NoError(t, json.Unmarshal(b1, &back))
	assert.Equal(t, r, back)
	b2, err := json.Marshal(back)
	require.NoError(t, err)
	assert.JSONEq(t, string(b1), string(b2))
	assert.NotContains(t, string(b1), `"responseTime"`, "no response time, no field")
}

func TestScheduleBehindFraction(t *testing.T) {
	assert.InDelta(t, 0.0004, Schedule{Scheduled: 5000, Skipped: 1, Late: 1}.BehindFraction(), 1e-12)
	assert.Zero(t, Schedule{}.BehindFraction())
}
