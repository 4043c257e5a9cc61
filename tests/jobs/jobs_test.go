//go:build perf

package jobs_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

func TestJobSchedulingPerformance(t *testing.T) {
	scenarios.Run(t, scenarios.JobsScheduling())
}

func TestJobTriggerPerformance(t *testing.T) {
	scenarios.Run(t, scenarios.JobsTriggering())
}
