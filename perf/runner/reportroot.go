package runner

import (
	"path/filepath"

	"github.com/daprperf/daprperf/perf"
)

func defaultReportRoot() (string, error) {
	root, err := perf.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "reports"), nil
}
