package charts

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/daprperf/daprperf/perf/report"
)

// checkRun reads every result file under dir and writes one line per file: complete, or what
// it lacks (report.Check against runID, empty for any run). With packages set (a folder of
// scenario packages, such as "tests"), every package there with a perf-tagged test file must
// have written at least one of the files, told by the directory its command ran in. It returns
// an error naming how many files lack something and which packages wrote none; it does not
// judge whether a run passed (exitcode does).
func checkRun(dir, runID, packages string, w io.Writer) error {
	paths, err := report.RunFiles(dir)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("charts check: no result file under %s", dir)
	}
	wrote := map[string]bool{}
	bad := 0
	for _, p := range paths {
		rep, err := report.ReadReport(p)
		if err != nil {
			bad++
			fmt.Fprintf(w, "%s: unreadable: %v\n", p, err)
			continue
		}
		if rep.Command != nil && rep.Command.Dir != "" {
			wrote[filepath.Base(rep.Command.Dir)] = true
		}
		if lacks := report.Check(rep, runID); len(lacks) > 0 {
			bad++
			fmt.Fprintf(w, "%s: %s/%s lacks: %s\n", p, rep.Test, rep.Transport, strings.Join(lacks, "; "))
			continue
		}
		fmt.Fprintf(w, "%s: %s/%s complete (%s plan, pass=%t, valid=%t)\n", p, rep.Test, rep.Transport, report.KindOf(rep).Name(), rep.Pass, rep.Validity.Valid)
	}
	var silent []string
	if packages != "" {
		pkgs, err := report.ScenarioPackages(packages)
		if err != nil {
			return fmt.Errorf("charts check: -packages: %w", err)
		}
		for _, p := range pkgs {
			if !wrote[p] {
				silent = append(silent, p)
			}
		}
	}
	fmt.Fprintf(w, "%d result file(s), %d complete\n", len(paths), len(paths)-bad)
	switch {
	case bad > 0 && len(silent) > 0:
		return fmt.Errorf("charts check: %d of %d result files incomplete; no result file from %s", bad, len(paths), strings.Join(silent, ", "))
	case bad > 0:
		return fmt.Errorf("charts check: %d of %d result files incomplete", bad, len(paths))
	case len(silent) > 0:
		return fmt.Errorf("charts check: no result file from %s", strings.Join(silent, ", "))
	}
	return nil
}
