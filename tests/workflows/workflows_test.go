//go:build perf

// Package workflows mirrors Dapr's tests/perf/workflows: its six tests, with their names, on
// the backend DAPR_PERF_WORKFLOW_BACKEND names (postgresql by default, redis or in-memory; Dapr's
// DAPR_PERF_WORKFLOW_BACKEND_NAME). `make perf-workflows` runs the package once per backend.
package workflows_test

import (
	"strconv"
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// run runs sc on the run's backend, as a subtest under Dapr's name for its loads
// (scenarios.WorkflowSubtest: "[T_30_300]:_").
func run(t *testing.T, sc func(string) perf.Scenario) {
	s := sc("")
	t.Run(scenarios.WorkflowSubtest(s), func(t *testing.T) { scenarios.Run(t, s) })
}

// TestWorkflowWithConstantVUs: sum_series_wf, 30 VUs x 300 iterations, three times on one app.
func TestWorkflowWithConstantVUs(t *testing.T) { run(t, scenarios.WorkflowWithConstantVUs) }

// TestWorkflowWithConstantIterations: sum_series_wf, 30, 60 and 90 VUs x 300, each fresh.
func TestWorkflowWithConstantIterations(t *testing.T) {
	run(t, scenarios.WorkflowWithConstantIterations)
}

// TestSeriesWorkflowWithMaxVUs: sum_series_wf, 350 VUs x 1400.
func TestSeriesWorkflowWithMaxVUs(t *testing.T) { run(t, scenarios.SeriesWorkflowWithMaxVUs) }

// TestParallelWorkflowWithMaxVUs: sum_parallel_wf (fan-out/fan-in), 110 VUs x 440.
func TestParallelWorkflowWithMaxVUs(t *testing.T) { run(t, scenarios.ParallelWorkflowWithMaxVUs) }

// TestWorkflowWithDifferentPayloads: state_wf with 10, 50 and 100 KB, 30 VUs x 300, each its
// own result, under Dapr's subtests "[T_30_300]:_", "[T_30_300]:_#01" and "[T_30_300]:_#02".
func TestWorkflowWithDifferentPayloads(t *testing.T) {
	for _, n := range scenarios.WorkflowPayloadSizes {
		s := scenarios.WorkflowWithPayload("", n)
		// Dapr's "[T_30_300]:_", "..._#01", "..._#02", each with its size beneath it.
		t.Run(scenarios.WorkflowSubtest(s), func(t *testing.T) {
			t.Run(strconv.Itoa(n), func(t *testing.T) { scenarios.Run(t, s) })
		})
	}
}

// TestDelayWorkflowsAtScale: delay_wf (5 s), 500 VUs x 10,000.
func TestDelayWorkflowsAtScale(t *testing.T) { run(t, scenarios.DelayWorkflowsAtScale) }
