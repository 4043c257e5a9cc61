package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// costReport has three rounds whose main phases achieved 990, 1,010 and 1,000 requests/s (the
// median, 1,000, is the rate), and the processes of a service-invocation run: the tester (no
// cost), both sidecars, the app, and a sidecar the platform reported nothing for.
func costReport() *perf.Report {
	r := &perf.Report{Plan: perf.KindOverhead, Validity: perf.Validity{Valid: true}, Pass: true}
	for _, qps := range []float64{990, 1010, 1000} {
		r.Rounds = append(r.Rounds, perf.Round{Baseline: perf.Result{ActualQPS: qps, RequestedQPS: 1000},
			Main: perf.Result{ActualQPS: qps, RequestedQPS: 1000}})
	}
	r.Resources = []perf.ResourceSummary{
		{Process: "tester", Role: perf.RoleTester, MeanCPUCores: 0.4, PeakRSSBytes: 30 << 20, Readings: 10},
		{Process: "tester-daprd", Role: perf.RoleCallerSidecar, MeanCPUCores: 0.25, PeakRSSBytes: 60 << 20, Readings: 10},
		{Process: "httpapp-daprd", Role: perf.RoleCalleeSidecar, MeanCPUCores: 0.2, PeakRSSBytes: 50 << 20, Readings: 10},
		{Process: "httpapp", Role: perf.RoleApp, MeanCPUCores: 0.05, PeakRSSBytes: 12.5 * (1 << 20), Readings: 10},
		{Process: "other-daprd", Role: perf.RoleCalleeSidecar}, // no readings: unknown, so no cost
	}
	return r
}

// 0.25 cores at 1,000 requests/s is 250 µs of CPU per request, and 250 mCPU per 1,000
// requests/s; the sidecars' CPU and RSS over the app's 0.05 cores and 12.5 MiB.
func TestProcessCostsKnownValues(t *testing.T) {
	f := DeriveFigures(costReport())
	require.Len(t, f.Cost, 3, "the sidecars and the app with readings; not the tester, not the one without readings")
	caller, callee, app := f.Cost[0], f.Cost[1], f.Cost[2]
	assert.Equal(t, []string{"tester-daprd", "httpapp-daprd", "httpapp"}, []string{caller.Process, callee.Process, app.Process})
	assert.Equal(t, 1000.0, caller.RequestsPerSecond)
	assert.InDelta(t, 250e-6, caller.CPUSecondsPerRequest, 1e-15)
	assert.InDelta(t, 250, caller.CPUMicrosPerRequest(), 1e-9)
	assert.InDelta(t, 250, caller.MilliCPUPer1000RPS(), 1e-9)
	assert.InDelta(t, 200, callee.CPUMicrosPerRequest(), 1e-9)
	assert.InDelta(t, 50, app.CPUMicrosPerRequest(), 1e-9)
	assert.Equal(t, uint64(60<<20), caller.PeakRSSBytes)
	require.NotNil(t, caller.CPURatioToApp)
	require.NotNil(t, caller.RSSRatioToApp)
	assert.InDelta(t, 5, *caller.CPURatioToApp, 1e-12)
	assert.InDelta(t, 4.8, *caller.RSSRatioToApp, 1e-12)
	assert.InDelta(t, 4, *callee.CPURatioToApp, 1e-12)
	assert.Nil(t, app.CPURatioToApp, "the app has no ratio to itself")
	assert.Nil(t, app.RSSRatioToApp)

	b, err := json.Marshal(caller)
	require.NoError(t, err)
	assert.JSONEq(t, `{"process":"tester-daprd","role":"caller-sidecar","requestsPerSecond":1000,"cpuSecondsPerRequest":0.00025,
		"peakRSSBytes":62914560,"cpuRatioToApp":5,"rssRatioToApp":4.8}`, string(b))
}

// No rate, no cost: not a cost of 0.
func TestProcessCostsNeedARate(t *testing.T) {
	r := costReport()
	for i := range r.Rounds {
		r.Rounds[i].Main.ActualQPS = 0
	}
	assert.Nil(t, DeriveFigures(r).Cost, "a rate of 0")
	r.Rounds = nil
	assert.Nil(t, DeriveFigures(r).Cost, "no rounds")
	assert.NotContains(t, Summary(r), "sidecar cost")

	r = costReport()
	r.Resources[3] = perf.ResourceSummary{Process: "httpapp", Role: perf.RoleApp} // the app without readings
	f := DeriveFigures(r)
	require.Len(t, f.Cost, 2)
	assert.Nil(t, f.Cost[0].CPURatioToApp, "no app reading, no ratio")
	assert.InDelta(t, 250, f.Cost[0].CPUMicrosPerRequest(), 1e-9)
}

// A file whose stored figures predate the cost gets it when read.
func TestReadReportFillsCost(t *testing.T) {
	r := costReport()
	r.Schema = perf.ReportSchema
	f := DeriveFigures(r)
	f.Cost = nil
	r.Figures = &f
	b, err := json.Marshal(r)
	require.NoError(t, err)
	require.NotContains(t, string(b), `"cost"`)
	path := filepath.Join(t.TempDir(), "result.json")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	got, err := ReadReport(path)
	require.NoError(t, err)
	require.Len(t, got.Figures.Cost, 3)
	assert.InDelta(t, 250e-6, got.Figures.Cost[0].CPUSecondsPerRequest, 1e-15)
}

func TestSummaryCostTable(t *testing.T) {
	s := Summary(costReport())
	assert.Contains(t, s, "sidecar cost at 1000.00 requests/s")
	var rows []string
	for _, l := range strings.Split(s, "\n") {
		if f := strings.Fields(l); len(f) > 0 && (f[0] == "tester-daprd" || f[0] == "httpapp") && strings.Contains(l, ".0") && len(f) >= 4 {
			rows = append(rows, strings.Join(f, " "))
		}
	}
	assert.Contains(t, rows, "tester-daprd caller-sidecar 250.0 5.00 60.0 4.80")
	assert.Contains(t, rows, "httpapp app 50.0 12.5")
	// after the resources table
	assert.Less(t, strings.Index(s, "mean CPU (mCPU)"), strings.Index(s, "sidecar cost at"))
}

func TestHeadline(t *testing.T) {
	p90 := perf.Verdict{Threshold: perf.Threshold{Figure: "overhead.p90", Op: perf.AtMost, Limit: 0.002, Source: "Dapr v1.17 perf suite", WarnOnly: true},
		Got: 0.00248, Measured: true}
	p99 := perf.Verdict{Threshold: perf.Threshold{Figure: "latency.p99", Op: perf.AtMost, Limit: 0.035, Source: "Dapr v1.17 perf suite (tests/perf/actor_activation): p99 < 35 ms", WarnOnly: true},
		Got: 0.041, Measured: true}
	ours := perf.Verdict{Threshold: perf.Threshold{Figure: "qps", Op: perf.AtLeast, Limit: 100, Source: "daprperf: the rate", WarnOnly: true},
		Got: 90, Measured: true}
	kept := perf.Verdict{Threshold: perf.Threshold{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "Dapr v1.17 perf suite"}, Measured: true, Pass: true}
	last := func(r *perf.Report) string {
		lines := strings.Split(strings.TrimSuffix(Summary(r), "\n"), "\n")
		return lines[len(lines)-1]
	}
	r := costReport()
	r.Verdicts = []perf.Verdict{kept}
	assert.Equal(t, "PASS", Headline(r))
	assert.Equal(t, "result: PASS", last(r))

	r.Verdicts = []perf.Verdict{kept, p90}
	assert.Equal(t, "PASS, 1 of Dapr's bounds missed (warn only)", Headline(r))
	assert.Equal(t, "result: PASS, 1 of Dapr's bounds missed (warn only): overhead.p90 = 2.480 ms, at most 2.000 ms (Dapr v1.17 perf suite): MISSED (warn only)", last(r))

	r.Verdicts = []perf.Verdict{p90, kept, p99}
	assert.Equal(t, "PASS, 2 of Dapr's bounds missed (warn only)", Headline(r))
	assert.Equal(t, "result: PASS, 2 of Dapr's bounds missed (warn only): "+p90.String()+"; "+p99.String(), last(r))

	r.Verdicts = []perf.Verdict{ours}
	assert.Equal(t, "PASS, 1 bound missed (warn only)", Headline(r))
	r.Verdicts = []perf.Verdict{ours, p90}
	assert.Equal(t, "PASS, 2 bounds missed (warn only)", Headline(r))

	r.Pass = false // FAIL stays as it is, missed warn-only bounds or not
	assert.Equal(t, "FAIL", Headline(r))
	assert.Equal(t, "result: FAIL", last(r))
}
