package scenarios

import (
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
)

// The memory-growth variants, as named in reports and asserted by tests/memory_growth.
const (
	GrowthFixed            = "a-fixed"
	GrowthUnique           = "b-unique"
	GrowthUniqueNoMetrics  = "c-unique-enable-metrics-false"
	GrowthUniqueLowCard    = "d-unique-increasedCardinality-false"
	GrowthUniqueMetricsOff = "e-unique-metric-enabled-false"
	GrowthUniquePathMatch  = "f-unique-pathMatching"
)

// GrowthPathPattern is the f variant's spec.metric.http.pathMatching pattern: one path
// label for every checkout/<id>. daprd 1.17 also registers it under
// /v1.0/invoke/{app_id}/method, the caller sidecar's server path; 1.16 does not, so there only
// the callee's series are bounded (measured: reports/measurements.md, "Memory growth").
const GrowthPathPattern = "/checkout/{orderId}"

// GrowthExpectedVerdicts is the expected-verdicts table of MemoryGrowth, relative to the repo
// root: one row per daprd version, variant and sidecar (growth.ReadExpectations).
const GrowthExpectedVerdicts = "tests/memory_growth/expected_verdicts.csv"

// MemoryGrowth is the method-name memory-growth case: daprd kept metrics per invoked path, so
// methods such as checkout/{orderId} added series and memory per new id until OOM, and the
// dapr.io/enable-metrics: "false" annotation did not stop it. Each variant deploys a tester
// and an httpapp, both with profiling sidecars, and sends rounds of requests through the
// tester's sidecar to method "checkout", or "checkout/<uuid>" (a new path per request):
//
//	a-fixed                              checkout
//	b-unique                             checkout/<uuid>
//	c-unique-enable-metrics-false        checkout/<uuid>, daprd --enable-metrics=false
//	d-unique-increasedCardinality-false  checkout/<uuid>, spec.metric.http.increasedCardinality: false
//	e-unique-metric-enabled-false        checkout/<uuid>, spec.metric.enabled: false
//	f-unique-pathMatching                checkout/<uuid>, spec.metric.http.pathMatching: [/checkout/{orderId}]
//
// a-fixed is the control: its noise sets the growth threshold and it must be flat. The
// verdicts each daprd version gave are data, in GrowthExpectedVerdicts.
//
// Load: 500 QPS over 8 connections, so a round of 3,000 requests takes 6 s.
func MemoryGrowth() perf.Scenario {
	variant := func(name, desc string, unique bool, sidecar perf.Sidecar) perf.GrowthVariant {
		sidecar.Profiling = true
		caller, callee := sidecar, sidecar
		caller.AppProtocol, callee.AppProtocol = perf.HTTP, perf.HTTP
		return perf.GrowthVariant{
			Name:        name,
			Description: desc,
			Apps: []perf.App{
				{Name: TesterApp, Kind: perf.Tester, Sidecar: &caller},
				{Name: TargetApp, Kind: perf.HTTPApp, Sidecar: &callee},
			},
			Tester:     TesterApp,
			Route:      perf.Route{To: TargetApp, ThroughSidecar: true, Method: "checkout"},
			UniquePath: unique,
			Control:    !unique,
		}
	}
	// Dapr's Configuration CRD requires spec.metric.enabled whenever spec.metric is set (the
	// API server refuses the object otherwise); true is daprd's default, so it changes nothing
	// on the local platform.
	metricConfig := func(m map[string]any) map[string]any {
		if _, ok := m["enabled"]; !ok {
			m["enabled"] = true
		}
		return map[string]any{"metric": m}
	}
	plan := &plan.GrowthPlan{
		QPS:              500,
		Connections:      8,
		ExpectedVerdicts: GrowthExpectedVerdicts,
		Variants: []perf.GrowthVariant{
			variant(GrowthFixed, "fixed method checkout", false, perf.Sidecar{}),
			variant(GrowthUnique, "checkout/<uuid>", true, perf.Sidecar{}),
			variant(GrowthUniqueNoMetrics, "checkout/<uuid>, --enable-metrics=false", true, perf.Sidecar{DisableMetrics: true}),
			variant(GrowthUniqueLowCard, "checkout/<uuid>, increasedCardinality: false", true,
				perf.Sidecar{Config: metricConfig(map[string]any{"http": map[string]any{"increasedCardinality": false}})}),
			variant(GrowthUniqueMetricsOff, "checkout/<uuid>, metric.enabled: false", true,
				perf.Sidecar{Config: metricConfig(map[string]any{"enabled": false})}),
			variant(GrowthUniquePathMatch, "checkout/<uuid>, pathMatching: "+GrowthPathPattern, true,
				perf.Sidecar{Config: metricConfig(map[string]any{"http": map[string]any{"pathMatching": []string{GrowthPathPattern}}})}),
		},
	}
	return perf.Scenario{
		Test:      "memory_growth",
		Transport: perf.HTTP,
		Plan:      plan,
		// Dapr's gates that apply without a baseline: no failed request, no restart.
		Thresholds: []perf.Threshold{
			{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "Dapr v1.17 perf suite"},
			{Figure: "restarts", Op: perf.AtMost, Limit: 0, Source: "Dapr v1.17 perf suite"},
		},
	}
}

// GrowthVariants returns the variants of the memory-growth scenario sc.
func GrowthVariants(sc perf.Scenario) []perf.GrowthVariant {
	if g, ok := sc.Plan.(*plan.GrowthPlan); ok {
		return g.Variants
	}
	return nil
}
