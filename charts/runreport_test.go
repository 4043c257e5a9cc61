package charts

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"
)

// TestRunReport: charts report draws every result of a run (charts, README.md, report.html)
// and the run's index.html and README.md: the verdict table first, one row per result file
// with its outcome and exit code, each scenario linking its report.html, the banner showing the
// run's exit code (from exit-code when cmd/perfsuite wrote one). A file that cannot be read
// is listed, the others are still drawn, and the command exits 1. The result files are never
// written.
func TestRunReport(t *testing.T) {
	root := t.TempDir()
	bound := func(r *perf.Report) {
		r.Pass = false
		r.Verdicts = append(r.Verdicts, perf.Verdict{Threshold: perf.Threshold{Figure: "errors", Op: perf.AtMost, Source: "test"}, Got: 3, Measured: true})
	}
	interrupted := func(r *perf.Report) {
		r.Pass, r.Incomplete, r.IncompleteReason, r.InterruptedBy = false, true, "interrupted by SIGINT after round 1 baseline", "SIGINT"
	}
	dir := writeRun(t, root, "run-1", gateRun(t, "sa", nil), gateRun(t, "sb", bound), gateRun(t, "sc", interrupted))
	results := map[string]string{}
	for _, s := range []string{"sa", "sb", "sc"} {
		p := filepath.Join(dir, s, "http", "result.json")
		results[p] = readFile(t, p)
	}

	code, out, errOut := runCharts(t, "-reports", root, "report", "run-1")
	if code != 0 {
		t.Fatalf("report: exit %d\n%s%s", code, out, errOut)
	}
	index := filepath.Join(dir, runIndexFile)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); lines[len(lines)-1] != "run report: "+index {
		t.Errorf("the last line is not the index's path:\n%s", out)
	}
	for p, before := range results {
		if readFile(t, p) != before {
			t.Errorf("%s changed", p)
		}
		for _, f := range []string{"README.md", reportHTMLFile, "latency.png"} {
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), f)); err != nil {
				t.Errorf("not drawn: %v", err)
			}
		}
	}
	page := readFile(t, index)
	verdicts, figures := strings.Index(page, `id="run-verdicts"`), strings.Index(page, `id="figures"`)
	if verdicts < 0 || figures < 0 || verdicts > figures {
		t.Errorf("the verdict table is not first (at %d, the figures at %d)", verdicts, figures)
	}
	if !strings.Contains(page, "Run run-1: interrupted") || !strings.Contains(page, "Exit code 130 (from the result files)") {
		t.Errorf("the banner does not give the run's worst outcome, interrupted (130):\n%s", page)
	}
	rows := regexp.MustCompile(`<tr><td><a href="([^"]+)">([^<]+)</a></td><td class="(?:pass|fail)">([^<]+)</td><td class="r">(\d+)</td>`).FindAllStringSubmatch(page, -1)
	want := [][2]string{{"sa/http", "pass 0"}, {"sb/http", "missed bound 3"}, {"sc/http", "interrupted 130"}}
	if len(rows) != len(want) {
		t.Fatalf("%d verdict rows, want %d:\n%s", len(rows), len(want), page)
	}
	for i, r := range rows {
		if r[2] != want[i][0] || r[3]+" "+r[4] != want[i][1] || r[1] != want[i][0]+"/"+reportHTMLFile {
			t.Errorf("row %d: %q links %s, says %s %s; want %s linking %s/%s, %s", i, r[2], r[1], r[3], r[4], want[i][0], want[i][0], reportHTMLFile, want[i][1])
		}
	}
	for _, m := range regexp.MustCompile(`href="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if strings.Contains(m[1], ":") {
			t.Errorf("the index links outside the run: %s", m[1])
		} else if _, err := os.Stat(filepath.Join(dir, m[1])); err != nil {
			t.Errorf("a dead link: %v", err)
		}
	}
	readme := readFile(t, filepath.Join(dir, "README.md"))
	if !strings.HasPrefix(readme, "# Run run-1\n") || !strings.Contains(readme, "| [sb/http](sb/http/README.md) | missed bound (3) |") {
		t.Errorf("the run's README:\n%s", readme)
	}

	// cmd/perfsuite's code wins (a go test failure, a Ctrl-C between files); an unreadable
	// file is listed, the rest drawn, and the command fails.
	if err := os.WriteFile(filepath.Join(dir, runExitCodeFile), []byte("5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken", "http", "result.json")
	if err := os.MkdirAll(filepath.Dir(broken), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "sa", "http", reportHTMLFile))
	code, out, errOut = runCharts(t, "report", dir)
	if code != 1 || !strings.Contains(errOut, broken) {
		t.Errorf("an unreadable file: exit %d, want 1 naming %s\n%s%s", code, broken, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "sa", "http", reportHTMLFile)); err != nil {
		t.Errorf("the readable results are not drawn beside an unreadable one: %v", err)
	}
	page = readFile(t, index)
	for _, s := range []string{"Exit code 5 (from cmd/perfsuite", `<a href="broken/http/result.json">broken/http/result.json</a>`, "cannot be read"} {
		if !strings.Contains(page, s) {
			t.Errorf("the index does not say %q:\n%s", s, page)
		}
	}
	if readFile(t, broken) != "{" {
		t.Error("the unreadable file was written")
	}

	// An empty run still gets its page, saying so.
	empty := filepath.Join(root, "runs", "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCharts(t, "report", empty); code != 0 || !strings.Contains(readFile(t, filepath.Join(empty, runIndexFile)), "no result file") {
		t.Errorf("an empty run: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, _ := runCharts(t, "-reports", root, "report", "no-such-run"); code != 1 {
		t.Errorf("no such run: exit %d, want 1", code)
	}
}

// A run that passed with a warn-only bound missed has an amber banner on its index, as its
// scenario page has, and says how many scenarios missed one; its row is amber too.
func TestRunIndexBannerIsAmberForAWarnOnlyMiss(t *testing.T) {
	root := t.TempDir()
	b, err := os.ReadFile(filepath.Join("..", "reports", "v1.18.3", "service_invocation", "http", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "runs", "ref-si-v1.18.3-6r", "service_invocation", "http")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, resultFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runReport(root, "ref-si-v1.18.3-6r", io.Discard); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "runs", "ref-si-v1.18.3-6r", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<header id="verdict" class="verdict warn">`, "1 scenario passed with a warn-only bound missed", `<td class="warn">pass</td>`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("index lacks %q", want)
		}
	}
}
