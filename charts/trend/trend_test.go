package trend_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/charts/trend"
)

// series is n runs of about base seconds, the last from on raised by step, with 3 rounds each.
func series(n, from int, base, step float64) []trend.Point {
	t0 := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	pts := make([]trend.Point, n)
	for i := range pts {
		v := base
		version := "1.16.5"
		if i >= from {
			v *= 1 + step
			version = "1.17.5"
		}
		pts[i] = trend.Point{RunID: "nightly-" + t0.Format("20060102"), Time: t0.AddDate(0, 0, i), Version: version,
			Median: v, Rounds: []float64{v * 0.97, v, v * 1.04}}
	}
	return pts
}

func TestWriteDrawsTheFindingFirstAndEveryChart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history", "index.html")
	page := trend.Page{
		Title:   "Nightly runs on this machine",
		Finding: "service_invocation/http overhead p90 regressed: +34 % against the 5 runs before it",
		Alarm:   true,
		Notes:   []string{"machine 1a2b3c4d5e6f: AMD EPYC × 2, 23.4 GiB, kernel 6.1.0"},
		Sections: []trend.Section{{
			Title: "service_invocation/http",
			Charts: []trend.Chart{
				{Title: "overhead p90", Unit: "s", Finding: "regressed", Alarm: true, Points: series(12, 6, 0.0021, 0.34),
					Changes: []trend.Change{{Index: 6, Text: "1.16.5 → 1.17.5: +34 %, p = 0.001"}}},
				{Title: "peak RSS, callee-sidecar", Unit: "bytes", Finding: "same", Points: series(12, 12, 90<<20, 0)},
			},
		}, {
			Title:  "state_get/http",
			Charts: []trend.Chart{{Title: "achieved rate", Unit: "requests/s", Finding: "undecided: 1 run", Points: series(1, 1, 500, 0)}},
		}},
	}
	require.NoError(t, trend.Write(path, page))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(b)

	// The finding comes before any chart, in the alarm's colours.
	finding := strings.Index(doc, `<p class="finding alarm">service_invocation/http overhead p90 regressed`)
	require.GreaterOrEqual(t, finding, 0, "the finding is on the page")
	assert.Less(t, finding, strings.Index(doc, "<svg"), "the finding comes first")
	assert.Equal(t, 3, strings.Count(doc, "<svg"), "one chart per figure")
	assert.NotContains(t, doc, "<?xml", "no XML declaration inside HTML")
	assert.Contains(t, doc, `<a href="#s1">state_get/http</a>`, "a link to each section")

	// Seconds below 1 s are drawn in ms, bytes in MiB; the change point is labelled.
	assert.Contains(t, doc, ">ms<")
	assert.Contains(t, doc, ">MiB<")
	assert.Contains(t, doc, "1.16.5 → 1.17.5: +34 %, p = 0.001")
	// The x axis names versions and dates, since the runs span days.
	assert.Regexp(t, regexp.MustCompile(`>1\.17\.5 11-12<`), doc)
	_, err = os.Stat(path + ".tmp")
	assert.ErrorIs(t, err, os.ErrNotExist, "written through a temp file, renamed")
}

func TestWriteFailsOnAFolderItCannotMake(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	err := trend.Write(filepath.Join(blocker, "index.html"), trend.Page{Title: "x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "trend:")
}
