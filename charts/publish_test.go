package charts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// TestPublish: a valid run goes into reports/v<version>/ and that version's README and charts
// are redrawn; an invalid, incomplete or failed run is refused (nothing changes) unless forced;
// an A/B run is refused even then.
func TestPublish(t *testing.T) {
	root := fixtureTree(t, reportsFixtures) // a published v1.17.5 to replace
	ref := filepath.Join(root, "v1.17.5", "service_invocation", "http", "result.json")
	before := readFile(t, ref)

	refused := func(id string, edit func(*perf.Report), want string, args ...string) {
		t.Helper()
		writeRun(t, root, id, gateRun(t, "service_invocation", edit))
		code, out, errOut := runCharts(t, append([]string{"-reports", root, "publish"}, append(args, id)...)...)
		if code == 0 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "nothing written") {
			t.Errorf("publish %s: exit %d, stderr %q (want %q)\n%s", id, code, errOut, want, out)
		}
		if got := readFile(t, ref); got != before {
			t.Errorf("publish %s changed the reference", id)
		}
	}
	refused("invalid", func(r *perf.Report) {
		r.Pass, r.Validity = false, perf.Validity{Reasons: []string{"round 2 main: generator fell behind"}}
	}, "invalid: round 2 main: generator fell behind")
	refused("incomplete", func(r *perf.Report) {
		r.Pass, r.Incomplete, r.IncompleteReason = false, true, "2 of 6 rounds completed"
	}, "incomplete: 2 of 6 rounds completed")
	refused("failed", func(r *perf.Report) {
		r.Pass = false
		r.Verdicts = append(r.Verdicts, perf.Verdict{Threshold: perf.Threshold{Figure: "errors", Op: perf.AtMost, Source: "test"}, Got: 3, Measured: true})
	}, "missed bound: errors = 3")
	refused("ab", func(r *perf.Report) {
		r.AB = &perf.ABReport{A: perf.Build{Version: "1.17.5"}, B: perf.Build{Version: "1.16.5"}}
	}, "A/B", "-force")

	code, out, errOut := runCharts(t, "-reports", root, "publish", "-force", "invalid")
	if code != 0 || !strings.Contains(out, "publishing despite (-force)") {
		t.Fatalf("publish -force: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut = runCharts(t, "-reports", root, "publish", "valid-run-missing")
	if code == 0 || !strings.Contains(errOut, "valid-run-missing") {
		t.Errorf("missing run: exit %d %q", code, errOut)
	}

	id := "20261201T100000Z-abcd"
	run := gateRun(t, "service_invocation", nil)
	run.Environment.StartTime = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	dir := writeRun(t, root, id, run)
	code, out, errOut = runCharts(t, "-reports", root, "publish", id)
	if code != 0 {
		t.Fatalf("publish: exit %d\n%s%s", code, out, errOut)
	}
	got, err := report.ReadReport(ref)
	if err != nil {
		t.Fatal(err)
	}
	if got.RunID != id || len(got.Rounds) != 6 {
		t.Errorf("published reference: run %s with %d rounds, want %s with 6", got.RunID, len(got.Rounds), id)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "service_invocation", "http", "result.json"))
	if readFile(t, ref) != string(src) {
		t.Error("the published file is not a byte-for-byte copy of the run's")
	}
	version := readFile(t, filepath.Join(root, "v1.17.5", "README.md"))
	if !strings.Contains(version, "2026-12-01 10:00:00 UTC") {
		t.Errorf("the version README was not redrawn:\n%s", version)
	}
	scenarioREADME := readFile(t, filepath.Join(root, "v1.17.5", "service_invocation", "http", "README.md"))
	if !strings.Contains(scenarioREADME, "6 rounds") {
		t.Errorf("the scenario README was not redrawn:\n%s", scenarioREADME)
	}
	if _, err := os.Stat(filepath.Join(root, "runs", id, "service_invocation", "http", "README.md")); err == nil {
		t.Error("generate drew charts into the run directory")
	}
	// The other published scenarios stay as they were.
	if _, err := report.ReadReport(filepath.Join(root, grpcDir, resultFile)); err != nil {
		t.Error(err)
	}
}

// TestRunSummary: a run's summary shows each outcome and the A/B verdicts as written, those of
// a file written before the four-way verdict mapped to it (within noise → undecided,
// regression → regressed).
func TestRunSummary(t *testing.T) {
	root := t.TempDir()
	old := abReport(t, 1, true)
	old.Test = "old_ab"
	old.AB.Rule = nil
	for i := range old.AB.Differences {
		old.AB.Differences[i].Verdict = map[bool]string{true: perf.OldVerdictRegression, false: perf.OldVerdictWithinNoise}[old.AB.Differences[i].Figure == "latency p50"]
	}
	dir := writeRun(t, root, "summary", gateRun(t, "a", nil), gateRun(t, "b", func(r *perf.Report) {
		r.Pass, r.Validity = false, perf.Validity{Reasons: []string{"round 1 main: fell behind"}}
	}), abReport(t, 1, true), old)
	code, out, errOut := runCharts(t, "summary", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	assertCell(t, row(t, out, "", "a/http"), 1, "pass (0)")
	assertCell(t, row(t, out, "", "b/http"), 1, "invalid run (4)")
	if !strings.Contains(out, "**invalid run**: round 1 main: fell behind") || !strings.Contains(out, "A/B: A = daprd 1.17.5, B = daprd 1.17.5, 8 rounds") {
		t.Errorf("summary:\n%s", out)
	}
	assertCell(t, row(t, out, "service_invocation/http", "latency p90"), 6, perf.VerdictSame)
	assertCell(t, row(t, out, "old_ab/http", "latency p50"), 6, perf.VerdictRegressed)
	assertCell(t, row(t, out, "old_ab/http", "latency p90"), 6, perf.VerdictUndecided)
}

func TestIsResultFile(t *testing.T) {
	for name, want := range map[string]bool{
		"result.json": true, "result-2.json": true, "result-13.json": true,
		"result-.json": false, "result-x.json": false, "foo-2.json": false, "result.json.tmp": false, ".result-1.tmp": false,
	} {
		if got := report.IsResultFile(name); got != want {
			t.Errorf("IsResultFile(%q) = %v, want %v", name, got, want)
		}
	}
}
