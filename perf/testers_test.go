package perf

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/hdr"
)

// The shares of a split add up to the load, the first testers taking the remainder.
func TestSplitAddsUp(t *testing.T) {
	p := DefaultParams()
	p.QPS, p.Connections = 1000, 16
	shares, err := p.Split(3)
	require.NoError(t, err)
	var qps, conns []int
	for _, s := range shares {
		qps, conns = append(qps, s.QPS), append(conns, s.Connections)
		assert.Equal(t, p.Duration, s.Duration)
	}
	assert.Equal(t, []int{334, 333, 333}, qps)
	assert.Equal(t, []int{6, 5, 5}, conns)

	one, err := p.Split(1)
	require.NoError(t, err)
	assert.Equal(t, []Params{p}, one)

	p.Connections = 2
	_, err = p.Split(3)
	assert.ErrorContains(t, err, "connections = 2 cannot be split over 3 testers (DAPR_PERF_TESTER_REPLICAS)")
	p.Connections, p.QPS = 4, 2
	_, err = p.Split(3)
	assert.ErrorContains(t, err, "qps = 2 cannot be split over 3 testers")
	_, err = p.Split(0)
	assert.ErrorContains(t, err, "must be at least 1")
}

// An executor is split as k6 splits a test over runners: every count divided, durations kept.
func TestSplitExecutor(t *testing.T) {
	p := DefaultParams()
	p.Executor = driver.Executor{Kind: driver.RampingVUs, Stages: []driver.Stage{
		{Duration: 2 * time.Second, Target: 100}, {Duration: 3 * time.Second, Target: 5000}}}
	shares, err := p.Split(3)
	require.NoError(t, err)
	sum := []int{0, 0}
	for _, s := range shares {
		require.Len(t, s.Executor.Stages, 2)
		for k, st := range s.Executor.Stages {
			sum[k] += st.Target
			assert.Equal(t, p.Executor.Stages[k].Duration, st.Duration)
		}
		require.NoError(t, s.Validate())
	}
	assert.Equal(t, []int{100, 5000}, sum)
	assert.Equal(t, 1667, shares[0].Executor.Stages[1].Target)

	p.Executor = driver.Executor{Kind: driver.SharedIterations, VUs: 10, Iterations: 1000}
	shares, err = p.Split(3)
	require.NoError(t, err)
	assert.EqualValues(t, []int64{334, 333, 333}, []int64{shares[0].Executor.Iterations, shares[1].Executor.Iterations, shares[2].Executor.Iterations})
	assert.Equal(t, 4, shares[0].Executor.VUs)

	p.Executor = driver.Executor{Kind: driver.ConstantVUs, VUs: 2, Duration: time.Second}
	_, err = p.Split(3)
	assert.ErrorContains(t, err, "constant-vus with at most 2 VUs cannot be split over 3 testers")
}

// MergeLatencies gives, percentile for percentile, what one histogram of every value gives,
// with the mean and deviation pooled exactly.
func TestMergeLatenciesIsOneHistogram(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	one := hdr.New()
	var parts []Latency
	ps := []float64{50, 90, 99, 99.9}
	for i := range 3 {
		h := hdr.New()
		for range 5000 + 1000*i {
			d := time.Duration(200_000+rng.ExpFloat64()*float64(300_000*(i+1))) * time.Nanosecond
			h.Record(d)
			one.Record(d)
		}
		l, err := NewLatency(h, ps)
		require.NoError(t, err)
		parts = append(parts, l)
	}
	merged, err := MergeLatencies(parts, ps)
	require.NoError(t, err)
	for _, pv := range merged.Percentiles {
		assert.Equal(t, one.Percentile(pv.P).Seconds(), pv.Seconds, "p%v", pv.P)
	}
	assert.Equal(t, one.Min().Seconds(), merged.MinSeconds)
	assert.Equal(t, one.Max().Seconds(), merged.MaxSeconds)
	assert.InEpsilon(t, one.MeanSeconds(), merged.AvgSeconds, 1e-12)
	assert.InEpsilon(t, one.StdDevSeconds(), merged.StdDevSeconds, 1e-9)

	parts[1].HDR = ""
	_, err = MergeLatencies(parts, ps)
	assert.ErrorContains(t, err, "part 2")
}

// MergeResults sums counts and rates, spans the testers' time, and keeps each tester's result.
func TestMergeResultsSumsAndKeepsEachTester(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	var rs []Result
	for i := range 3 {
		h := hdr.New()
		h.Record(time.Duration(i+1) * time.Millisecond)
		l, err := NewLatency(h, []float64{50})
		require.NoError(t, err)
		rs = append(rs, Result{
			Params: Params{Protocol: HTTP, QPS: 10}, StartTime: t0.Add(time.Duration(i) * 10 * time.Millisecond),
			ActualDuration: time.Second, RequestedQPS: 10, ActualQPS: 9.5, Requests: 1, Sockets: 1, WarmupRequests: 2,
			RetCodes: map[string]int64{"200": 1, "503": int64(i)}, Latency: l, ResponseTime: &l,
			Schedule: Schedule{Scheduled: 10, Late: int64(i), MaxLateSeconds: float64(i)},
			Executor: &ExecutorStats{Kind: driver.ConstantVUs, Iterations: 1, MaxVUs: 2, MaxActiveVUs: 2},
			Timeline: []Second{{T: 0, Requests: 1}},
		})
	}
	p := DefaultParams()
	p.QPS, p.Payload = 30, "secret"
	out, err := MergeResults(p, rs)
	require.NoError(t, err)
	assert.Equal(t, 30, out.Params.QPS)
	assert.Empty(t, out.Params.Payload, "the payload is never stored")
	assert.InDelta(t, 30, out.RequestedQPS, 1e-9)
	assert.InDelta(t, 28.5, out.ActualQPS, 1e-9)
	assert.EqualValues(t, 3, out.Requests)
	assert.EqualValues(t, 6, out.WarmupRequests, "each tester's warm-up requests are summed")
	assert.Equal(t, map[string]int64{"200": 3, "503": 3}, out.RetCodes)
	assert.EqualValues(t, 30, out.Schedule.Scheduled)
	assert.EqualValues(t, 3, out.Schedule.Late)
	assert.Equal(t, 2.0, out.Schedule.MaxLateSeconds)
	assert.Equal(t, t0, out.StartTime)
	assert.Equal(t, time.Second+20*time.Millisecond, out.ActualDuration)
	assert.InDelta(t, 0.02, out.StartSpreadSeconds, 1e-9)
	assert.InDelta(t, 0.002, out.Latency.Percentiles[0].Seconds, 0.002*hdr.MaxRelativeError)
	require.NotNil(t, out.ResponseTime)
	require.NotNil(t, out.Executor)
	assert.EqualValues(t, 3, out.Executor.Iterations)
	assert.Equal(t, 6, out.Executor.MaxActiveVUs)
	assert.Nil(t, out.Timeline, "per-second percentiles do not merge")
	assert.Len(t, out.Testers, 3)
	assert.Equal(t, rs[2].Timeline, out.Testers[2].Timeline)

	rs[1].Params.Protocol = GRPC
	_, err = MergeResults(p, rs)
	assert.ErrorContains(t, err, "tester 2 ran protocol grpc")
}

// A split load aimed at the first tester's daprd goes to each tester's own.
func TestRetarget(t *testing.T) {
	a := TesterClient{URL: "http://127.0.0.1:4000", SidecarHTTP: "http://127.0.0.1:3500", SidecarGRPC: "127.0.0.1:50001"}
	b := TesterClient{URL: "http://127.0.0.1:4001", SidecarHTTP: "http://127.0.0.1:35001", SidecarGRPC: "127.0.0.1:50002"}
	for target, want := range map[string]string{
		"http://127.0.0.1:3500/v1.0/invoke/app/method/test": "http://127.0.0.1:35001/v1.0/invoke/app/method/test",
		"http://127.0.0.1:3500":                             "http://127.0.0.1:35001",
		"127.0.0.1:50001":                                   "127.0.0.1:50002",
		"http://127.0.0.1:35000/test":                       "http://127.0.0.1:35000/test", // another port: an app
		"127.0.0.1:6379":                                    "127.0.0.1:6379",
	} {
		got, err := retarget(target, a, b)
		require.NoError(t, err)
		assert.Equal(t, want, got, target)
	}
	_, err := retarget("127.0.0.1:50001", a, TesterClient{URL: "http://127.0.0.1:4002"})
	assert.ErrorContains(t, err, "has no daprd")
}

// The scenario's testers: names, copies with their own sidecars, and the variable's bounds.
func TestWithTesters(t *testing.T) {
	sc := Scenario{Test: "x", Tester: "tester", Main: Route{To: "app"}, Apps: []App{
		{Name: "tester", Kind: Tester, Sidecar: &Sidecar{AppProtocol: HTTP}}, {Name: "app", Kind: HTTPApp}}}
	three, err := sc.WithTesters(3)
	require.NoError(t, err)
	assert.Equal(t, []string{"tester", "tester-2", "tester-3"}, three.TesterNames())
	require.Len(t, three.Apps, 4)
	assert.NotSame(t, three.Apps[0].Sidecar, three.Apps[2].Sidecar, "each copy has its own sidecar")
	roles := three.Roles()
	assert.Equal(t, RoleTester, roles["tester-3"])
	assert.Equal(t, RoleCallerSidecar, roles["tester-2-daprd"])
	assert.Len(t, sc.Apps, 2, "the scenario itself is not changed")

	_, err = sc.WithTesters(17)
	assert.ErrorContains(t, err, "DAPR_PERF_TESTER_REPLICAS = 17: must be from 1 to 16")
	sc.Apps = append(sc.Apps, App{Name: "tester-2", Kind: HTTPApp})
	_, err = sc.WithTesters(2)
	assert.ErrorContains(t, err, `tester replica "tester-2": an app of that name exists`)

	five := 5
	assert.Equal(t, 5, sc.TesterReplicasFromEnv(Env{TesterReplicas: &five}))
	assert.Equal(t, 1, sc.TesterReplicasFromEnv(Env{}))
}
