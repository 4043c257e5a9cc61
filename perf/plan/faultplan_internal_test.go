package plan

import (
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf/driver"
)

func ramp(peak int, stage time.Duration) driver.Executor {
	return driver.Executor{Kind: driver.RampingVUs, Stages: []driver.Stage{{Duration: stage, Target: peak / 5}, {Duration: stage, Target: 3 * peak / 5}, {Duration: stage, Target: peak}},
		GracefulStop: 10 * time.Second}
}

func faultScenario(fp *FaultPlan) perf.Scenario {
	return perf.Scenario{Test: "faults", Transport: perf.HTTP, Tester: "tester", Main: perf.Route{To: "h0", ThroughSidecar: true},
		Apps:          []perf.App{{Name: "tester", Kind: perf.Tester}, {Name: "h0", Kind: perf.ActorApp}, {Name: "h1", Kind: perf.ActorApp}},
		WarmupOptions: []perf.Option{perf.WithQPS(10), perf.WithDuration(time.Second)}, Plan: fp}
}

// TestFaultPlanPhases: Dapr's 3 x 5 s ramps as given; DAPR_TEST_DURATION=10s scales each to
// 10 s and the window to at most the faults phase; DAPR_PERF_QPS does not change the VUs.
func TestFaultPlanPhases(t *testing.T) {
	plan := func() *FaultPlan {
		return &FaultPlan{Hosts: []string{"h0", "h1"}, Base: ramp(500, 5*time.Second), Faults: ramp(60, 5*time.Second),
			Delay: 50 * time.Millisecond, FailFraction: 0.1, Window: 15 * time.Second}
	}
	t.Run("Dapr's", func(t *testing.T) {
		p := plan()
		sc := faultScenario(p)
		var cfg perf.RunConfig
		fp := mustConfigure(t, p, sc, &cfg).(*faultRun)
		assert.Equal(t, 15*time.Second, fp.base.Executor.ScheduleDuration())
		assert.Equal(t, 500, fp.base.Executor.PeakVUs())
		assert.Equal(t, 60, fp.faults.Executor.PeakVUs())
		assert.Equal(t, 15*time.Second, fp.window)
		assert.Equal(t, fp.base, cfg.Main)
	})
	t.Run("smoke", func(t *testing.T) {
		t.Setenv(perf.EnvDuration, "10s")
		t.Setenv(perf.EnvQPS, "100")
		p := plan()
		sc := faultScenario(p)
		fp := mustConfigure(t, p, sc, &perf.RunConfig{}).(*faultRun)
		for _, p := range []perf.Params{fp.base, fp.faults} {
			assert.LessOrEqual(t, p.Executor.ScheduleDuration(), 10*time.Second)
			assert.Greater(t, p.Executor.ScheduleDuration(), 9900*time.Millisecond)
			assert.Len(t, p.Executor.Stages, 3)
		}
		assert.Equal(t, 500, fp.base.Executor.PeakVUs(), "the VUs are the schedule's")
		assert.Equal(t, fp.faults.Executor.ScheduleDuration(), fp.window)
		assert.Equal(t, *plan(), *p, "the plan as given is unchanged")
	})
}

func TestFaultPlanErrorsNameTheField(t *testing.T) {
	fp := &FaultPlan{Hosts: []string{"h0", "tester", "nope"}, Base: driver.Executor{Kind: driver.ConstantArrivalRate, Rate: 10, MaxVUs: 1, Duration: time.Second},
		Faults: ramp(10, time.Second), Delay: -time.Millisecond, FailFraction: 1.5}
	err := configureErr(fp, faultScenario(fp), &perf.RunConfig{})
	require.Error(t, err)
	for _, w := range []string{`Hosts: "tester" is not an app of kind`, `Hosts: "nope"`, "Delay = -1ms: must be >= 0", "FailFraction = 1.5: must be in [0, 1]",
		`base: executor kind "constant-arrival-rate": must be a closed loop`, "Window = 0s: must be > 0"} {
		assert.Contains(t, err.Error(), w)
	}
	none := &FaultPlan{Base: ramp(10, time.Second), Faults: ramp(10, time.Second), Window: time.Second}
	assert.ErrorContains(t, configureErr(none, faultScenario(none), &perf.RunConfig{}), "Hosts is empty")
}

// TestFaultFiguresExcuseOnlyInjected500s: the injected 500s are excused, nothing else is: a
// 500 beyond the injected count (another replica failing, or a fault outside its window that
// the host did not count), a 503 or a socket error makes errors.other > 0 and the gate fail.
func TestFaultFiguresExcuseOnlyInjected500s(t *testing.T) {
	load := func(name string, codes map[string]int64) perf.NamedLoad {
		return perf.NamedLoad{Name: name, Result: perf.Result{Params: perf.Params{Protocol: perf.HTTP}, RetCodes: codes}}
	}
	hosts := func(failed ...int64) []perf.ActorStats {
		var out []perf.ActorStats
		for _, f := range failed {
			out = append(out, perf.ActorStats{Faults: &perf.FaultStats{Calls: 10 * f, Failed: f}})
		}
		return append(out, perf.ActorStats{}) // a host without a window
	}
	gate := []perf.Threshold{{Figure: "errors.other", Op: perf.AtMost, Limit: 0}}
	for _, tc := range []struct {
		name                    string
		base, faults            map[string]int64
		injected                []int64
		errs, e500, inj, others float64
	}{
		{"only the injected", map[string]int64{"200": 1000}, map[string]int64{"200": 90, "500": 10}, []int64{10}, 10, 10, 10, 0},
		{"daprd relayed fewer than injected", map[string]int64{"200": 1000}, map[string]int64{"200": 92, "500": 8}, []int64{10}, 8, 8, 10, 0},
		{"a 500 outside the window", map[string]int64{"200": 999, "500": 1}, map[string]int64{"200": 90, "500": 10}, []int64{10}, 11, 11, 10, 1},
		{"another replica's 500s", map[string]int64{"200": 1000}, map[string]int64{"200": 85, "500": 15}, []int64{10}, 15, 15, 10, 5},
		{"a 503 and a timeout", map[string]int64{"200": 1000, "503": 1}, map[string]int64{"200": 88, "500": 10, "-1": 2}, []int64{10}, 13, 10, 10, 3},
		{"no window at all", map[string]int64{"200": 1000, "500": 2}, map[string]int64{"200": 100}, nil, 2, 2, 0, 2},
		{"two windows", map[string]int64{"200": 1000}, map[string]int64{"200": 80, "500": 20}, []int64{10, 10}, 20, 20, 20, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &perf.Report{Plan: perf.KindFaults, Loads: []perf.NamedLoad{load(FaultPhaseBase, tc.base), load(FaultPhaseFaults, tc.faults)}, Actors: hosts(tc.injected...)}
			f := report.DeriveFigures(r)
			assert.Equal(t, tc.errs, f.Gates["errors"])
			assert.Equal(t, tc.e500, f.Gates["errors.500"])
			assert.Equal(t, tc.inj, f.Gates["errors.injected"])
			assert.Equal(t, tc.others, f.Gates["errors.other"])
			assert.Equal(t, 10*tc.inj, f.Gates["faults.calls"])
			require.Len(t, f.Phases, 2)
			assert.Equal(t, FaultPhaseFaults, f.Phases[1].Phase)
			v := report.Evaluate(gate, f.Gates)[0]
			assert.Equal(t, tc.others == 0, v.Pass, v.String())
		})
	}
}

func TestCapSchedule(t *testing.T) {
	ex := ramp(500, 5*time.Second)
	assert.Equal(t, ex, capSchedule(ex, 20*time.Second), "within the cap: unchanged")
	got := capSchedule(ex, 3*time.Second)
	assert.Equal(t, []driver.Stage{{Duration: time.Second, Target: 100}, {Duration: time.Second, Target: 300}, {Duration: time.Second, Target: 500}}, got.Stages)
	assert.Equal(t, 5*time.Second, ex.Stages[0].Duration, "the input is not changed")
	c := capSchedule(driver.Executor{Kind: driver.ConstantVUs, VUs: 5, Duration: time.Minute}, 10*time.Second)
	assert.Equal(t, 10*time.Second, c.Duration)
}

// TestFaultPlanRoles: the actor's host is the app, whichever replica it is, and so is every
// other host replica.
func TestFaultPlanRoles(t *testing.T) {
	fp := &FaultPlan{Hosts: []string{"h0", "h1"}}
	roles := fp.roles(faultScenario(fp), "h1")
	assert.Equal(t, perf.RoleApp, roles["h1"])
	assert.Equal(t, perf.RoleCalleeSidecar, roles[perf.SidecarName("h1")])
	assert.Equal(t, perf.RoleApp, roles["h0"], "a replica, and Main.To")
	assert.Equal(t, perf.RoleCalleeSidecar, roles[perf.SidecarName("h0")])
	assert.Equal(t, perf.RoleTester, roles["tester"])
}
