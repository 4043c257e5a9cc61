package charts

import (
	"math"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/stats"
)

// The process roles of a service-invocation scenario (perf.Series.Role).
const (
	roleCallerSidecar = perf.RoleCallerSidecar
	roleCalleeSidecar = perf.RoleCalleeSidecar
)

// tablePercentiles are the latency percentiles of the tables, as in Dapr's published report.
func tablePercentiles() []float64 { return []float64{50, 90, 99, 99.9} }

// summaryOverheads are the overhead figures of summary rows and comparisons.
func summaryOverheads() []string { return []string{"p50", "p90", "p99"} }

// figures returns rep's derived figures; charts render these and derive nothing of their own.
// A report built in memory without them (a test's fixture) gets them from report.DeriveFigures,
// as report.ReadReport does for an older file.
func figures(rep *perf.Report) *perf.Figures {
	if rep.Figures == nil {
		f := report.DeriveFigures(rep)
		rep.Figures = &f
	}
	return rep.Figures
}

// phaseQuantile is the service-time percentile p of phase (perf.PhaseBaseline, perf.PhaseMain),
// the median over rounds; false when the run has no such figure.
func phaseQuantile(rep *perf.Report, phase string, p float64) (time.Duration, bool) {
	return phaseTime(rep, phase, p, false)
}

// phaseResponseQuantile is phaseQuantile of response time (from each request's intended
// start); false when the phase has none (a closed loop, older files).
func phaseResponseQuantile(rep *perf.Report, phase string, p float64) (time.Duration, bool) {
	return phaseTime(rep, phase, p, true)
}

// phaseTime is the phase's service time (response time when resp) at percentile p.
func phaseTime(rep *perf.Report, phase string, p float64, resp bool) (time.Duration, bool) {
	ph := figures(rep).Phase(phase)
	if ph == nil {
		return 0, false
	}
	s, ok := ph.Quantile(p, resp)
	return time.Duration(math.Round(s * 1e9)), ok
}

// median of xs, as perf takes it (the middle two averaged for an even count); 0 for none.
func median(xs []float64) float64 { return stats.Median(xs) }

// mainTotals are the requests and errors over the main phases.
func mainTotals(rep *perf.Report) (requests, errs int64) {
	if ph := figures(rep).Phase(perf.PhaseMain); ph != nil {
		return ph.Requests, ph.Errors
	}
	return 0, 0
}

// lowestActualQPS is the lowest actual QPS of the main phases (the one qps.ratio gates on).
func lowestActualQPS(rep *perf.Report) (float64, bool) {
	if ph := figures(rep).Phase(perf.PhaseMain); ph != nil {
		return ph.LowestQPS, true
	}
	return 0, false
}

// resourceOf returns the summary of the process with role, the busiest (highest mean CPU) when
// several share it: of three actor hosts' sidecars, the one that took the load, not an idle
// one.
func resourceOf(rep *perf.Report, role string) (perf.ResourceSummary, bool) {
	var out perf.ResourceSummary
	found := false
	for _, r := range rep.Resources {
		if r.Role == role && (!found || r.MeanCPUCores > out.MeanCPUCores) {
			out, found = r, true
		}
	}
	return out, found
}

// unit is a latency unit for axes: values in seconds times PerSecond.
type unit struct {
	Name      string
	PerSecond float64
}

// latencyUnit is µs when the largest magnitude shown is below 1 ms, s from 10 s on, else ms.
func latencyUnit(maxSeconds float64) unit {
	switch a := math.Abs(maxSeconds); {
	case a < 1e-3:
		return unit{Name: "µs", PerSecond: 1e6}
	case a >= 10:
		return unit{Name: "s", PerSecond: 1}
	}
	return unit{Name: "ms", PerSecond: 1e3}
}
