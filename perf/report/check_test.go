package report_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf/report"
)

// checkLacks are the committed files Check finds incomplete, and what it must name: hand-made
// fixtures without a command, and a reference written before the growth plan stored verdicts.
var checkLacks = map[string][]string{
	"reports/v1.16.5/memory_growth/http/result.json":                 {"no verdict"},
	"reports/v1.17.5/memory_growth/http/result.json":                 {"no verdict"},
	"charts/testdata/reports/v1.17.5/memory_growth/http/result.json": {"no command recorded", "no verdict"},
}

// Every committed result file, one or more of each plan kind, is complete by Check (or lacks
// just what checkLacks says); the same file stripped of what its kind measures, or of its run's
// record, is not, and each lack is named.
func TestCheckEveryFixture(t *testing.T) {
	kinds := map[string]bool{}
	for _, rel := range goldenFixtures(t) {
		t.Run(rel, func(t *testing.T) {
			rep, err := report.ReadReport(filepath.Join("..", "..", rel))
			if err != nil {
				t.Fatal(err)
			}
			kinds[report.KindOf(rep).Name()] = true
			want := checkLacks[rel]
			if want == nil && rep.Command == nil {
				want = []string{"no command recorded"} // a fixture made for the charts' tests
			}
			if got := report.Check(rep, rep.RunID); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("Check of a committed result file = %q, want %q", got, want)
			}
			if got := report.Check(rep, "other-run"); len(got) != len(want)+1 || !strings.Contains(got[0], `want "other-run"`) {
				t.Errorf("Check with another run's id = %q, want the runID named", got)
			}
			rep.Incomplete, rep.IncompleteReason = true, "interrupted after warmup"
			rep.Verdicts = nil
			rep.Rounds, rep.Loads, rep.Growth, rep.Delivery, rep.Jobs, rep.Reminders = nil, nil, nil, nil, nil, nil
			got := strings.Join(report.Check(rep, ""), "\n")
			for _, want := range []string{"incomplete: interrupted after warmup", "no verdict"} {
				if !strings.Contains(got, want) {
					t.Errorf("stripped report: Check = %q, want %q in it", got, want)
				}
			}
			if n := strings.Count(got, "\n") + 1; n < 3 {
				t.Errorf("stripped report: Check = %q, want the kind's own lack too", got)
			}
		})
	}
	for _, k := range report.Kinds() {
		if !kinds[k] {
			t.Errorf("no committed result file of kind %s", k)
		}
	}
}
