package charts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// resultFile is the name of a report file; charts and README.md are written next to it.
const resultFile = "result.json"

// scenario is one result file and the report read from it.
type scenario struct {
	// Path is the result file; Dir its directory, where the charts and README.md go.
	Path, Dir string
	Report    *perf.Report
}

// Key names the scenario independently of where its file lies: "<test>/<transport>".
func (s scenario) Key() string { return s.Report.Test + "/" + string(s.Report.Transport) }

// loadReports walks root for result files and reads each with report.ReadReport, in lexical
// path order. A missing root, an empty tree, a malformed file or one of another schema version
// is an error naming the directory or file; every bad file is reported, not only the first.
// root may also be a result file itself.
func loadReports(root string) ([]scenario, error) {
	return loadReportsSkipping(root, "")
}

// loadReportsSkipping is loadReports leaving out the directory skip (a path under root; ""
// skips nothing): generate leaves out <reports>/runs, the unpublished runs.
func loadReportsSkipping(root, skip string) ([]scenario, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("charts: reports directory: %w", err)
	}
	if !info.IsDir() {
		rep, err := report.ReadReport(root)
		if err != nil {
			return nil, fmt.Errorf("charts: %s: %w", root, err)
		}
		return []scenario{{Path: root, Dir: filepath.Dir(root), Report: rep}}, nil
	}
	var paths []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skip != "" && filepath.Clean(path) == filepath.Clean(skip) {
			return filepath.SkipDir
		}
		if !d.IsDir() && report.IsResultFile(d.Name()) {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("charts: walk %s: %w", root, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("charts: no %s under %s", resultFile, root)
	}
	var (
		out  []scenario
		errs []error
	)
	for _, p := range paths {
		rep, err := report.ReadReport(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("charts: %s: %w", p, err))
			continue
		}
		out = append(out, scenario{Path: p, Dir: filepath.Dir(p), Report: rep})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// versionGroup is the scenarios under one reports/v<version>/ directory.
type versionGroup struct {
	// Dir is the version directory; Name its base name ("v1.17.5").
	Dir, Name string
	Scenarios []scenario
}

// groupByVersion groups scenarios by their version directory, two levels above the scenario
// directory (<version>/<test>/<transport>), in order of first appearance. Scenarios whose
// version directory would lie outside root have none and are left out.
func groupByVersion(root string, scs []scenario) []versionGroup {
	var out []versionGroup
	index := map[string]int{}
	for _, sc := range scs {
		dir := filepath.Dir(filepath.Dir(sc.Dir))
		rel, err := filepath.Rel(root, dir)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		i, ok := index[dir]
		if !ok {
			i = len(out)
			index[dir] = i
			out = append(out, versionGroup{Dir: dir, Name: filepath.Base(dir)})
		}
		out[i].Scenarios = append(out[i].Scenarios, sc)
	}
	return out
}

// byKey indexes scenarios by Key; two files for the same scenario are an error naming both.
func byKey(scs []scenario) (map[string]scenario, error) {
	out := make(map[string]scenario, len(scs))
	for _, sc := range scs {
		if prev, ok := out[sc.Key()]; ok {
			return nil, fmt.Errorf("charts: scenario %s twice: %s and %s", sc.Key(), prev.Path, sc.Path)
		}
		out[sc.Key()] = sc
	}
	return out, nil
}
