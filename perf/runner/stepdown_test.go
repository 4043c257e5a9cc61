package runner_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// stepDownScenario's preflight loads only its main route, a fast app, and keeps 400 QPS; its
// baseline route is an app that answers in 10 ms on 2 connections (at most 200 QPS), so the
// full run at 400 QPS is invalid and the one at the ladder's next load, 100 QPS, is valid. Its
// phases last 6 s: one stall of the machine makes up to 2 requests per connection late, under
// the 1 % validity bound of 600 requests (of 2 s phases it made 4 of 200 late in CI).
func stepDownScenario() perf.Scenario {
	sc := calibration()
	sc.Test = "stepdown"
	sc.Apps[1].Args = []string{"-delay=10ms"} // "fast", the baseline's app, is now the slow one
	sc.Apps[2].Args = nil
	sc.MainOptions = []perf.Option{perf.WithQPS(400), perf.WithConnections(2), perf.WithDuration(6 * time.Second)}
	sc.WarmupOptions = []perf.Option{perf.WithQPS(50), perf.WithConnections(2), perf.WithDuration(time.Second)}
	sc.Ladder = []int{400, 100}
	sc.Thresholds = []perf.Threshold{{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "test"}}
	return sc
}

func TestAnInvalidRunAtThePreflightsLoadStepsDown(t *testing.T) {
	if testing.Short() {
		t.Skip("a preflight step and two runs of 6 s phases")
	}
	t.Setenv(perf.EnvPreflight, "ladder")
	t.Setenv(runner.EnvRunID, "stepdown-test")
	// The test's premise is that the preflight keeps 400 QPS on the fast main route. One stall
	// of a loaded machine of 30 ms or more puts its 6 s step past the preflight's 0.5 % bound,
	// and the preflight then chooses 100 QPS itself; such a run tests nothing here, so it runs
	// again, at most premiseAttempts times in all.
	const premiseAttempts = 3
	var (
		dir string
		fp  *fakePlatform
		rep *perf.Report
	)
	for i := 1; ; i++ {
		dir = t.TempDir()
		fp = &fakePlatform{}
		rep = runner.Run(t, stepDownScenario(), runner.WithPlatform(fp), runner.WithReportDir(dir))
		pf := rep.Preflight
		if pf == nil || len(pf.Steps) == 0 || pf.Steps[0].Kept || i == premiseAttempts {
			break
		}
		t.Logf("attempt %d: the preflight's 400 QPS step fell behind (%+v), a stall of the machine; running again", i, pf.Steps[0])
	}

	assert.EqualValues(t, 2, fp.started.Load(), "one deployment per attempt")
	assert.Equal(t, 100, rep.Params.QPS, "the last attempt ran at the ladder's next load")
	assert.True(t, rep.Validity.Valid, "%v", rep.Validity.Reasons)
	pf := rep.Preflight
	require.NotNil(t, pf)
	require.Len(t, pf.Steps, 1, "the preflight measured once: %+v", pf.Steps)
	assert.True(t, pf.Steps[0].Kept, "the main route keeps 400 QPS: %+v", pf.Steps[0])
	assert.Equal(t, 100, pf.ChosenQPS)
	require.Len(t, pf.StepDowns, 1)
	sd := pf.StepDowns[0]
	assert.Equal(t, 400, sd.QPS)
	assert.Equal(t, "attempt-400qps.json", sd.File)
	require.NotEmpty(t, sd.Reasons)
	assert.Contains(t, sd.Reasons[0], "round 1 baseline")
	assert.Contains(t, pf.Note, "the full-length run at 400 QPS was INVALID (round 1 baseline")
	assert.Contains(t, pf.Note, "ran again at 100 QPS, the ladder's next load")
	assert.Contains(t, report.Summary(rep), pf.Note)

	// Both result files are kept: the invalid attempt's set aside, the last one's as result.json.
	resDir := filepath.Dir(rep.RunPath(dir))
	first, err := report.ReadReport(filepath.Join(resDir, sd.File))
	require.NoError(t, err, "the invalid attempt's result file is kept")
	assert.False(t, first.Validity.Valid)
	assert.False(t, first.Pass)
	assert.Equal(t, 400, first.Params.QPS)
	last, err := report.ReadReport(rep.RunPath(dir))
	require.NoError(t, err)
	assert.Equal(t, 100, last.Params.QPS)
	require.NotNil(t, last.Preflight)
	assert.Len(t, last.Preflight.StepDowns, 1, "the result file lists the step down")
	entries, err := os.ReadDir(resDir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"attempt-400qps.json", "result.json"}, names)
}

// A load the user names is kept strictly: the same scenario at DAPR_PERF_QPS=400 is one
// invalid run, not stepped down. It runs in a child test process, as its failure is the point.
func TestANamedLoadIsNotSteppedDown(t *testing.T) {
	if testing.Short() {
		t.Skip("a run of 6 s phases in a child process")
	}
	if os.Getenv("DAPRPERF_CHILD") == "named-load" {
		fp := &fakePlatform{}
		runner.Run(t, stepDownScenario(), runner.WithPlatform(fp), runner.WithReportDir(os.Getenv("DAPRPERF_CHILD_DIR")))
		t.Logf("deployments started: %d", fp.started.Load())
		return
	}
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestANamedLoadIsNotSteppedDown$", "-test.v")
	cmd.Env = append(os.Environ(), "DAPRPERF_CHILD=named-load", "DAPRPERF_CHILD_DIR="+dir,
		perf.EnvPreflight+"=ladder", perf.EnvQPS+"=400", runner.EnvRunID+"=named-load")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "an invalid run at a named load fails:\n%s", out)
	assert.Contains(t, string(out), "INVALID run")
	assert.Contains(t, string(out), "deployments started: 1")
	assert.NotContains(t, string(out), "at_preflight_load", "no attempts as subtests")
	matches, err := filepath.Glob(filepath.Join(dir, "runs", "named-load", "stepdown", "http", "*.json"))
	require.NoError(t, err)
	assert.Len(t, matches, 1, "one result file: %v", matches)
}
