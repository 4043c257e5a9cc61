package charts

import (
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// runIndexFile is a run's own page, in its directory: the run's verdicts first, then a link to
// every scenario's report.html.
const runIndexFile = "index.html"

// runExitCodeFile is where cmd/perfsuite writes the run's exit code, beside its results.
const runExitCodeFile = "exit-code"

// runEntry is one result file of a run, as its report lists it.
type runEntry struct {
	Path string
	// Sc is the file read; Report is nil when it could not be read.
	Sc scenario
	// Outcome and Why are the file's outcome (perf.Report.Outcome), or an infrastructure error
	// when the file cannot be read.
	Outcome perf.Outcome
	Why     string
	// DrawErr is why its charts, README or report.html could not be drawn; "" when they were.
	DrawErr string
}

// runReport draws the report of a run (a run id under <reports>/runs, or a run directory):
// for every result file its charts, README.md and report.html (as generate), then the run's own
// README.md and index.html, which list every scenario with its outcome and exit code first and
// link each scenario's page. It only reads the result files. A file that cannot be read or
// drawn is listed with the reason while the others are drawn; the error returned then names
// every such file. The run's exit code is the one cmd/perfsuite wrote to <dir>/exit-code
// when there is one (it may also count go test's own failure or a Ctrl-C), else the worst
// outcome of the files. The index's path is the last line written to w.
func runReport(reports, run string, w io.Writer) error {
	dir := run
	if _, err := os.Stat(dir); err != nil {
		dir = perf.RunDir(reports, run)
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return fmt.Errorf("charts report: %q is neither a run id (no directory %s) nor a run directory", run, dir)
	}
	paths, err := report.RunFiles(dir)
	if err != nil {
		return fmt.Errorf("charts report: %w", err)
	}
	var (
		entries []runEntry
		failed  []string
	)
	for _, p := range paths {
		e := runEntry{Path: p}
		rep, err := report.ReadReport(p)
		if err != nil {
			e.Outcome, e.Why = perf.OutcomeInfra, "cannot be read: "+err.Error()
			failed = append(failed, p+": "+err.Error())
			entries = append(entries, e)
			continue
		}
		e.Sc = scenario{Path: p, Dir: filepath.Dir(p), Report: rep}
		e.Outcome, e.Why = rep.Outcome()
		if err := drawSafely(e.Sc, w); err != nil {
			e.DrawErr = err.Error()
			failed = append(failed, p+": "+err.Error())
		}
		entries = append(entries, e)
	}
	code, codeFrom := runCode(dir, entries)
	md := runMarkdown(dir, entries, code, codeFrom)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(md), 0o644); err != nil {
		return fmt.Errorf("charts report: %w", err)
	}
	index := filepath.Join(dir, runIndexFile)
	if err := os.WriteFile(index, []byte(runIndexHTML(dir, entries, code, codeFrom)), 0o644); err != nil {
		return fmt.Errorf("charts report: %w", err)
	}
	fmt.Fprintf(w, "%s (%s)\n", filepath.Join(dir, "README.md"), plural(len(entries), "result"))
	fmt.Fprintf(w, "run report: %s\n", index)
	if len(failed) > 0 {
		return fmt.Errorf("charts report: %s not drawn (listed in %s):\n  %s", plural(len(failed), "result"), index, strings.Join(failed, "\n  "))
	}
	return nil
}

// drawSafely is drawScenario with a panic of the drawing code turned into an error, so that one
// scenario's charts never stop the others'.
func drawSafely(sc scenario, w io.Writer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("charts: %s: drawing panicked: %v", sc.Path, r)
		}
	}()
	return drawScenario(sc, w)
}

// runCode is the run's exit code: <dir>/exit-code when it holds one (from cmd/perfsuite),
// else the worst outcome of the entries (an empty run is an infrastructure error). from says
// which.
func runCode(dir string, entries []runEntry) (code perf.Outcome, from string) {
	if b, err := os.ReadFile(filepath.Join(dir, runExitCodeFile)); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return perf.Outcome(n), "cmd/perfsuite, in " + runExitCodeFile
		}
	}
	if len(entries) == 0 {
		return perf.OutcomeInfra, "the result files: there are none"
	}
	worst := perf.OutcomePass
	for _, e := range entries {
		worst = perf.Worst(worst, e.Outcome)
	}
	return worst, "the result files"
}

// runID is the run's id: that of its first readable result, else the directory's name.
func runID(dir string, entries []runEntry) string {
	for _, e := range entries {
		if e.Sc.Report != nil && e.Sc.Report.RunID != "" {
			return e.Sc.Report.RunID
		}
	}
	return filepath.Base(dir)
}

// entryKey names an entry: its scenario, or its path under dir when it cannot be read.
func entryKey(dir string, e runEntry) string {
	if e.Sc.Report != nil {
		key := e.Sc.Key()
		if base := filepath.Base(e.Path); base != resultFile {
			key += " (" + base + ")"
		}
		return key
	}
	return relTo(dir, e.Path)
}

// runMarkdown is the run's README.md: the verdict table (scenario linking its README, outcome
// and exit code, why), the summary figures, and the environment.
func runMarkdown(dir string, entries []runEntry, code perf.Outcome, codeFrom string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Run %s\n\n", runID(dir, entries))
	fmt.Fprintf(&b, "**Exit code %d: %s** (from %s). %s; the HTML page of this run is [%s](%s).\n\n",
		int(code), code, codeFrom, plural(len(entries), "result file"), runIndexFile, runIndexFile)
	var rows [][]string
	for _, e := range entries {
		link := relTo(dir, e.Path)
		if e.Sc.Report != nil && e.DrawErr == "" {
			link = relTo(dir, filepath.Join(e.Sc.Dir, "README.md"))
		}
		rows = append(rows, []string{fmt.Sprintf("[%s](%s)", entryKey(dir, e), link),
			fmt.Sprintf("%s (%d)", e.Outcome, int(e.Outcome)), cell(entryFinding(e)), cell(entryWhy(e))})
	}
	writeTable(&b, []string{"scenario", "outcome (exit code)", "finding", "why"}, "llll", rows)
	var sum [][]string
	for _, e := range entries {
		if e.Sc.Report != nil && hasSummary(e.Sc.Report) {
			sum = append(sum, append([]string{entryKey(dir, e)}, summaryCells(e.Sc.Report)...))
		}
	}
	if len(sum) > 0 {
		b.WriteString("\n## Figures\n\n")
		writeTable(&b, append([]string{"scenario"}, summaryHeader()...), "l", sum)
	}
	b.WriteString("\n## Environment\n\n")
	for _, e := range entries {
		if e.Sc.Report != nil {
			fmt.Fprintf(&b, "- %s: %s\n", entryKey(dir, e), cell(envLine(e.Sc.Report)))
		}
	}
	return b.String()
}

// entryFinding is the finding of the entry's result (report.Finding), as its page states it
// under its banner; "" for a result that could not be read.
func entryFinding(e runEntry) string {
	if e.Sc.Report == nil {
		return ""
	}
	return report.Finding(e.Sc.Report)
}

// entryWhy is the outcome's reason, and a drawing failure.
func entryWhy(e runEntry) string {
	why := e.Why
	if e.DrawErr != "" {
		why += "; its charts were not drawn: " + e.DrawErr
	}
	return why
}

// runIndexHTML is the run's index.html: a banner with the run's exit code, the verdict table
// with each scenario linking its report.html (its README or result file when that page was not
// drawn), the summary figures, and the environment. It loads nothing from anywhere; the
// scenario pages' inline check counts its images too (none today: data-charts="0/0").
func runIndexHTML(dir string, entries []runEntry, code perf.Outcome, codeFrom string) string {
	id := runID(dir, entries)
	esc := html.EscapeString
	link := func(text, path string) string {
		return fmt.Sprintf("<a href=\"%s\">%s</a>", esc(relTo(dir, path)), esc(text))
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\" data-charts=\"pending\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<title>Run %s: %s</title>\n", esc(id), esc(code.String()))
	b.WriteString("<style>\n" + reportCSS + "td.pass { color: #00785a; } td.warn { color: #8a5a00; font-weight: bold; } td.fail { color: #b34700; font-weight: bold; }\n</style>\n</head>\n<body>\n")
	// The banner means what a scenario page's does: invalid, failed, passed with a warn-only
	// bound missed (amber, never plain green), or passed.
	warned := 0
	for _, e := range entries {
		if e.Outcome == perf.OutcomePass && e.Sc.Report != nil && len(missedWarnOnly(e.Sc.Report)) > 0 {
			warned++
		}
	}
	cls := "pass"
	switch {
	case code == perf.OutcomeInvalid:
		cls = "invalid"
	case code != perf.OutcomePass:
		cls = "fail"
	case warned > 0:
		cls = "warn"
	}
	fmt.Fprintf(&b, "<header id=\"verdict\" class=\"verdict %s\">\n<p class=\"word\">Run %s: %s</p>\n", cls, esc(id), esc(code.String()))
	fmt.Fprintf(&b, "<p>Exit code %d (from %s); %s.</p>\n", int(code), esc(codeFrom), esc(plural(len(entries), "result file")))
	if warned > 0 {
		fmt.Fprintf(&b, "<p>%s passed with a warn-only bound missed (reported, not failing the run).</p>\n", esc(plural(warned, "scenario")))
	}
	b.WriteString("</header>\n<main>\n")

	b.WriteString("<h2 id=\"verdicts\">Verdicts</h2>\n<table id=\"run-verdicts\">\n<thead><tr><th>scenario</th><th>outcome</th><th class=\"r\">exit code</th><th>finding</th><th>why</th><th>files</th></tr></thead>\n<tbody>\n")
	for _, e := range entries {
		key := entryKey(dir, e)
		page, files := link(key, e.Path), []string{link("result.json", e.Path)}
		if e.Sc.Report != nil && e.DrawErr == "" {
			page = link(key, filepath.Join(e.Sc.Dir, reportHTMLFile))
			files = append([]string{link("README.md", filepath.Join(e.Sc.Dir, "README.md"))}, files...)
		}
		oc := "pass"
		switch {
		case e.Outcome != perf.OutcomePass:
			oc = "fail"
		case e.Sc.Report != nil && len(missedWarnOnly(e.Sc.Report)) > 0:
			oc = "warn"
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td class=\"%s\">%s</td><td class=\"r\">%d</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			page, oc, esc(e.Outcome.String()), int(e.Outcome), esc(entryFinding(e)), esc(entryWhy(e)), strings.Join(files, " · "))
	}
	if len(entries) == 0 {
		b.WriteString("<tr><td colspan=\"6\">no result file: the run measured nothing (see its log)</td></tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")

	var sum []string
	for _, e := range entries {
		if e.Sc.Report == nil || !hasSummary(e.Sc.Report) {
			continue
		}
		var row strings.Builder
		fmt.Fprintf(&row, "<tr><td>%s</td>", esc(entryKey(dir, e)))
		for _, c := range summaryCells(e.Sc.Report) {
			fmt.Fprintf(&row, "<td class=\"r\">%s</td>", esc(c))
		}
		row.WriteString("</tr>\n")
		sum = append(sum, row.String())
	}
	if len(sum) > 0 {
		b.WriteString("<h2 id=\"figures\">Figures</h2>\n<table>\n<thead><tr><th>scenario</th>")
		for _, h := range summaryHeader() {
			fmt.Fprintf(&b, "<th class=\"r\">%s</th>", esc(h))
		}
		b.WriteString("</tr></thead>\n<tbody>\n" + strings.Join(sum, "") + "</tbody>\n</table>\n")
	}
	b.WriteString("<h2 id=\"environment\">Environment</h2>\n<ul>\n")
	for _, e := range entries {
		if e.Sc.Report != nil {
			fmt.Fprintf(&b, "<li>%s: %s</li>\n", esc(entryKey(dir, e)), esc(envLine(e.Sc.Report)))
		}
	}
	b.WriteString("</ul>\n<p>Each scenario's page stands alone (its charts are embedded); the result files are the record, this page is drawn from them by <code>charts report</code>.</p>\n")
	b.WriteString("</main>\n<script>\n" + reportScript + "</script>\n</body>\n</html>\n")
	return b.String()
}
