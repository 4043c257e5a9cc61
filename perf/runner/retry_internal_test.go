package runner

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/daprperf/daprperf/perf"
)

func TestRetryAfter(t *testing.T) {
	invalid := func() *perf.Report {
		return &perf.Report{Validity: perf.Validity{Reasons: []string{"round 1 baseline: generator fell behind"}}}
	}
	assert.True(t, retryAfter(t, invalid(), 1, 1), "an invalid complete run with a retry left")
	assert.False(t, retryAfter(t, invalid(), 2, 1), "no retry left")
	assert.False(t, retryAfter(t, invalid(), 1, 0), "retries off")
	valid := &perf.Report{Validity: perf.Validity{Valid: true}}
	assert.False(t, retryAfter(t, valid, 1, 1), "a valid run is the result")
	incomplete := invalid()
	incomplete.Incomplete = true
	assert.False(t, retryAfter(t, incomplete, 1, 1), "an incomplete run is not a busy machine")
	infra := invalid()
	infra.InfraErrors = []string{"tester exited"}
	assert.False(t, retryAfter(t, infra, 1, 1), "an infrastructure error is not retried")
}
