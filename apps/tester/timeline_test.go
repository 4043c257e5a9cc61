package tester

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// The timeline puts each answer in the second it came, counts the failed ones, and takes exact
// nearest-rank percentiles of that second's service times.
func TestTimelineSecondBySecond(t *testing.T) {
	rec := newRecorder(load(t, perf.HTTP, "http://127.0.0.1:1/", 100, 3*time.Second))
	start := time.Unix(1000, 0)
	// Second 0: 100 answers of 1..100 ms, sent so that each ends inside second 0; the tenth of
	// them failed (HTTP 503). Second 1: none. Second 2: one answer of 7 ms (a 418 counts failed).
	for i := 1; i <= 100; i++ {
		service := time.Duration(i) * time.Millisecond
		code, ok := "200", true
		if i%10 == 0 {
			code, ok = "503", false
		}
		rec.Report(t.Context(), 0, 0, start.Add(800*time.Millisecond-service), service.Seconds(), ok, code)
	}
	rec.Report(t.Context(), 1, 0, start.Add(2*time.Second), 0.007, true, teapot)
	tl := rec.timeline(start)
	require.Len(t, tl, 3)
	assert.Equal(t, perf.Second{T: 0, Requests: 100, Errors: 10, P50Seconds: 0.050, P90Seconds: 0.090, P99Seconds: 0.099, MaxSeconds: 0.100}, tl[0])
	assert.Equal(t, perf.Second{T: 1}, tl[1], "a second without answers has zeros")
	assert.Equal(t, perf.Second{T: 2, Requests: 1, Errors: 1, P50Seconds: 0.007, P90Seconds: 0.007, P99Seconds: 0.007, MaxSeconds: 0.007}, tl[2])
}

// Past its share of maxTimelinePoints a shard keeps no more answers, and the timeline ends
// before the second of the first one it left out, rather than showing a false drop in rate.
func TestTimelineStopsWhereAnswersWereDropped(t *testing.T) {
	rec := newRecorder(load(t, perf.HTTP, "http://127.0.0.1:1/", 100, 5*time.Second))
	for i := range rec.shards {
		rec.shards[i].pointLimit = 150
	}
	start := time.Unix(1000, 0)
	// Connection 0 answers 100 times in each of seconds 0 to 4: its shard is full during second 1.
	for sec := range 5 {
		for i := range 100 {
			at := start.Add(time.Duration(sec)*time.Second + time.Duration(i)*time.Millisecond)
			rec.Report(t.Context(), 0, 0, at, 0.001, true, "200")
		}
	}
	tl := rec.timeline(start)
	require.Len(t, tl, 1, "second 1 lost answers, so the timeline holds second 0 only")
	assert.EqualValues(t, 100, tl[0].Requests)
}
