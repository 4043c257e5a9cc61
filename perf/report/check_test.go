package report_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf/report"
)

// checkLacks are the committed files Check finds incomplete, and what it must name: a hand-made
// fixture without a command, written before the growth plan stored verdicts.
var checkLacks = map[string][]string{
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
			rep.Rounds, rep.Loads, rep.Growth, rep.Delivery, rep.Jobs, rep.Reminders, rep.Curve = nil, nil, nil, nil, nil, nil, nil
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

// Dapr's two reminder tests run alone (plan.ReminderPlan.Part): a registration-only report is
// complete with its registration load and no trigger section, and each part says in its header
// which test it is.
func TestReminderPartsAreComplete(t *testing.T) {
	full, err := report.ReadReport(filepath.Join("..", "..", "charts", "testdata", "loads", "actor_reminder", "http", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if full.Loads[0].Name != "registration" || full.Reminders == nil {
		t.Fatalf("fixture: loads %v, reminders %v: want a registration load and a trigger phase", full.Loads[0].Name, full.Reminders != nil)
	}
	kind := report.KindOf(full)
	reg := *full
	reg.Reminders, reg.Loads = nil, full.Loads[:1]
	if got := report.Check(&reg, ""); len(got) != 0 {
		t.Errorf("registration part: Check = %q, want complete", got)
	}
	if h := kind.Header(&reg); !strings.Contains(h, "Dapr's registration test alone") {
		t.Errorf("registration part: header %q", h)
	}
	trig := *full
	trig.Loads = full.Loads[1:]
	if h := kind.Header(&trig); !strings.Contains(h, "Dapr's trigger test alone") {
		t.Errorf("trigger part: header %q", h)
	}
	none := *full
	none.Reminders, none.Loads = nil, nil
	if got := report.Check(&none, ""); len(got) == 0 {
		t.Error("a reminder report with neither part is complete")
	}
}
