package push

import (
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A process the platform never reported (metrics-server has no reading of a new pod for its
// first 15 s or more) is summarised as having no readings, not as 0 mCPU / 0 MiB; a process
// with readings counts them.
func TestResourceSummaryWithoutReadings(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	rounds := []perf.Round{{Resources: []perf.Series{
		{Process: "app", Role: perf.RoleApp, Points: []perf.Sample{{At: t0, RSSBytes: 10 << 20}, {At: t0.Add(time.Second), CPUCores: 0.5, RSSBytes: 12 << 20}}},
		{Process: "app-daprd", Role: perf.RoleCalleeSidecar},
	}}}
	out := report.SummariseResources(rounds, nil)
	require.Len(t, out, 2)
	assert.Equal(t, 2, out[0].Readings)
	assert.False(t, out[0].NoReadings())
	assert.InDelta(t, 0.5, out[0].MeanCPUCores, 1e-9)
	assert.Equal(t, 0, out[1].Readings)
	assert.True(t, out[1].NoReadings())

	// A summary read from a file written before Readings existed has RSS: it has readings.
	var legacy perf.ResourceSummary
	require.NoError(t, legacy.UnmarshalJSON([]byte(`{"process":"p","role":"app","peakRSSMiB":30}`)))
	assert.False(t, legacy.NoReadings())
}

// The push leaves out the gauges of a process without readings instead of pushing 0.
func TestPushLeavesOutProcessesWithoutReadings(t *testing.T) {
	rep := pushFixture(t, "run", 1, true)
	for i := range rep.Resources {
		if rep.Resources[i].Role == perf.RoleApp {
			rep.Resources[i].PeakRSSBytes, rep.Resources[i].MeanCPUCores, rep.Resources[i].Readings = 0, 0, 0
		}
	}
	reg, err := pushRegistry(rep)
	require.NoError(t, err)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == "APP_CPU_USAGE" || mf.GetName() == "APP_MEMORY_USAGE" {
			t.Errorf("%s pushed for a process without readings", mf.GetName())
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "role" && l.GetValue() == perf.RoleApp && strings.HasPrefix(mf.GetName(), "daprperf_resource") {
					t.Errorf("%s pushed for role app without readings", mf.GetName())
				}
			}
		}
	}
}
