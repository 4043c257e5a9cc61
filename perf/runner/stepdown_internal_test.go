package runner

import (
	"os"
	"testing"

	"github.com/daprperf/daprperf/perf/plan"

	"github.com/daprperf/daprperf/perf"

	"github.com/stretchr/testify/assert"
)

func TestStepDownTo(t *testing.T) {
	pf := &perf.Preflight{RequestedQPS: 1000, ChosenQPS: 500, Ladder: []int{1000, 500, 250, 100}}
	invalid := func(qps int) *perf.Report {
		return &perf.Report{Params: perf.Params{QPS: qps}, Preflight: pf, Validity: perf.Validity{Reasons: []string{"round 1 main: behind"}}}
	}
	assert.Equal(t, 250, stepDownTo(t, invalid(500)), "the ladder's next load")
	assert.Equal(t, 100, stepDownTo(t, invalid(250)))
	assert.Equal(t, 0, stepDownTo(t, invalid(100)), "the ladder ends")

	valid := invalid(500)
	valid.Validity = perf.Validity{Valid: true}
	assert.Equal(t, 0, stepDownTo(t, valid), "a valid run is the result")
	named := invalid(500)
	named.Preflight = nil
	assert.Equal(t, 0, stepDownTo(t, named), "no preflight: the load was named")
	cut := invalid(500)
	cut.Incomplete = true
	assert.Equal(t, 0, stepDownTo(t, cut), "an incomplete run is not stepped down")
	infra := invalid(500)
	infra.InfraErrors = []string{"read exits: refused"}
	assert.Equal(t, 0, stepDownTo(t, infra), "an infrastructure error is not stepped down")

	assert.Equal(t, "round 1 main: behind", firstReason([]string{"round 1 main: behind", "hint: x"}))
	assert.Equal(t, "no reason given", firstReason([]string{"hint: x"}))
}

func TestStepDownPossible(t *testing.T) {
	t.Setenv(perf.EnvQPS, "1") // restored after the test
	os.Unsetenv(perf.EnvQPS)
	sc := perf.Scenario{Plan: plan.OverheadPlan{}}
	cfg := perf.RunConfig{PreflightLadder: true, Main: perf.Params{QPS: 1000}}
	assert.True(t, stepDownPossible(sc, runConfig{RunConfig: cfg}), "the overhead plan under the ladder")
	cfg.Main.QPS = 100
	assert.False(t, stepDownPossible(sc, runConfig{RunConfig: cfg}), "a ladder of one load")
	cfg.Main.QPS = 1000
	cfg.PreflightLadder = false
	assert.False(t, stepDownPossible(sc, runConfig{RunConfig: cfg}), "no preflight")
	cfg.PreflightLadder = true
	sc.Plan = &plan.JobTriggerPlan{}
	assert.False(t, stepDownPossible(sc, runConfig{RunConfig: cfg}), "a plan without a preflight")
}
