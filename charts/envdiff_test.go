package charts

import (
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// Two runs on the same machine days apart differ by their sitting, which the comparison names
// with the way to tell a version from the machine's drift; runs within one sitting do not.
func TestEnvDifferencesNameTheSitting(t *testing.T) {
	start := time.Date(2026, 12, 5, 22, 6, 0, 0, time.UTC)
	a := &perf.Report{Environment: perf.Environment{CPUModel: "x", CPUs: 2, Platform: "local", StartTime: start}}
	b := &perf.Report{Environment: a.Environment}
	b.Environment.StartTime = start.Add(90 * time.Minute)
	if d := envDifferences(a, b); d != "" {
		t.Errorf("one sitting: %q, want none", d)
	}
	b.Environment.StartTime = start.Add(37 * time.Hour)
	if d := envDifferences(a, b); !strings.Contains(d, "sitting: run 37 h apart") || !strings.Contains(d, "DAPR_PERF_DAPRD_B") {
		t.Errorf("37 h apart: %q", d)
	}
	b.Environment.StartTime = start.Add(-50 * time.Hour)
	if d := envDifferences(a, b); !strings.Contains(d, "2 days apart") {
		t.Errorf("50 h apart: %q", d)
	}
}
