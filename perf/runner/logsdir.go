package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// logsDir is where a deployment keeps its logs if its test fails (perf.WithLogsDir): beside
// the result file at resultPath, logs/<test name>[_<label>], the test's name with '/' and spaces
// as '_' (a retried attempt and a growth variant are each a name of their own), and "-2", "-3",
// ... after it when a failed deployment of the same name already kept its logs there.
func logsDir(resultPath, testName, label string) string {
	return runSubdir(resultPath, "logs", testName, label)
}

// profilesDir is where a run's sidecar profiles go (DAPR_PERF_PROFILES): as logsDir, under
// profiles/.
func profilesDir(resultPath, testName string) string {
	return runSubdir(resultPath, "profiles", testName, "")
}

// runSubdir is <the result file's folder>/<kind>/<test name>[_<label>], made unique as
// logsDir says.
func runSubdir(resultPath, kind, testName, label string) string {
	name := fileSafe.Replace(testName)
	if label != "" {
		name += "_" + fileSafe.Replace(label)
	}
	base := filepath.Join(filepath.Dir(resultPath), kind, name)
	dir := base
	for i := 2; i <= maxRunFiles; i++ {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
	return dir
}

// fileSafe makes a test name or label one folder name: '/' and spaces become '_'.
var fileSafe = strings.NewReplacer("/", "_", " ", "_")
