package jobapp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/jobapp"
)

// Every job counted once, twice, or never, and a name never scheduled: the counts and the lag
// percentiles (nearest rank) come out exactly.
func TestCounterCountsNeverFiredAndTwice(t *testing.T) {
	c := jobapp.NewCounter()
	due := time.Unix(1000, 0)
	for i := range 100 {
		c.Scheduled(fmt.Sprintf("j-%d", i), due)
	}
	// j-0 .. j-89 fire once, lag i ms; j-90 .. j-94 fire twice; j-95 .. j-99 never.
	for i := range 95 {
		c.Fired(fmt.Sprintf("j-%d", i), due.Add(time.Duration(i+1)*time.Millisecond))
	}
	for i := 90; i < 95; i++ {
		c.Fired(fmt.Sprintf("j-%d", i), due.Add(time.Hour)) // a duplicate adds no lag
	}
	c.Fired("stranger", due)
	c.ScheduleFailed("500 Internal Server Error: boom")

	st := c.Stats()
	assert.Equal(t, int64(100), st.Scheduled)
	assert.Equal(t, int64(95), st.Fired)
	assert.Equal(t, int64(5), st.NeverFired)
	assert.Equal(t, int64(5), st.FiredTwice)
	assert.Equal(t, int64(5), st.ExtraFires)
	assert.Equal(t, 2, st.MaxFiresPerJob)
	assert.Equal(t, int64(1), st.Unexpected)
	assert.Equal(t, int64(1), st.ScheduleErrors)
	assert.Contains(t, st.LastError, "boom")
	// 95 lags of 1 .. 95 ms: nearest rank p50 = 48th, p90 = 86th, p99 = 95th.
	assert.InDelta(t, 0.048, st.LagSeconds["p50"], 1e-9)
	assert.InDelta(t, 0.086, st.LagSeconds["p90"], 1e-9)
	assert.InDelta(t, 0.095, st.LagSeconds["p99"], 1e-9)
	assert.InDelta(t, 0.001, st.LagSeconds["min"], 1e-9)
	assert.Equal(t, due.Add(time.Hour).UnixNano(), st.LastFireUnixNano)
	assert.Equal(t, due.Add(time.Millisecond).UnixNano(), st.FirstFireUnixNano)
	assert.Equal(t, due.Add(95*time.Millisecond).UnixNano(), st.LastFirstFireUnixNano)

	c.Reset()
	st = c.Stats()
	assert.Zero(t, st.Scheduled+st.Fired+st.Unexpected+st.ScheduleErrors)
	assert.Empty(t, st.LagSeconds)
}

// POST /schedule schedules through a fake daprd, which answers 500 for one name and calls the
// app back for each of the others at once (as the scheduler would after dueIn); /stats then
// shows every accepted job fired once and the refused one not counted as never fired.
func TestHandlerSchedulesAndCounts(t *testing.T) {
	var app http.Handler
	var calls atomic.Int64
	var mu sync.Mutex
	var bodies []string
	dapr := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		name := strings.TrimPrefix(r.URL.Path, "/v1.0-alpha1/jobs/")
		var b map[string]any
		_ = json.NewDecoder(r.Body).Decode(&b)
		mu.Lock()
		bodies = append(bodies, fmt.Sprint(b["dueTime"]))
		mu.Unlock()
		if name == "run-7" {
			http.Error(w, "refused", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/job/"+name, strings.NewReader(`"daprperf"`)))
	}))
	t.Cleanup(dapr.Close)
	app = jobapp.NewHandler(jobapp.Options{DaprHTTP: dapr.URL})
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)

	resp, err := http.Post(srv.URL+"/schedule", "application/json", strings.NewReader(`{"prefix":"run","count":50,"dueIn":1000000000,"connections":4}`))
	require.NoError(t, err)
	var res jobapp.ScheduleResult
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&res))
	_ = resp.Body.Close()
	assert.Equal(t, int64(49), res.Scheduled)
	assert.Equal(t, int64(1), res.Errors)
	assert.Contains(t, res.FirstError, "refused")
	assert.Equal(t, int64(50), calls.Load())
	assert.Equal(t, "1s", bodies[0])

	resp, err = http.Get(srv.URL + "/stats")
	require.NoError(t, err)
	var st jobapp.Stats
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	_ = resp.Body.Close()
	assert.Equal(t, int64(49), st.Scheduled)
	assert.Equal(t, int64(49), st.Fired)
	assert.Zero(t, st.NeverFired)
	assert.Zero(t, st.FiredTwice)
	// Fired before due (the fake fires at once): the lag is about -1 s.
	assert.Less(t, st.LagSeconds["max"], 0.0)

	resp, err = http.Post(srv.URL+"/schedule", "application/json", strings.NewReader(`{"prefix":"a/b","count":1,"dueIn":1000000000,"connections":1}`))
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	_ = resp.Body.Close()
}

// The counter's timeline: triggers second by second from the first due time, a job's second
// trigger counted apart, each second's lag percentiles.
func TestCounterTimeline(t *testing.T) {
	c := jobapp.NewCounter()
	due := time.Unix(1_700_000_000, 0)
	for _, n := range []string{"a", "b", "c"} {
		c.Scheduled(n, due)
	}
	c.Fired("a", due.Add(10*time.Millisecond))
	c.Fired("b", due.Add(1200*time.Millisecond))
	c.Fired("a", due.Add(1300*time.Millisecond)) // a second trigger
	st := c.Stats()
	if !st.TimelineStart.Equal(due) || len(st.Timeline) != 2 {
		t.Fatalf("timeline from %v, %d seconds, want from the due time, 2 seconds", st.TimelineStart, len(st.Timeline))
	}
	if s := st.Timeline[1]; s.Requests != 2 || s.Errors != 1 || s.P50Seconds != 1.2 {
		t.Errorf("second 1: %+v, want 2 triggers, 1 a second one, p50 lag 1.2 s", s)
	}
}
