package report

import (
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/hdr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The mean delivery latency is a gate once anything arrived.
func TestDeliveryGatesMean(t *testing.T) {
	r := &perf.Report{Loads: []perf.NamedLoad{{Name: "main", Result: perf.Result{Requests: 10, RequestedQPS: 10, ActualQPS: 10}}},
		Delivery: &perf.DeliveryReport{DrainWindowSeconds: 15, Received: 10, Latency: perf.Latency{AvgSeconds: 0.0042}}}
	g := map[string]float64{}
	deliveryGates(r, g)
	assert.InDelta(t, 0.0042, g["delivery.mean"], 1e-12)
	r.Delivery.Received = 0
	g = map[string]float64{}
	deliveryGates(r, g)
	assert.NotContains(t, g, "delivery.mean", "nothing arrived: no mean to gate")
}

// Fill: Dapr's trigger rate is fired over the time from the end of the scheduling to the last
// first trigger; with a job never fired, that time is the window and AllFired is false; the
// gates carry every count.
func TestJobsReportFillAndGates(t *testing.T) {
	end := time.Unix(100, 0)
	st := perf.JobAppStats{Scheduled: 1000, Fired: 1000, LagSeconds: map[string]float64{"p50": 0.01, "p90": 0.02, "p99": 0.05},
		FirstFireUnixNano: end.Add(-4 * time.Second).UnixNano(), LastFirstFireUnixNano: end.Add(time.Second).UnixNano(),
		LastFireUnixNano: end.Add(3 * time.Second).UnixNano(), FiredTwice: 2, ExtraFires: 2}
	jr := &perf.JobsReport{WindowSeconds: 120, ScheduleSeconds: 5}
	jr.Fill(st, end)
	assert.True(t, jr.AllFired)
	assert.InDelta(t, 1.0, jr.AllFiredSeconds, 1e-9, "to the last first trigger, not the later duplicate")
	assert.InDelta(t, 1000.0, jr.TriggerRate, 1e-6)
	assert.InDelta(t, 200.0, jr.TriggerThroughput, 1e-6)
	r := &perf.Report{Jobs: jr}
	g := map[string]float64{}
	jobsGates(r, g)
	assert.Equal(t, 2.0, g["jobs.firedTwice"])
	assert.Equal(t, 0.05, g["jobs.lag.p99"])
	assert.Equal(t, 0.0, g["jobs.neverFired"])

	st.Fired, st.NeverFired = 990, 10
	jr = &perf.JobsReport{WindowSeconds: 120, ScheduleSeconds: 5}
	jr.Fill(st, end)
	assert.False(t, jr.AllFired)
	assert.Equal(t, 120.0, jr.AllFiredSeconds)
	g = map[string]float64{}
	jobsGates(&perf.Report{Jobs: jr}, g)
	assert.Equal(t, 10.0, g["jobs.neverFired"])
	var b strings.Builder
	jobsTable(&b, &perf.Report{Jobs: jr})
	assert.Contains(t, b.String(), "NEVER FIRED 10")
}

func TestReminderReportFill(t *testing.T) {
	due := time.Now()
	nth, last := due.Add(2*time.Second), due.Add(3*time.Second)
	rr := &perf.ReminderReport{Due: due, ExpectedFires: 1000}
	rr.Fill(perf.ActorStats{ReminderFiresTimed: 1200, RemindersFired: 200, MaxFiresPerReminder: 6, ReminderNthFire: &nth, ReminderLastTimedFire: &last,
		ReminderLagSeconds: map[string]float64{"p99": 1.5}})
	if rr.Missing != 0 || rr.TriggerSeconds != 2 || rr.TriggerRate != 500 {
		t.Errorf("all in: missing %d, %g s, rate %g; want 0, 2 s (to the 1000th fire), 500/s", rr.Missing, rr.TriggerSeconds, rr.TriggerRate)
	}
	rr = &perf.ReminderReport{Due: due, ExpectedFires: 1000, WindowSeconds: 100}
	rr.Fill(perf.ActorStats{ReminderFiresTimed: 600, ReminderLastTimedFire: &last})
	if rr.Missing != 400 || rr.TriggerSeconds != 3 || rr.TriggerRate != 200 {
		t.Errorf("short: missing %d, %g s, rate %g; want 400, 3 s (to the last fire), 200/s", rr.Missing, rr.TriggerSeconds, rr.TriggerRate)
	}
	gates := map[string]float64{}
	reminderGates(&perf.Report{Reminders: rr, Loads: []perf.NamedLoad{{Name: "registration", Result: perf.Result{ActualQPS: 900}}}}, gates)
	if gates["qps"] != 900 || gates["reminders.missing"] != 400 || gates["reminders.triggerRate"] != 200 {
		t.Errorf("gates = %v", gates)
	}
}

// TestPerEventFigures: a phase of bulk or repeated publishes states its events per request,
// and the summary its latency per event.
func TestPerEventFigures(t *testing.T) {
	res := func(op perf.Operation, mean float64) perf.Result {
		h := hdr.New()
		for range 10 {
			h.Record(time.Duration(mean * 1e9))
		}
		l, err := perf.NewLatency(h, perf.DefaultPercentiles)
		require.NoError(t, err)
		return perf.Result{Params: perf.Params{Operation: op}, RequestedQPS: 200, ActualQPS: 200, Requests: 10, RetCodes: map[string]int64{"OK": 10}, Latency: l}
	}
	singles := perf.Operation{Kind: perf.OpPublish, PubSub: "p", Topic: "t", Repeat: 100}
	bulk := perf.Operation{Kind: perf.OpPublishBulk, PubSub: "p", Topic: "t", BulkEntries: 100}
	r := &perf.Report{Rounds: []perf.Round{{Baseline: res(singles, 0.02), Main: res(bulk, 0.004)}}}
	f := DeriveFigures(r)
	require.Len(t, f.Phases, 2)
	assert.Equal(t, 100, f.Phases[0].EventsPerRequest)
	assert.Equal(t, 100, f.Phases[1].EventsPerRequest)
	var b strings.Builder
	perEventLines(&b, &f)
	assert.Contains(t, b.String(), "baseline per event (100 events per request): mean 200.0 µs")
	assert.Contains(t, b.String(), "main per event (100 events per request): mean 40.0 µs")
	assert.Contains(t, b.String(), "20000 events/s")
}

func TestActorFiguresAndGates(t *testing.T) {
	r := &perf.Report{Actors: []perf.ActorStats{
		{App: "a", Activations: 10, DoubleActivations: 0, TimersRegistered: 10, TimerFires: 10, TimerLagSeconds: map[string]float64{"p99": 0.004}},
		{App: "b", Activations: 5, DoubleActivations: 2, Errors: 1, TimersRegistered: 5, TimerFires: 3, TimerLagSeconds: map[string]float64{"p99": 0.009}},
	}}
	f := DeriveFigures(r)
	assert.Equal(t, 15.0, f.Gates["actors.activations"])
	assert.Equal(t, 2.0, f.Gates["actors.doubleActivations"])
	assert.Equal(t, 1.0, f.Gates["actors.errors"])
	assert.Equal(t, 2.0, f.Gates["actors.timersUnfired"])
	assert.Equal(t, 0.009, f.Gates["actors.timerLag.p99"])
	vs := Evaluate([]perf.Threshold{{Figure: "actors.doubleActivations", Op: perf.AtMost, Limit: 0, Source: "s"}}, f.Gates)
	require.Len(t, vs, 1)
	assert.False(t, vs[0].Pass)
	assert.Equal(t, "actors.doubleActivations = 2, at most 0 (s): FAIL", vs[0].String())
	assert.Contains(t, actorSummary(r.Actors), "2 double activations")
}

// A delivery run with a baseline (the configuration subscription straight to the store): its
// first load gates baseline.mean and baseline.<p>, the main load stays the last, the overhead
// is main minus baseline, and the summary shows the baseline's rows and counts; with the main
// load missing, no main figure is taken from the baseline.
func TestDeliveryGatesWithABaseline(t *testing.T) {
	lat := func(mean float64) perf.Latency {
		l := perf.Latency{AvgSeconds: mean}
		for _, p := range perf.OverheadPercentiles {
			l.Percentiles = append(l.Percentiles, perf.PercentileValue{P: p, Seconds: mean * (1 + p/100)})
		}
		return l
	}
	exec := perf.Params{Executor: driver.Executor{Kind: driver.ConstantVUs, VUs: 5, Duration: time.Second}, Await: &perf.Await{Timeout: time.Minute, Timed: true}}
	base := perf.Result{Requests: 100, Latency: lat(0.010), Params: exec}
	main := perf.Result{Requests: 100, Latency: lat(0.025), Params: exec}
	r := &perf.Report{Plan: perf.KindDelivery, Params: exec,
		Loads: []perf.NamedLoad{{Name: perf.PhaseBaseline, Result: base}, {Name: "main publish", Result: main}},
		Delivery: &perf.DeliveryReport{Mode: perf.SubscribeConfiguration, DrainWindowSeconds: 15, Sent: 100, Received: 100, Latency: lat(0.02),
			Baseline: &perf.DeliveryReport{Sent: 100, Received: 99, Lost: 1, Latency: lat(0.008), DrainComplete: true}}}
	var err error
	r.Overhead, err = ComputeOverheads([]perf.Round{{Baseline: base, Main: main}})
	require.NoError(t, err)
	f := DeriveFigures(r)
	assert.InDelta(t, 0.010, f.Gates["baseline.mean"], 1e-12)
	assert.InDelta(t, 0.0199, f.Gates["baseline.p99"], 1e-12)
	assert.InDelta(t, 0.025, f.Gates["latency.mean"], 1e-12, "the main load's, not the baseline's")
	assert.InDelta(t, 0.015, f.Gates["overhead.mean"], 1e-12)
	assert.Empty(t, f.NoOverhead)
	var b strings.Builder
	deliveryTable(&b, r)
	out := b.String()
	assert.Contains(t, out, "baseline: update request and wait (ms)")
	assert.Contains(t, out, "baseline (the subscriber on the store's own notifications, no daprd): sent 100, received 99, LOST 1")
	assert.Contains(t, out, "sidecar overhead (main minus baseline, one run each, no interval): mean +15.000 ms, p50 +22.500 ms, p90 +28.500 ms, p99 +29.850 ms")

	r.Loads = r.Loads[:1]
	g := map[string]float64{}
	deliveryGates(r, g)
	assert.Contains(t, g, "baseline.mean")
	assert.NotContains(t, g, "latency.mean", "the main load did not complete")
}

// The summary names each sidecar's profiles: the load, the CPU and its top functions, the
// allocation, the files, and what was not read.
func TestProfilesSummary(t *testing.T) {
	var b strings.Builder
	profilesSummary(&b, []perf.SidecarProfiles{{Process: "app-daprd", Role: "callee-sidecar", During: "round 1", CPUWindowSeconds: 30, CPUSampleSeconds: 4.5,
		TopCPU:     []perf.FunctionShare{{Function: "runtime.mallocgc", Flat: 0.123, Cum: 0.2}, {Function: "syscall.Syscall", Flat: 0.1, Cum: 0.1}},
		AllocBytes: 3 << 20, InUseGrowthBytes: -1 << 19, Goroutines: 42,
		Files:  map[string]string{"cpu": "profiles/t/app-daprd.cpu.pb.gz", "heap-end": "profiles/t/app-daprd.heap-end.pb.gz"},
		Errors: []string{"goroutine: GET x: 404"}}})
	out := b.String()
	assert.Contains(t, out, "profiles of app-daprd (callee-sidecar) during round 1: 4.50 s of CPU sampled in a 30 s window; 3.0 MiB allocated, heap in use -0.5 MiB, 42 goroutines at the end")
	assert.Contains(t, out, "  CPU, flat (cumulative): runtime.mallocgc 12.3 % (20.0 %); syscall.Syscall 10.0 % (10.0 %)\n")
	assert.NotContains(t, out, "allocated, flat", "no allocation sites: no line")
	assert.Contains(t, out, "  files (go tool pprof): profiles/t/app-daprd.cpu.pb.gz profiles/t/app-daprd.heap-end.pb.gz\n")
	assert.Contains(t, out, "  NOT READ: goroutine: GET x: 404")
}

// An A/B run's profile diff names only the changes beyond sampling noise, or says there are
// none, with both sample counts.
func TestProfileDiffSummary(t *testing.T) {
	var b strings.Builder
	profileDiffSummary(&b, []perf.ProfileDiff{
		{Role: "callee-sidecar", Kind: "cpu", SamplesA: 900, SamplesB: 1000, Functions: []perf.FunctionDelta{
			{Function: "encoding/json.Marshal", A: 0.02, B: 0.08, Delta: 0.06, Beyond: true}, {Function: "noise", A: 0.1, B: 0.11, Delta: 0.01}}},
		{Role: "caller-sidecar", Kind: "alloc", SamplesA: 36, SamplesB: 36, Functions: []perf.FunctionDelta{{Function: "noise", A: 0.1, B: 0.15, Delta: 0.05}}},
	})
	assert.Equal(t, "profile diff, callee-sidecar's CPU, B - A (flat share; 900 and 1000 samples): encoding/json.Marshal +6.0 pts (2.0 -> 8.0 %)\n"+
		"profile diff, caller-sidecar's bytes allocated, B - A (flat share; 36 and 36 samples): no function's share changed beyond sampling noise\n", b.String())
}
