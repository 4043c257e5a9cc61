package runner_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"
)

// Under DAPR_PERF_INVALID_RETRIES=1 a run that is invalid at a named load runs once more at the
// same load, with a fresh deployment. stepDownScenario's baseline cannot keep 400 QPS, so both
// attempts are invalid and the test fails; the first attempt's file is kept beside the result,
// and the result says it came after an invalid attempt. It runs in a child test process, as its
// failure is the point.
func TestAnInvalidRunRunsAgainAtTheSameLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs of 6 s phases in a child process")
	}
	if os.Getenv("DAPRPERF_CHILD") == "retried" {
		fp := &fakePlatform{}
		runner.Run(t, stepDownScenario(), runner.WithPlatform(fp), runner.WithReportDir(os.Getenv("DAPRPERF_CHILD_DIR")))
		t.Logf("deployments started: %d", fp.started.Load())
		return
	}
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestAnInvalidRunRunsAgainAtTheSameLoad$", "-test.v")
	cmd.Env = append(os.Environ(), "DAPRPERF_CHILD=retried", "DAPRPERF_CHILD_DIR="+dir,
		perf.EnvQPS+"=400", perf.EnvInvalidRetries+"=1", runner.EnvRunID+"=retried")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "a run invalid on every attempt fails:\n%s", out)
	assert.Contains(t, string(out), "attempt_1")
	assert.Contains(t, string(out), "running again at the same load (DAPR_PERF_INVALID_RETRIES=1)")
	assert.Contains(t, string(out), "deployments started: 2", "one deployment per attempt")

	resDir := filepath.Join(dir, "runs", "retried", "stepdown", "http")
	entries, err := os.ReadDir(resDir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"attempt-1.json", "result.json"}, names)

	first, err := report.ReadReport(filepath.Join(resDir, "attempt-1.json"))
	require.NoError(t, err, "the invalid attempt's result file is kept")
	assert.False(t, first.Validity.Valid)
	assert.Equal(t, 400, first.Params.QPS)
	last, err := report.ReadReport(filepath.Join(resDir, "result.json"))
	require.NoError(t, err)
	assert.False(t, last.Validity.Valid, "the second attempt is invalid too, and is the result")
	assert.False(t, last.Pass)
	assert.Equal(t, 400, last.Params.QPS, "the same load")
	var said int
	for _, w := range last.Warnings {
		if strings.Contains(w, "attempt 2 of at most 2 (DAPR_PERF_INVALID_RETRIES=1): attempt 1 at this load was INVALID (round 1 baseline") &&
			strings.Contains(w, "attempt-1.json") {
			said++
		}
	}
	assert.Equal(t, 1, said, "the result names the attempt before it, once: %q", last.Warnings)
}
