package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// resultFileName is the name the runner gives a result file: result.json, or result-<n>.json
// for a scenario run again in the same run.
var resultFileName = regexp.MustCompile(`^result(-[0-9]+)?\.json$`)

// loaded is one result file and its report.
type loaded struct {
	path string
	rep  *perf.Report
}

// readArgs reads every result file the arguments name: a file is read as a result file, a
// folder is searched for result files (resultFileName) in lexical order. Each failure names
// its argument: one that does not exist, a folder without result files, a file that is not a
// daprperf result file (report.ReadReport refuses it).
func readArgs(args []string) ([]loaded, error) {
	var out []loaded
	var errs []error
	for _, arg := range args {
		files, err := resultFiles(arg)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range files {
			rep, err := report.ReadReport(f)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: cannot read it as a daprperf result file: %w", f, err))
				continue
			}
			out = append(out, loaded{f, rep})
		}
	}
	return out, errors.Join(errs...)
}

// resultFiles is arg itself when it is a file, or the result files under the folder arg.
func resultFiles(arg string) ([]string, error) {
	fi, err := os.Stat(arg)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file or folder", arg)
		}
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	if !fi.IsDir() {
		return []string{arg}, nil
	}
	var out []string
	err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && resultFileName.MatchString(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no result file (result.json) under this folder", arg)
	}
	return out, nil
}

// sameDaprd checks that every file measured one daprd version: Dapr's report averages the runs
// of one test, so mixing versions would average two daprd builds.
func sameDaprd(files []loaded) error {
	for _, f := range files[1:] {
		if v, w := f.rep.Environment.DaprVersion, files[0].rep.Environment.DaprVersion; v != w {
			return fmt.Errorf("%s is daprd %s, %s is daprd %s: Dapr's report would average them; convert one version at a time",
				files[0].path, w, f.path, v)
		}
	}
	return nil
}
