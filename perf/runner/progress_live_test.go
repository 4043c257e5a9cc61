package runner

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/testers"
)

// logRecorder is a testing.TB that keeps what is logged.
type logRecorder struct {
	testing.TB
	mu    sync.Mutex
	lines []string
}

func (l *logRecorder) Helper() {}
func (l *logRecorder) Log(args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprint(args...))
}
func (l *logRecorder) Logf(format string, args ...any) { l.Log(fmt.Sprintf(format, args...)) }
func (l *logRecorder) got() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// TestLongPhaseLogsTheTestersLiveFigures: with watchTester set, a 20 s phase logs, every
// progressTick, the tester's live reading with its token, and stops with the phase; a short
// phase polls nothing.
func TestLongPhaseLogsTheTestersLiveFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("waits one 10 s tick")
	}
	t.Parallel()
	var mu sync.Mutex
	var auths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		_ = json.NewEncoder(w).Encode(perf.LiveProgress{Running: true, TargetQPS: 500, Duration: 20 * time.Second,
			Elapsed: 10 * time.Second, Requests: 5003, Errors: 2, QPS: 499.84, WindowSeconds: 5.2})
	}))
	t.Cleanup(srv.Close)
	rec := &logRecorder{TB: t}
	p := &progress{t: rec, start: time.Now(), expected: time.Minute}
	p.watchTester(testers.Client{URL: srv.URL, Token: "tok-0123456789abcdef"})

	p.phase("short", 5*time.Second)() // below 2 ticks: no poll
	done := p.phase("round 1/1: main", 20*time.Second)
	time.Sleep(progressTick + 700*time.Millisecond)
	began := time.Now()
	done()
	if d := time.Since(began); d > time.Second {
		t.Errorf("done took %v", d)
	}
	time.Sleep(200 * time.Millisecond)
	lines := rec.got()
	var live []string
	for _, l := range lines {
		if strings.HasPrefix(l, "  ") {
			live = append(live, l)
		}
	}
	want := "  round 1/1: main: 10s of 20s; live 499.8 QPS (target 500), 5003 requests, 2 errors at 10s"
	if len(live) != 1 || live[0] != want {
		t.Errorf("live lines %q, want [%q]; all: %q", live, want, lines)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auths) != 1 || auths[0] != "GET /progress Bearer tok-0123456789abcdef" {
		t.Errorf("polls %q, want one GET /progress with the token", auths)
	}
}

// TestLiveLineSaysWhyThereAreNoFigures: a failed poll is a line, not a failure.
func TestLiveLineSaysWhyThereAreNoFigures(t *testing.T) {
	got := liveLine("main", 10*time.Second, 30*time.Second, perf.LiveProgress{}, fmt.Errorf("context deadline exceeded"))
	if want := "  main: 10s of 30s; live figures unavailable: context deadline exceeded"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := (perf.LiveProgress{}).String(); got != "no load in progress" {
		t.Errorf("idle: %q", got)
	}
	if got := (perf.LiveProgress{Running: true, QPS: 1234.56, Requests: 10, Elapsed: 1500 * time.Millisecond}).String(); got != "live 1234.6 QPS (max rate), 10 requests, 0 errors at 2s" {
		t.Errorf("max rate: %q", got)
	}
}
