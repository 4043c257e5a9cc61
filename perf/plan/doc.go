// Package plan holds the eight plans a scenario can run (each a perf.Plan):
//
//   - OverheadPlan: interleaved baseline and main rounds with a warmup, the sidecar overhead
//     per percentile (and an optional preflight that picks the load: perf.Laddered);
//   - GrowthPlan: rounds of distinct-path load and an idle window, sidecar memory growth;
//   - StagePlan and IterationsPlan: named loads one after another (k6 stages, shared
//     iterations);
//   - DeliveryPlan, JobTriggerPlan and ReminderPlan: counted deliveries, job triggers and
//     reminder fires, judged by counts and lags;
//   - FaultPlan: closed-loop phases before and during injected faults.
//
// A plan works through the perf.Session the runner gives it and records into the report;
// package report turns what it recorded into figures. plan imports perf, report and the
// leaves; it never imports the runner.
package plan

import "github.com/daprperf/daprperf/perf"

// Every plan of this package is a perf.Plan; each Configure returns its run.
var (
	_ perf.Plan = OverheadPlan{}
	_ perf.Plan = (*GrowthPlan)(nil)
	_ perf.Plan = (*StagePlan)(nil)
	_ perf.Plan = (*IterationsPlan)(nil)
	_ perf.Plan = (*DeliveryPlan)(nil)
	_ perf.Plan = (*JobTriggerPlan)(nil)
	_ perf.Plan = (*ReminderPlan)(nil)
	_ perf.Plan = (*FaultPlan)(nil)
)
