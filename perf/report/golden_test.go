package report_test

import (
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf/report"
)

var (
	update        = flag.Bool("update", false, "rewrite testdata/golden from the current figures and summaries")
	updateMissing = flag.Bool("update-missing", false, "write the goldens that do not exist yet (a newly published reference: make publish), check the rest")
)

// goldenFixtures are the committed result files: the published references and the charts'
// fixtures, as paths relative to the module root (the malformed one, which must not read, and
// reports/runs, where a user's own runs go, left out).
func goldenFixtures(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"reports", "charts/testdata"} {
		err := filepath.WalkDir(filepath.Join("..", "..", dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() && name == "runs" && filepath.Base(filepath.Dir(path)) == "reports" {
				return filepath.SkipDir // a user's own runs, not committed
			}
			if !d.IsDir() && strings.HasPrefix(name, "result") && strings.HasSuffix(name, ".json") && !strings.Contains(path, "malformed") {
				rel, _ := filepath.Rel(filepath.Join("..", ".."), path)
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) < 20 {
		t.Fatalf("found %d result files; the references and fixtures hold more", len(out))
	}
	return out
}

// Every committed result file keeps its figures (derived afresh, not the stored ones) and its
// summary, as testdata/golden records them: a change to how figures are derived or a summary
// reads shows here, file by file. The goldens were first written by the code before perf was
// split by job, and differ from it only where a change meant them to (CHANGELOG.md). Run with
// -update to rewrite them after an intended change, then read the diff; make publish runs it
// with -update-missing, which writes the goldens of the newly published references only.
func TestFiguresAndSummariesOfEveryFixture(t *testing.T) {
	for _, rel := range goldenFixtures(t) {
		t.Run(rel, func(t *testing.T) {
			rep, err := report.ReadReport(filepath.Join("..", "..", rel))
			if err != nil {
				t.Fatal(err)
			}
			f := report.DeriveFigures(rep)
			rep.Figures = &f
			b, err := json.MarshalIndent(f, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			name := strings.ReplaceAll(strings.TrimSuffix(rel, ".json"), "/", "__")
			for _, g := range []struct{ file, got string }{
				{name + ".figures.json", string(b) + "\n"},
				{name + ".summary.txt", report.Summary(rep)},
			} {
				path := filepath.Join("testdata", "golden", g.file)
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(g.got), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if errors.Is(err, fs.ErrNotExist) && *updateMissing {
					if err := os.WriteFile(path, []byte(g.got), 0o644); err != nil {
						t.Fatal(err)
					}
					t.Logf("wrote %s (new)", path)
					continue
				}
				if err != nil {
					t.Fatalf("%v (run with -update to write it)", err)
				}
				if string(want) != g.got {
					t.Errorf("%s differs from %s:\n--- want\n%s\n--- got\n%s", rel, path, want, g.got)
				}
			}
		})
	}
}
