package tester

import (
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/hdr"
)

// A closed-loop load has a second-by-second timeline, as fortio's: each second's iterations,
// failures and service-time percentiles, the seconds from the run's start; a run that left
// answers out ends its timeline before the second of the first one.
func TestDriverResultHasATimeline(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	svc := hdr.New()
	res := &driver.Result{Executor: driver.Executor{Kind: driver.ConstantVUs, VUs: 2, Duration: 3 * time.Second}, Start: start,
		Elapsed: 3 * time.Second, Service: svc, Codes: map[string]int64{"200": 5},
		Answers: []driver.Answer{
			{End: at(100), Service: 10 * time.Millisecond}, {End: at(900), Service: 30 * time.Millisecond},
			{End: at(1500), Service: 20 * time.Millisecond, Failed: true},
			{End: at(2100), Service: 40 * time.Millisecond}, {End: at(2200), Service: 50 * time.Millisecond},
		}}
	for _, a := range res.Answers {
		svc.Record(a.Service)
	}
	p := perf.Params{Executor: res.Executor, Protocol: perf.HTTP}
	out, err := convertDriver(p, res)
	if err != nil {
		t.Fatal(err)
	}
	want := []perf.Second{
		{T: 0, Requests: 2, P50Seconds: 0.010, P90Seconds: 0.030, P99Seconds: 0.030, MaxSeconds: 0.030},
		{T: 1, Requests: 1, Errors: 1, P50Seconds: 0.020, P90Seconds: 0.020, P99Seconds: 0.020, MaxSeconds: 0.020},
		{T: 2, Requests: 2, P50Seconds: 0.040, P90Seconds: 0.050, P99Seconds: 0.050, MaxSeconds: 0.050},
	}
	if len(out.Timeline) != len(want) {
		t.Fatalf("timeline %+v, want %+v", out.Timeline, want)
	}
	for i := range want {
		if out.Timeline[i] != want[i] {
			t.Errorf("second %d: %+v, want %+v", i, out.Timeline[i], want[i])
		}
	}
	res.AnswersCut = at(2050)
	if out, _ = convertDriver(p, res); len(out.Timeline) != 2 {
		t.Errorf("with answers left out from 2.05 s: %d seconds, want 2", len(out.Timeline))
	}
}
