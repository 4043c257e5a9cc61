package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/daprperf/daprperf/perf"
)

// A bisection goes on after its highest comparison, whether that one's run folder is still
// under the runs or only its log is beside the outcome (a bisection moved to another checkout).
func TestLastRunCountsRunsAndLogs(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	if got := lastRun(root, dir, "b"); got != 0 {
		t.Errorf("none: %d, want 0", got)
	}
	for _, p := range []string{filepath.Join(root, perf.RunsDir, "b-02"), filepath.Join(root, perf.RunsDir, "other-09")} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"b-03.log", "b-x.log", "outcome.json"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := lastRun(root, dir, "b"); got != 3 {
		t.Errorf("runs up to 02, logs up to 03: %d, want 3", got)
	}
}
