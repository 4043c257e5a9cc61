package perf

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestNearestRank(t *testing.T) {
	v := []time.Duration{1, 2, 3, 4}
	for p, want := range map[float64]time.Duration{1: 1, 25: 1, 26: 2, 50: 2, 75: 3, 99: 4, 100: 4} {
		assert.Equal(t, want, nearestRank(v, p), "p%v", p)
	}
}

// Answers go to the second they ended in, counted with their errors and latency percentiles;
// an empty second between has zeros, and a cut ends the timeline before its second.
func TestTimeline(t *testing.T) {
	start := time.Unix(100, 0)
	at := func(ms int) int64 { return start.Add(time.Duration(ms) * time.Millisecond).UnixNano() }
	answers := []Answer{{End: at(-5), Latency: 3}, {End: at(500), Latency: 1, Failed: true}, {End: at(2500), Latency: 7}}
	got := Timeline(start, time.Time{}, answers)
	assert.Equal(t, []Second{
		{T: 0, Requests: 2, Errors: 1, P50Seconds: 1e-9, P90Seconds: 3e-9, P99Seconds: 3e-9, MaxSeconds: 3e-9},
		{T: 1},
		{T: 2, Requests: 1, P50Seconds: 7e-9, P90Seconds: 7e-9, P99Seconds: 7e-9, MaxSeconds: 7e-9},
	}, got)
	assert.Len(t, Timeline(start, start.Add(1500*time.Millisecond), answers), 1)
}
