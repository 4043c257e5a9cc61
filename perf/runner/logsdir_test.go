package runner

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLogsDirIsBesideTheResultAndNeverReused: a deployment's logs folder is logs/<test name>
// beside the result file, the label after it, and a folder of the same name that a failed
// deployment already filled gets a numbered sibling.
func TestLogsDirIsBesideTheResultAndNeverReused(t *testing.T) {
	res := filepath.Join(t.TempDir(), "runs", "id", "state_get", "http", "result.json")
	want := filepath.Join(filepath.Dir(res), "logs", "TestStateGet_attempt_1")
	if got := logsDir(res, "TestStateGet/attempt_1", ""); got != want {
		t.Errorf("logsDir = %s, want %s", got, want)
	}
	if got, want := logsDir(res, "TestGrowth", "a fixed"), filepath.Join(filepath.Dir(res), "logs", "TestGrowth_a_fixed"); got != want {
		t.Errorf("with a label: %s, want %s", got, want)
	}
	if err := os.MkdirAll(want, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := logsDir(res, "TestStateGet/attempt_1", ""); got != want+"-2" {
		t.Errorf("after a kept one: %s, want %s-2", got, want)
	}
}
