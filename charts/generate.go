package charts

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/daprperf/daprperf/perf"
)

// generate writes, for every result file under root, its charts, README.md and the
// self-contained report.html next to it, and a README.md and index.html per version directory; it reports
// each file written to w. Nothing is written when a result file cannot be read. The unpublished
// runs under <root>/runs are left out: give a run's directory as root to draw its charts.
func generate(root string, w io.Writer) error {
	scs, err := loadReportsSkipping(root, filepath.Join(root, perf.RunsDir))
	if err != nil {
		return err
	}
	for _, sc := range scs {
		if err := drawScenario(sc, w); err != nil {
			return err
		}
	}
	for _, g := range groupByVersion(root, scs) {
		readme := filepath.Join(g.Dir, "README.md")
		cost, err := writeVersionCost(g)
		if err != nil {
			return err
		}
		md := versionMarkdown(g)
		if cost != "" {
			md += fmt.Sprintf("\n![Each sidecar's CPU per request and peak RSS of every scenario, with Dapr's published v1.0 sidecar figures](%s)\n", cost)
		}
		if err := os.WriteFile(readme, []byte(md), 0o644); err != nil {
			return fmt.Errorf("charts: %w", err)
		}
		var costPNG []byte
		if cost != "" {
			if costPNG, err = os.ReadFile(filepath.Join(g.Dir, cost)); err != nil {
				return fmt.Errorf("charts: %w", err)
			}
		}
		index := filepath.Join(g.Dir, versionIndexFile)
		if err := os.WriteFile(index, []byte(versionHTML("Dapr "+g.Name+": performance reports", md, costPNG)), 0o644); err != nil {
			return fmt.Errorf("charts: %w", err)
		}
		fmt.Fprintf(w, "%s (%d scenarios), %s\n", readme, len(g.Scenarios), versionIndexFile)
	}
	return nil
}

// drawScenario writes sc's charts, README.md and report.html next to its result file and
// reports them to w. It never writes the result file itself.
func drawScenario(sc scenario, w io.Writer) error {
	images, err := writeCharts(sc)
	if err != nil {
		return err
	}
	flames, err := writeFlameGraphs(sc)
	if err != nil {
		return err
	}
	readme := filepath.Join(sc.Dir, "README.md")
	prevName, prev, _ := previousVersion(sc)
	md := scenarioMarkdownWith(sc.Report, images, prevName, prev)
	if err := os.WriteFile(readme, []byte(md), 0o644); err != nil {
		return fmt.Errorf("charts: %w", err)
	}
	page := filepath.Join(sc.Dir, reportHTMLFile)
	if err := os.WriteFile(page, []byte(scenarioHTML(md, summaryOf(sc.Report), append(images, flames...))), 0o644); err != nil {
		return fmt.Errorf("charts: %w", err)
	}
	fmt.Fprintf(w, "%s (%d charts), %s\n", readme, len(images), reportHTMLFile)
	return nil
}

// summaryOf is what the HTML report's header says about rep.
func summaryOf(rep *perf.Report) reportSummary {
	return reportSummary{
		Title:    fmt.Sprintf("%s over %s, Dapr %s", rep.Test, transportName(rep.Transport), orNone(rep.Environment.DaprVersion)),
		Word:     resultWord(rep),
		Sentence: resultSentence(rep),
		Pass:     rep.Pass,
		Invalid:  !rep.Validity.Valid,
		Reasons:  rep.Validity.Reasons,
		Missed:   missedWarnOnly(rep),
	}
}
