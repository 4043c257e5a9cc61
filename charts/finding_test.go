package charts

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf/report"
)

// committedResults are every committed result file: the published references and runs under
// reports/ (not reports/runs, the unpublished ones) and the charts' fixtures.
func committedResults(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, root := range []string{"../reports", "testdata"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path == filepath.Join("..", "reports", "runs") {
				return fs.SkipDir // the unpublished runs, not committed
			}
			if !d.IsDir() && d.Name() == resultFile {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) < 50 {
		t.Fatalf("%d committed result files found, expected the references and fixtures", len(out))
	}
	return out
}

// Every committed result's page states its finding under its banner (report.Finding: a figure
// of its own, or a bound missed and by how much), lists every warning of its result, and has a
// timeline chart or says that its result holds no second-by-second record.
func TestEveryPageStatesItsFindingAndWarnings(t *testing.T) {
	for _, path := range committedResults(t) {
		rep, err := report.ReadReport(path)
		if err != nil {
			if strings.Contains(path, "malformed") {
				continue // the fixture of a file that cannot be read
			}
			t.Fatal(err)
		}
		page := scenarioMarkdown(rep, nil)
		head, _, _ := strings.Cut(page, "\n## ")
		if !strings.Contains(head, "**Finding:** ") {
			t.Errorf("%s: no finding under the banner:\n%s", path, head)
		}
		for _, line := range groupWarnings(rep.Warnings) {
			if !strings.Contains(page, "- "+line+"\n") {
				t.Errorf("%s: the warning %q is not on the page", path, line)
			}
		}
		if hasTimeline(rep) == strings.Contains(page, "\nNo timeline: ") {
			t.Errorf("%s: timeline drawn %v, but the page's note says otherwise", path, hasTimeline(rep))
		}
		if n := len(rep.Warnings); n > 0 && !strings.Contains(page, fmt.Sprintf("\n## Warnings\n\n%d warning(s)", n)) {
			t.Errorf("%s: the page does not count its %d warnings", path, n)
		}
	}
}
