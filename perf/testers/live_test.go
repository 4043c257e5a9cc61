package testers_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/daprperf/daprperf/apps/httpapp"
	"github.com/daprperf/daprperf/apps/tester"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/testers"
)

// liveReading is one report of Watch.
type liveReading struct {
	since time.Duration
	lp    perf.LiveProgress
	err   error
}

// TestWatchOnARealTester runs a real tester (its HTTP handler on loopback, with a token)
// loading a real httpapp at 200 QPS for 25 s, and watches it every 10 s as a long phase does:
// it must log two readings, at about 10 and 20 s, each with the current QPS within 5 % of 200,
// about 200 requests per second elapsed, no errors, and none after the watch stopped.
func TestWatchOnARealTester(t *testing.T) {
	if testing.Short() {
		t.Skip("a 25 s load")
	}
	t.Parallel()
	app := httptest.NewServer(httpapp.NewHandler(httpapp.Options{}))
	t.Cleanup(app.Close)
	allow, err := tester.NewAllowList("test", app.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	token := perf.NewTesterToken()
	h, err := tester.NewHandler(tester.Config{Allow: allow, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	client := testers.Client{URL: srv.URL, Token: token}

	p := perf.DefaultParams()
	p.Target, p.QPS, p.Connections, p.Duration = app.URL+"/test", 200, 8, 25*time.Second
	var (
		mu       sync.Mutex
		readings []liveReading
	)
	stop := testers.Watch(client, 10*time.Second, func(since time.Duration, lp perf.LiveProgress, err error) {
		mu.Lock()
		readings = append(readings, liveReading{since, lp, err})
		mu.Unlock()
		t.Logf("  %v: %s (err %v)", since.Round(time.Second), lp, err)
	})
	res, err := testers.RunLoad(t.Context(), client, p)
	stop()
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	n := len(readings)
	mu.Unlock()
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(readings) != n {
		t.Errorf("%d readings after stop", len(readings)-n)
	}
	if len(readings) < 2 {
		t.Fatalf("%d live readings over a 25 s load watched every 10 s, want at least 2: %+v", len(readings), readings)
	}
	var prev int64
	for i, r := range readings[:2] {
		if r.err != nil {
			t.Errorf("reading %d: %v", i, r.err)
			continue
		}
		lp := r.lp
		if !lp.Running || lp.TargetQPS != 200 {
			t.Errorf("reading %d: %+v, want a running 200 QPS load", i, lp)
		}
		if lp.QPS < 190 || lp.QPS > 210 {
			t.Errorf("reading %d: live QPS %.1f, want 200 within 5 %%", i, lp.QPS)
		}
		if want := 200 * lp.Elapsed.Seconds(); float64(lp.Requests) < 0.9*want || float64(lp.Requests) > 1.05*want {
			t.Errorf("reading %d: %d requests after %v, want about %.0f", i, lp.Requests, lp.Elapsed, want)
		}
		if lp.Errors != 0 {
			t.Errorf("reading %d: %d errors", i, lp.Errors)
		}
		if lp.Requests <= prev {
			t.Errorf("reading %d: %d requests, not more than the previous %d", i, lp.Requests, prev)
		}
		prev = lp.Requests
	}
	if prev >= res.Requests {
		t.Errorf("the live count %d reached the final %d before the end", prev, res.Requests)
	}
}

// TestWatchSurvivesASlowTester: a tester whose /progress hangs gives a timeout error per
// poll (PollTimeout), never a stuck watch, and stop returns at once during a poll.
func TestWatchSurvivesASlowTester(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	errs := make(chan error, 10)
	stop := testers.Watch(testers.Client{URL: srv.URL}, 100*time.Millisecond, func(_ time.Duration, _ perf.LiveProgress, err error) { errs <- err })
	select {
	case err := <-errs:
		if err == nil {
			t.Error("a hanging /progress gave no error")
		}
		t.Logf("poll error: %v", err)
	case <-time.After(testers.PollTimeout + 2*time.Second):
		t.Fatal("no report within the poll timeout")
	}
	time.Sleep(500 * time.Millisecond) // the next poll is in flight
	began := time.Now()
	stop()
	if d := time.Since(began); d > 500*time.Millisecond {
		t.Errorf("stop took %v during a poll", d)
	}
	stop() // twice is fine
}
