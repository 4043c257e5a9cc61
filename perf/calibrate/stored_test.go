package calibrate

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf/report"
)

// storedCalibration is the committed calibration of make calibrate (scripts/calibrate.sh).
var storedCalibration = filepath.Join("..", "..", "reports", "calibration", "service_invocation_http.json")

// TestStoredAAFalseAlarmsWithinBound holds the verdict to its false-alarm goal on the committed
// calibration (docs/method.md, "Calibrating the verdict"): for every figure and each way
// daprperf judges (paired at 6 rounds, paired adaptive from 6 to 16, unpaired 6 against 6),
// 1,000 comparisons resampled from the stored same-build runs call a change at most 1 % of the
// time; and of the runs judged as they ran, at most one does (at a true rate of 1 %, two or
// more alarms in 20 runs have a chance of 1.7 %, binomial). It fails when a change to the
// verdict, or a new calibration, raises a figure's rate above the bound.
func TestStoredAAFalseAlarmsWithinBound(t *testing.T) {
	const bound, minRuns = 0.01, 20
	s, err := ReadStored(storedCalibration)
	require.NoError(t, err)
	rule := report.DefaultChangeRule()
	figs := make([]string, 0, len(s.Figures))
	for f := range s.Figures {
		figs = append(figs, f)
	}
	slices.Sort(figs)
	require.Contains(t, figs, "latency p90")
	for _, f := range figs {
		aa := s.AA(f)
		require.GreaterOrEqual(t, len(aa), minRuns, "%s: A/A runs stored", f)
		for _, cmp := range []Comparison{{Rounds: 6}, {Rounds: 6, Budget: 16}, {Rounds: 6, Unpaired: true}} {
			c := Resample(aa, cmp, 1000, rule, 1)
			assert.LessOrEqual(t, c.Rate(c.FalseAlarms()), bound, "%s, %s: resampled false alarms %+v", f, cmp, c)
		}
		real := Real(aa, rule)
		assert.LessOrEqual(t, real.FalseAlarms(), 1, "%s: false alarms of the runs as they ran %+v", f, real)
	}
}
