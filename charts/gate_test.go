package charts

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// runCharts runs the command line and returns its exit code, stdout and stderr.
func runCharts(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestCompareGate: a 10 % regression of every main percentile over 6 rounds against 6 is
// regressed, its 99 % Hodges–Lehmann interval clear of zero, and exits 1 naming the figures;
// figures equal on both sides are same; the same inputs on both sides exit 0, every figure
// same (the rounds spread ±2 %, inside the 5 % margin); a malformed, a missing and an
// incomparable input exit 2 naming the file.
func TestCompareGate(t *testing.T) {
	code, out, errOut := runCharts(t, "compare", gateReference, gateRegressed)
	if code != exitRegression {
		t.Fatalf("10 %% regression: exit %d, want 1\n%s%s", code, out, errOut)
	}
	for _, figure := range []string{"latency p50 (main)", "latency p90 (main)", "latency p99 (main)", "overhead p90"} {
		cells := row(t, out, "service_invocation/http", figure)
		assertCell(t, cells, 3, map[string]string{"latency p50 (main)": "+10.0 %", "latency p90 (main)": "+10.0 %",
			"latency p99 (main)": "+10.0 %", "overhead p90": "+15.6 %"}[figure])
		// 6 against 6: 1 − 2·P(U <= 2) = 1 − 8/924 = 99.1 %, the 3rd smallest and largest of the
		// 36 differences.
		assertCell(t, cells, 4, map[string]string{"latency p50 (main)": "[+6.9 %, +13.1 %] 99.1 %", "latency p90 (main)": "[+6.9 %, +13.1 %] 99.1 %",
			"latency p99 (main)": "[+6.9 %, +13.1 %] 99.1 %", "overhead p90": "[+10.8 %, +20.5 %] 99.1 %"}[figure])
		assertCell(t, cells, 5, "p=0.002 n=6+6")
		assertCell(t, cells, 6, "**regressed**")
	}
	for _, figure := range []string{"callee sidecar CPU", "caller sidecar memory", "actual QPS (main)"} {
		assertCell(t, row(t, out, "service_invocation/http", figure), 6, perf.VerdictSame)
	}
	if !strings.Contains(out, "**7 figures regressed** (99 % interval, minimum change 5 %, margin ± 5 %)") ||
		!strings.Contains(out, "service_invocation/http latency p90 (main) (+10.0 %, p=0.002 n=6+6)") ||
		!strings.Contains(out, "same when the 90 % interval lies within ± 5 % of A (the margin)") {
		t.Errorf("no verdict line naming the regression:\n%s", out)
	}

	// Raising the minimum change above 10 % leaves the same difference undecided (its 90 %
	// interval, about +8 to +12 %, is not within the 5 % margin either), and -gate restricts
	// which figures fail.
	if code, out, _ := runCharts(t, "compare", "-min-change", "20%", gateReference, gateRegressed); code != exitNoRegression {
		t.Errorf("-min-change 20%%: exit %d, want 0\n%s", code, out)
	} else {
		assertCell(t, row(t, out, "service_invocation/http", "latency p90 (main)"), 6, perf.VerdictUndecided)
	}
	if code, out, _ := runCharts(t, "compare", "-gate", "caller sidecar", gateReference, gateRegressed); code != exitNoRegression {
		t.Errorf("-gate caller sidecar: exit %d, want 0\n%s", code, out)
	} else {
		assertCell(t, row(t, out, "service_invocation/http", "latency p90 (main)"), 6, "**regressed** (not gating)")
	}

	code, out, errOut = runCharts(t, "compare", gateReference, gateReference)
	if code != exitNoRegression {
		t.Fatalf("identical inputs: exit %d, want 0\n%s%s", code, out, errOut)
	}
	for figure, iv := range map[string]string{"latency p90 (main)": "[-3.0 %, +3.0 %] 99.1 %", "overhead p99": "[-4.2 %, +4.2 %] 99.1 %", "callee sidecar CPU": "[+0.0 %, +0.0 %] 99.1 %"} {
		cells := row(t, out, "service_invocation/http", figure)
		assertCell(t, cells, 4, iv)
		assertCell(t, cells, 6, perf.VerdictSame)
	}
	file := filepath.Join(gateReference, "v1.17.5", "service_invocation", "http", "result.json")
	if code, out, _ := runCharts(t, "compare", file, file); code != exitNoRegression {
		t.Errorf("a result file against itself: exit %d\n%s", code, out)
	}

	code, _, errOut = runCharts(t, "compare", gateReference, gateMalformed)
	if code != exitBadInput || !strings.Contains(errOut, gateMalformed) || !strings.Contains(errOut, "malformed") {
		t.Errorf("malformed: exit %d, stderr %q; want 2 naming %s", code, errOut, gateMalformed)
	}
	code, _, errOut = runCharts(t, "-reports", t.TempDir(), "compare", gateReference, "no-such-run")
	if code != exitBadInput || !strings.Contains(errOut, "no-such-run") {
		t.Errorf("missing: exit %d, stderr %q", code, errOut)
	}

	// The same scenario at another QPS is incomparable unless asked for.
	other := filepath.Join(t.TempDir(), "result.json")
	rep, err := report.ReadReport(file)
	if err != nil {
		t.Fatal(err)
	}
	rep.Params.QPS = 500
	writeJSON(t, other, rep)
	code, _, errOut = runCharts(t, "compare", file, other)
	if code != exitBadInput || !strings.Contains(errOut, "QPS 1000 vs 500") || !strings.Contains(errOut, other) {
		t.Errorf("other QPS: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runCharts(t, "compare", "-allow-param-change", file, other); code != exitNoRegression {
		t.Errorf("-allow-param-change: exit %d, %s", code, errOut)
	}
	// The same load on an app that does other work per request (the configuration get ramp
	// through the app, against one without the hop) is incomparable too.
	rep.Params.QPS = 1000
	rep.AppWork = "the app reads key1 through its daprd"
	writeJSON(t, other, rep)
	code, _, errOut = runCharts(t, "compare", file, other)
	if code != exitBadInput || !strings.Contains(errOut, "the app's work") {
		t.Errorf("other app work: exit %d, stderr %q", code, errOut)
	}
	// Another scenario altogether: nothing in common.
	rep.Test = "state_get"
	writeJSON(t, other, rep)
	if code, _, errOut := runCharts(t, "compare", file, other); code != exitBadInput || !strings.Contains(errOut, "no scenario in both") {
		t.Errorf("no scenario in common: exit %d, stderr %q", code, errOut)
	}
	for _, bad := range [][]string{{"-min-change", "x"}, {"-alpha", "2"}, {"-min-change", "150%"}, {"-margin", "-1%"}} {
		if code, _, _ := runCharts(t, append(append([]string{"compare"}, bad...), file, file)...); code != exitBadInput {
			t.Errorf("%q: exit %d, want 2", bad, code)
		}
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// abReport is the gate reference, its 6 rounds followed by copies of its first two (8 rounds:
// the fewest whose sign-test interval reaches 99 %), with a build B beside it: B's main latency
// is A's times factor in every round, except that noise (when set) adds +1 % in odd rounds and
// -1 % in even ones, so that B − A changes sign.
func abReport(t *testing.T, factor float64, noise bool) *perf.Report {
	t.Helper()
	rep, err := report.ReadReport(filepath.Join(gateReference, "v1.17.5", "service_invocation", "http", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep.Rounds = append(rep.Rounds, rep.Rounds[0], rep.Rounds[1])
	ab := &perf.ABReport{A: perf.Build{Version: "1.17.5"}, B: perf.Build{Version: "1.17.5"}}
	for i, rd := range rep.Rounds {
		f := factor
		if noise {
			f *= 1 + 0.01*float64(2*(i%2)-1)
		}
		b := rd
		b.Main.Latency.Percentiles = nil
		for _, q := range rd.Main.Latency.Percentiles {
			q.Seconds *= f
			b.Main.Latency.Percentiles = append(b.Main.Latency.Percentiles, q)
		}
		b.Main.Latency.AvgSeconds *= f
		ab.Rounds = append(ab.Rounds, b)
		ab.Order = append(ab.Order, map[bool]string{true: "AB", false: "BA"}[i%2 == 0])
	}
	rule := report.DefaultChangeRule()
	ab.Rule = &rule
	ab.Differences = report.PairedDifferences(rep.Rounds, ab.Rounds, rule)
	ab.Validity = perf.Validity{Valid: true}
	rep.AB = ab
	return rep
}

// TestCompareAB: one A/B result file compares B against A round by round: the same build (B −
// A alternating ±1 % in sign) is same, its 90 % interval inside the 5 % margin, and exits 0;
// B 10 % slower in every round is regressed, its 8 rounds' interval [min, max] at
// 1 − 2/2^8 = 99.2 % clear of zero, and exits 1; a side without A/B results is bad input.
func TestCompareAB(t *testing.T) {
	dir := t.TempDir()
	same := filepath.Join(dir, "same", "result.json")
	slower := filepath.Join(dir, "slower", "result.json")
	for path, rep := range map[string]*perf.Report{same: abReport(t, 1, true), slower: abReport(t, 1.10, false)} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		writeJSON(t, path, rep)
	}
	code, out, errOut := runCharts(t, "compare", same)
	if code != exitNoRegression {
		t.Fatalf("same build: exit %d\n%s%s", code, out, errOut)
	}
	cells := row(t, out, "service_invocation/http", "latency p90")
	assertCell(t, cells, 5, "99.2 %")
	assertCell(t, cells, 7, perf.VerdictSame)

	code, out, _ = runCharts(t, "compare", slower)
	if code != exitRegression {
		t.Fatalf("B 10 %% slower: exit %d\n%s", code, out)
	}
	cells = row(t, out, "service_invocation/http", "latency p90")
	assertCells(t, cells, "latency p90", "2.500 ms", "2.750 ms", "+0.250 ms", "[+0.245 ms, +0.255 ms]", "99.2 %", "+10.0 %", "**regressed**")
	assertCell(t, row(t, out, "service_invocation/http", "callee-sidecar CPU"), 7, perf.VerdictSame)

	if code, _, errOut := runCharts(t, "compare", gateReference); code != exitBadInput || !strings.Contains(errOut, "no A/B result") {
		t.Errorf("no A/B result: exit %d, %q", code, errOut)
	}
}

// writeRun writes reports as the files of run id under root, each with its own outcome.
func writeRun(t *testing.T, root, id string, reps ...*perf.Report) string {
	t.Helper()
	for _, rep := range reps {
		rep.RunID = id
		path := rep.RunPath(root)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		writeJSON(t, path, rep)
	}
	return perf.RunDir(root, id)
}

// gateRun returns the gate reference's report as the scenario test, changed by edit.
func gateRun(t *testing.T, test string, edit func(*perf.Report)) *perf.Report {
	t.Helper()
	rep, err := report.ReadReport(filepath.Join(gateReference, "v1.17.5", "service_invocation", "http", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep.Test = test
	if edit != nil {
		edit(rep)
	}
	return rep
}

func TestExitCode(t *testing.T) {
	root := t.TempDir()
	pass := func(*perf.Report) {}
	bound := func(r *perf.Report) {
		r.Pass = false
		r.Verdicts = append(r.Verdicts, perf.Verdict{Threshold: perf.Threshold{Figure: "errors", Op: perf.AtMost, Source: "test"}, Got: 3, Measured: true})
	}
	invalid := func(r *perf.Report) {
		r.Pass, r.Validity = false, perf.Validity{Reasons: []string{"round 1 main: fell behind"}}
	}
	infra := func(r *perf.Report) { r.Pass, r.InfraErrors = false, []string{"push: connection refused"} }
	incomplete := func(r *perf.Report) {
		r.Pass, r.Incomplete, r.IncompleteReason = false, true, "the test stopped before the run finished, after round 1 main"
	}
	interrupted := func(r *perf.Report) {
		r.Pass, r.Incomplete, r.IncompleteReason, r.InterruptedBy = false, true, "interrupted by SIGINT after round 1 baseline", "SIGINT"
	}
	interruptedOld := func(r *perf.Report) { // written before interruptedBy
		r.Pass, r.Incomplete, r.IncompleteReason = false, true, "interrupted by SIGINT after round 1 baseline"
	}
	for _, c := range []struct {
		name  string
		edits []func(*perf.Report)
		goRC  int
		want  perf.Outcome
	}{
		{"pass", []func(*perf.Report){pass, pass}, 0, perf.OutcomePass},
		{"bound", []func(*perf.Report){pass, bound}, 1, perf.OutcomeMissedBound},
		{"invalid", []func(*perf.Report){bound, invalid}, 1, perf.OutcomeInvalid},
		{"infra", []func(*perf.Report){invalid, infra}, 1, perf.OutcomeInfra},
		{"incomplete", []func(*perf.Report){incomplete}, 1, perf.OutcomeInfra},
		{"interrupted", []func(*perf.Report){interrupted}, 1, perf.OutcomeInterrupted},
		{"interrupted-old-file", []func(*perf.Report){interruptedOld}, 1, perf.OutcomeInterrupted},
		{"interrupted-dominates", []func(*perf.Report){infra, bound, interrupted, invalid}, 1, perf.OutcomeInterrupted},
		{"go-test-failed", []func(*perf.Report){pass}, 1, perf.OutcomeInfra},
	} {
		var reps []*perf.Report
		for i, e := range c.edits {
			reps = append(reps, gateRun(t, "s"+string(rune('a'+i)), e))
		}
		dir := writeRun(t, root, c.name, reps...)
		code, out, _ := runCharts(t, "exitcode", "-go-test-exit", string(rune('0'+c.goRC)), dir)
		if code != int(c.want) {
			t.Errorf("%s: exit %d, want %d\n%s", c.name, code, c.want, out)
		}
		if !strings.Contains(out, c.want.String()) {
			t.Errorf("%s: output does not say %q:\n%s", c.name, c.want, out)
		}
	}
	empty := filepath.Join(root, "runs", "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCharts(t, "exitcode", empty); code != int(perf.OutcomeInfra) || !strings.Contains(out, "no result file") {
		t.Errorf("no result file: exit %d\n%s", code, out)
	}
	if code, out, _ := runCharts(t, "exitcode", filepath.Dir(gateMalformed)); code != int(perf.OutcomeInfra) || !strings.Contains(out, gateMalformed) {
		t.Errorf("malformed: exit %d\n%s", code, out)
	}
}
