package perf

import (
	"path/filepath"
)

func defaultReportRoot() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "reports"), nil
}
