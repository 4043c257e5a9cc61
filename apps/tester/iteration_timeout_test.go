package tester

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
)

// TestIterationTimeout: a shared iteration (one whole workflow) is bounded by its run, every
// other driver load's request by k6's default request timeout, 60 s.
func TestIterationTimeout(t *testing.T) {
	shared := perf.Params{Executor: driver.Executor{Kind: driver.SharedIterations, VUs: 2, Iterations: 4, Duration: 200 * time.Second}}
	assert.Equal(t, 230*time.Second, iterationTimeout(shared), "maxDuration plus k6's 30 s graceful stop")
	ramp := perf.Params{Executor: driver.Executor{Kind: driver.RampingVUs, Stages: []driver.Stage{{Duration: time.Minute, Target: 5}}}}
	assert.Equal(t, 60*time.Second, iterationTimeout(ramp), "k6's default request timeout")
	assert.Equal(t, 60*time.Second, iterationTimeout(perf.Params{}))
	short := perf.Params{Executor: driver.Executor{Kind: driver.SharedIterations, VUs: 1, Iterations: 1, Duration: 10 * time.Second}}
	assert.Equal(t, 60*time.Second, iterationTimeout(short), "never below k6's request timeout")
}
