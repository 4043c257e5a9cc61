package charts

import (
	"fmt"
	"io"
	"strings"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// runSummary writes a Markdown summary of the results under dir (a run directory, or any tree
// of result files), for a CI job summary ($GITHUB_STEP_SUMMARY): one row per scenario with its
// outcome and main figures, then per scenario what did not pass (incomplete, infrastructure
// errors, invalidity, failed bounds) and, for A/B runs, the difference table. An unreadable
// file is an error.
func runSummary(dir string, w io.Writer) error {
	scs, err := loadReports(dir)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## daprperf results: %s\n\n", dir)
	rows := make([][]string, 0, len(scs))
	for _, sc := range scs {
		o, _ := sc.Report.Outcome()
		cells := []string{sc.Key(), fmt.Sprintf("%s (%d)", o, int(o)), orNone(sc.Report.Environment.DaprVersion), fmt.Sprint(len(sc.Report.Rounds))}
		if hasSummary(sc.Report) {
			cells = append(cells, summaryCells(sc.Report)...)
		} else {
			for range summaryHeader() {
				cells = append(cells, "")
			}
		}
		rows = append(rows, cells)
	}
	writeTable(&b, append([]string{"scenario", "outcome (exit code)", "daprd", "rounds"}, summaryHeader()...), "llll", rows)
	for _, sc := range scs {
		rep := sc.Report
		o, why := rep.Outcome()
		if o == perf.OutcomePass && rep.AB == nil && rep.Growth == nil {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n\n", sc.Key())
		if o != perf.OutcomePass {
			fmt.Fprintf(&b, "**%s**: %s\n\n", o, cell(why))
		}
		for _, v := range rep.Verdicts {
			fmt.Fprintf(&b, "- %s\n", v.String())
		}
		if rep.Growth != nil {
			b.WriteString("\n")
			writeGrowth(&b, rep.Growth)
		}
		if ab := rep.AB; ab != nil {
			fmt.Fprintf(&b, "\nA/B: A = daprd %s, B = daprd %s, %s, order %s.\n\n", ab.A.Version, ab.B.Version,
				plural(len(ab.Rounds), "round"), strings.Join(ab.Order, " "))
			var rows [][]string
			for _, d := range ab.Differences {
				rows = append(rows, []string{d.Figure, report.FormatValue(d.A, d.Unit, false), report.FormatValue(d.B, d.Unit, false),
					report.FormatValue(d.Median, d.Unit, true),
					fmt.Sprintf("[%s, %s] (%s)", report.FormatValue(d.Low, d.Unit, true), report.FormatValue(d.High, d.Unit, true), report.ConfidencePct(d.Confidence)),
					fmt.Sprintf("%+.1f %%", 100*d.Change), perf.VerdictWord(d.Verdict)})
			}
			writeTable(&b, []string{"figure", "A", "B", "B − A", "interval (confidence)", "change", "verdict"}, "lrrrrrl", rows)
		}
	}
	_, err = io.WriteString(w, b.String())
	return err
}
