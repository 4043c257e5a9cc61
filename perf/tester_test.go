package perf_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
)

func TestTesterLimitsFor(t *testing.T) {
	main := perf.DefaultParams()
	main.QPS, main.Connections, main.Duration = 1000, 16, time.Minute
	warmup := perf.DefaultParams()
	warmup.QPS, warmup.Connections, warmup.Duration = 100, 32, 10*time.Second
	assert.Equal(t, perf.TesterLimits{MaxQPS: 2000, MaxConnections: 64, MaxDuration: 2 * time.Minute, MaxIterations: 120_000},
		perf.TesterLimitsFor(main, warmup), "the largest of each, times TesterLoadMargin")

	huge := perf.DefaultParams()
	huge.QPS, huge.Connections, huge.Duration = perf.MaxQPS, perf.MaxConnections, perf.MaxDuration
	assert.Equal(t, perf.TesterLimits{MaxQPS: perf.MaxQPS, MaxConnections: perf.MaxConnections, MaxDuration: perf.MaxDuration, MaxIterations: driver.MaxIterations},
		perf.TesterLimitsFor(huge), "capped at the absolute limits")
	shared := perf.DefaultParams()
	shared.Executor = driver.Executor{Kind: driver.SharedIterations, VUs: 30, Iterations: 300, Duration: time.Minute}
	ramp := perf.DefaultParams()
	ramp.Executor = driver.Executor{Kind: driver.RampingVUs, Stages: []driver.Stage{{Duration: 8 * time.Second, Target: 500}}}
	assert.Equal(t, perf.TesterLimits{MaxQPS: 2, MaxConnections: 1000, MaxDuration: 3 * time.Minute, MaxIterations: 600},
		perf.TesterLimitsFor(shared, ramp), "VUs count as connections, the schedule plus graceful stop as duration, shared iterations as requests")
	maxRate := perf.DefaultParams()
	maxRate.MaxRate = true
	assert.Equal(t, perf.MaxQPS, perf.TesterLimitsFor(maxRate).MaxQPS, "a max-rate load needs the absolute bound")
	for _, l := range []perf.TesterLimits{perf.TesterLimitsFor(main, warmup), perf.TesterLimitsFor(huge), {}} {
		assert.NoError(t, l.Validate())
	}
	err := perf.TesterLimits{MaxQPS: -1, MaxConnections: perf.MaxConnections + 1, MaxDuration: time.Millisecond}.Validate()
	for _, want := range []string{"maxQPS = -1", "maxConnections = 10001", "maxDuration = 1ms"} {
		assert.ErrorContains(t, err, want)
	}
}

func TestTesterArgs(t *testing.T) {
	assert.Equal(t, []string{"-allow=127.0.0.1:3500,127.0.0.1:50001", "-max-qps=2000", "-max-connections=32", "-max-duration=2m0s"},
		perf.TesterArgs([]string{"127.0.0.1:3500", "127.0.0.1:50001"}, perf.TesterLimits{MaxQPS: 2000, MaxConnections: 32, MaxDuration: 2 * time.Minute}))
	assert.Empty(t, perf.TesterArgs(nil, perf.TesterLimits{}), "nothing given, nothing passed")
	a, b := perf.NewTesterToken(), perf.NewTesterToken()
	assert.Len(t, a, 26)
	assert.NotEqual(t, a, b, "a new token per run")
}
