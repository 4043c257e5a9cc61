package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/daprperf/daprperf/perf"
)

// generate writes, for every result file under root, its charts and README.md next to it,
// and a README.md per version directory; it reports each file written to w. Nothing is written
// when a result file cannot be read. The unpublished runs under <root>/runs are left out: give
// a run's directory as root to draw its charts.
func generate(root string, w io.Writer) error {
	scs, err := loadReportsSkipping(root, filepath.Join(root, perf.RunsDir))
	if err != nil {
		return err
	}
	for _, sc := range scs {
		images, err := writeCharts(sc)
		if err != nil {
			return err
		}
		readme := filepath.Join(sc.Dir, "README.md")
		if err := os.WriteFile(readme, []byte(scenarioMarkdown(sc.Report, images)), 0o644); err != nil {
			return fmt.Errorf("charts: %w", err)
		}
		fmt.Fprintf(w, "%s (%d charts)\n", readme, len(images))
	}
	for _, g := range groupByVersion(root, scs) {
		readme := filepath.Join(g.Dir, "README.md")
		if err := os.WriteFile(readme, []byte(versionMarkdown(g)), 0o644); err != nil {
			return fmt.Errorf("charts: %w", err)
		}
		fmt.Fprintf(w, "%s (%d scenarios)\n", readme, len(g.Scenarios))
	}
	return nil
}
