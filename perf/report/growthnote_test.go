package report

import (
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// A plan that never classifies memory growth says so in the summary's memory column, whatever
// the length of its loads; a short main phase of a plan that does still reads as too short.
func TestSummaryMemoryColumnSaysWhyGrowthIsMissing(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var pts []perf.Sample
	for i := range 107 { // a 107 s workflows run, sampled each second
		pts = append(pts, perf.Sample{At: t0.Add(time.Duration(i) * time.Second), CPUCores: 0.1, RSSBytes: 50 << 20})
	}
	rounds := []perf.Round{{Main: perf.Result{ActualQPS: 3, Requests: 300}, Resources: []perf.Series{{Process: "wf-daprd", Role: perf.RoleCalleeSidecar, Points: pts}}}}
	rep := &perf.Report{Schema: perf.ReportSchema, Test: "workflows", Transport: perf.HTTP, Plan: perf.KindIterations, Resources: ResourcesWithoutGrowth(rounds)}
	if got := rep.Resources[0].GrowthNote; got != "not classified by this plan" {
		t.Fatalf("GrowthNote %q", got)
	}
	s := Summary(rep)
	if !strings.Contains(s, "n/a (not classified by this plan)") || strings.Contains(s, "main phase < 20 s") {
		t.Errorf("memory column of a 107 s iterations run:\n%s", s)
	}
	rep.Resources = SummariseResources([]perf.Round{{Main: perf.Result{ActualQPS: 3}, Resources: []perf.Series{{Process: "d", Points: pts[:5]}}}}, nil)
	if s := Summary(rep); !strings.Contains(s, "n/a (main phase < 20 s)") {
		t.Errorf("memory column of a 5 s main phase:\n%s", s)
	}
}
