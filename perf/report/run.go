package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// IsResultFile reports whether name is a result file: result.json, or result-<n>.json when a
// run met a name already taken (perf never replaces a result file).
func IsResultFile(name string) bool {
	if name == "result.json" {
		return true
	}
	n, ok := strings.CutPrefix(name, "result-")
	if !ok {
		return false
	}
	n, ok = strings.CutSuffix(n, ".json")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

// RunFiles lists the result files under dir (IsResultFile), in lexical order; dir may also be
// a result file itself. A missing or unreadable dir is an error.
func RunFiles(dir string) ([]string, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("perf: run directory: %w", err)
	}
	if !info.IsDir() {
		return []string{dir}, nil
	}
	var paths []string
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && IsResultFile(d.Name()) {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("perf: walk %s: %w", dir, err)
	}
	return paths, nil
}

// RunOutcome derives the exit code of a run from the result files it wrote under dir, writing
// one line per file ("<file>: <outcome> (exit <code>): <why>") and a last line with the code
// ("exit <code>: <outcome>") to w. Each file's outcome is perf.Report.Outcome; the run takes
// the worst (perf.Worst). No result file at all, or one that cannot be read, is an
// infrastructure error (a configuration error writes none either, but the suite finds it
// before the run, in its plan-only pass); so is a go test that failed (goTestExit != 0) while
// every file passed, since the failure is then outside the results (a build error, a scenario
// that wrote nothing).
func RunOutcome(dir string, goTestExit int, w io.Writer) perf.Outcome {
	worst := perf.OutcomePass
	note := func(o perf.Outcome, where, why string) {
		worst = perf.Worst(worst, o)
		fmt.Fprintf(w, "%s: %s (exit %d): %s\n", where, o, int(o), why)
	}
	paths, err := RunFiles(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		note(perf.OutcomeInfra, dir, "no result file, not even the run's folder: the run measured nothing (a configuration error or a build failure: see the test log)")
	case err != nil:
		note(perf.OutcomeInfra, dir, err.Error())
	case len(paths) == 0:
		note(perf.OutcomeInfra, dir, "no result file: the run measured nothing (see the test log)")
	}
	for _, p := range paths {
		rep, err := ReadReport(p)
		if err != nil {
			note(perf.OutcomeInfra, p, err.Error())
			continue
		}
		o, why := rep.Outcome()
		note(o, p, fmt.Sprintf("%s/%s: %s", rep.Test, rep.Transport, why))
	}
	if goTestExit != 0 && worst == perf.OutcomePass {
		note(perf.OutcomeInfra, "go test", fmt.Sprintf("exited %d, yet every result file passed: the failure is outside the results "+
			"(a build error, a test that wrote no result file): see the test log", goTestExit))
	}
	fmt.Fprintf(w, "exit %d: %s\n", int(worst), worst)
	return worst
}
