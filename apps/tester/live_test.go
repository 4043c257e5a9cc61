package tester

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/httpapp"
	"github.com/daprperf/daprperf/perf"
)

// getProgress is the handler's GET /progress answer, decoded.
func getProgress(t *testing.T, h http.Handler, auth string) (int, perf.LiveProgress) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/progress", nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	h.ServeHTTP(rec, req)
	var lp perf.LiveProgress
	if rec.Code == http.StatusOK {
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &lp), rec.Body.String())
	}
	return rec.Code, lp
}

// TestProgressDuringARun polls GET /progress 3.5 s into a 5 s run at 200 QPS against httpapp,
// of which every tenth request fails: it must show about 700 requests, 70 errors and a
// current QPS near 200; before and after the run it says no run is in progress.
func TestProgressDuringARun(t *testing.T) {
	target := httpApp(t, httpapp.Options{FailFraction: 0.1})
	h := openHandler(t, target)
	code, lp := getProgress(t, h, "")
	require.Equal(t, http.StatusOK, code)
	assert.False(t, lp.Running, "idle: %+v", lp)

	body, err := json.Marshal(load(t, perf.HTTP, target, 200, 5*time.Second))
	require.NoError(t, err)
	done := make(chan int, 1)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/test", strings.NewReader(string(body))))
		done <- rec.Code
	}()
	require.Eventually(t, h.busy.Load, 2*time.Second, time.Millisecond)
	time.Sleep(3500 * time.Millisecond)
	code, lp = getProgress(t, h, "")
	require.Equal(t, http.StatusOK, code)
	t.Logf("at 3.5 s: %s; window %.1f s", lp, lp.WindowSeconds)
	assert.True(t, lp.Running)
	assert.Equal(t, 200.0, lp.TargetQPS)
	assert.Equal(t, 5*time.Second, lp.Duration)
	assert.InDelta(t, 3.5, lp.Elapsed.Seconds(), 0.3)
	assert.InDelta(t, 700, lp.Requests, 70, "200 QPS x 3.5 s")
	assert.InDelta(t, 0.1, float64(lp.Errors)/float64(lp.Requests), 0.04, "every tenth request fails")
	assert.InDelta(t, 200, lp.QPS, 20, "current QPS")
	assert.GreaterOrEqual(t, lp.WindowSeconds, 3.0, "measured since the run's start (window not yet full)")
	assert.Equal(t, http.StatusOK, <-done)
	_, lp = getProgress(t, h, "")
	assert.False(t, lp.Running, "after the run: %+v", lp)
}

// TestProgressWindowIsTheLastSeconds: once the run is longer than perf.LiveWindow, the QPS is
// that of the last 5 to 6 s only (the sampler's ring), not the mean since the start.
func TestProgressWindowIsTheLastSeconds(t *testing.T) {
	rec := newRecorder(load(t, perf.HTTP, "http://127.0.0.1:1/", 100, time.Minute))
	l := &liveRun{counts: rec.counts, start: time.Unix(0, 0), done: make(chan struct{})}
	// 10 s at 100 requests/s, then 10 s at 300: samples every second.
	var n int64
	for s := 0; s <= 20; s++ {
		l.add(time.Unix(int64(s), 0), n)
		rate := int64(100)
		if s >= 10 {
			rate = 300
		}
		if s < 20 {
			for range rate {
				rec.Report(t.Context(), 0, 0, time.Now(), 0.001, true, "200")
			}
			n += rate
		}
	}
	lp := l.progress(time.Unix(20, 500_000_000))
	assert.Equal(t, n, lp.Requests)
	assert.InDelta(t, 5.5, lp.WindowSeconds, 1e-9, "the oldest of 6 samples, 5 s before the last, 0.5 s before now")
	assert.InDelta(t, 1500/5.5, lp.QPS, 1e-6, "the 300/s of the last seconds over the window")
}

func TestProgressNeedsTheToken(t *testing.T) {
	h, err := NewHandler(Config{Token: "0123456789abcdef0123"})
	require.NoError(t, err)
	code, _ := getProgress(t, h, "")
	assert.Equal(t, http.StatusUnauthorized, code)
	code, lp := getProgress(t, h, "Bearer 0123456789abcdef0123")
	assert.Equal(t, http.StatusOK, code)
	assert.False(t, lp.Running)
}
