package report

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ScenarioPackages lists the folders under dir (such as the repository's tests) holding a test
// file whose first line is the perf build constraint, by folder name, sorted. It is an error
// when no folder has one.
func ScenarioPackages(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "*_test.go"))
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(fh)
		if sc.Scan() && strings.TrimSpace(sc.Text()) == "//go:build perf" {
			set[filepath.Base(filepath.Dir(f))] = true
		}
		fh.Close()
	}
	if len(set) == 0 {
		return nil, fmt.Errorf("%s: no folder there has a test file starting with //go:build perf", dir)
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}
