package report

import (
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// ProcessCosts derives what each sidecar and the app spend per request (perf.ProcessCost,
// which states the formula): for every resource summary of a sidecar (a role ending in
// "sidecar") or of the app (perf.RoleApp) with readings, its MeanCPUCores divided by the main
// phases' achieved rate (f's PhaseMain QPS, requests/s), and its peak RSS, each with its ratio
// to the app's when the report has exactly one app with readings. This is our own derivation
// from the measured means, not a figure of Dapr's. nil when f has no main phase, its rate is
// not above 0, or no process qualifies: no cost rather than a cost of 0. A process without
// readings (ResourceSummary.NoReadings) has no entry.
func ProcessCosts(resources []perf.ResourceSummary, f *perf.Figures) []perf.ProcessCost {
	main := f.Phase(perf.PhaseMain)
	if main == nil || !(main.QPS > 0) {
		return nil
	}
	rate := main.QPS
	var app *perf.ResourceSummary
	apps := 0
	for i := range resources {
		if resources[i].Role == perf.RoleApp && !resources[i].NoReadings() {
			app = &resources[i]
			apps++
		}
	}
	if apps != 1 {
		app = nil
	}
	var out []perf.ProcessCost
	for _, rs := range resources {
		if rs.NoReadings() || !(rs.Role == perf.RoleApp || strings.HasSuffix(rs.Role, "sidecar")) {
			continue
		}
		c := perf.ProcessCost{Process: rs.Process, Role: rs.Role, RequestsPerSecond: rate,
			CPUSecondsPerRequest: rs.MeanCPUCores / rate, PeakRSSBytes: rs.PeakRSSBytes}
		if app != nil && rs.Role != perf.RoleApp {
			if app.MeanCPUCores > 0 {
				c.CPURatioToApp = ptr(rs.MeanCPUCores / app.MeanCPUCores) // the same rate divides both
			}
			if app.PeakRSSBytes > 0 {
				c.RSSRatioToApp = ptr(float64(rs.PeakRSSBytes) / float64(app.PeakRSSBytes))
			}
		}
		out = append(out, c)
	}
	return out
}

func ptr(x float64) *float64 { return &x }
