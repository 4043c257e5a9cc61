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
	name := fileSafe.Replace(testName)
	if label != "" {
		name += "_" + fileSafe.Replace(label)
	}
	base := filepath.Join(filepath.Dir(resultPath), "logs", name)
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
