package report_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/daprperf/daprperf/perf/report"
)

// A confidence is written rounded down, so a table never claims 100 % for less.
func TestConfidencePct(t *testing.T) {
	for c, want := range map[float64]string{
		0.957:     "95.7 %",
		0.95:      "95.0 %",
		0.9999:    "99.99 %",
		0.99986:   "99.98 %",
		0.999996:  "99.9996 %",
		0.9999999: "99.9999 %",
		1:         "100.0 %",
		0:         "0.0 %",
	} {
		assert.Equal(t, want, report.ConfidencePct(c), "%v", c)
	}
}
