package perf

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf/driver"
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
