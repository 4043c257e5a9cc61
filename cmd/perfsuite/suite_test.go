package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

func planLine(test string, expected, upTo float64) perf.PlanLine {
	l := perf.PlanLine{Package: "tests/x", Test: test, Scenario: test, Transport: "http", Plan: "overhead", Platform: "local",
		QPS: 100, Connections: 16, DurationSeconds: 10, ExpectedSeconds: expected, UpToSeconds: upTo,
		Phases: []perf.PlanLinePhase{{Name: "round 1/1 main, 100 QPS x 10s", Seconds: 10}}}
	if upTo > 0 {
		l.Plan, l.QPS = "iterations", 0
		l.Phases = []perf.PlanLinePhase{{Name: "iterations", Seconds: upTo, UpTo: true}}
	}
	return l
}

// eventStream writes test2json events: each pair is a test name and an output, or an action
// ("!fail") for that test.
func eventStream(t *testing.T, pairs ...string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(pairs); i += 2 {
		e := map[string]string{"Action": "output", "Package": "x", "Test": pairs[i], "Output": pairs[i+1]}
		if a, ok := strings.CutPrefix(pairs[i+1], "!"); ok {
			e["Action"] = a
			delete(e, "Output")
		}
		require.NoError(t, json.NewEncoder(&b).Encode(e))
	}
	return b.String()
}

// The events' output is printed as it came; a plan line split over two events (test2json
// splits long lines) reads whole; a failed test is kept with its last lines, and its parent,
// which failed through it, is not.
func TestReadEvents(t *testing.T) {
	pl := planLine("TestA/one", 35, 0).String()
	var logs []string
	for i := range 15 {
		logs = append(logs, "TestA/two", "    log line "+string(rune('a'+i))+"\n")
	}
	in := eventStream(t, append(append([]string{
		"TestA", "=== RUN   TestA\n",
		"TestA/one", "=== RUN   TestA/one\n",
		"TestA/one", pl[:20], "TestA/one", pl[20:] + "\n",
		"TestA/one", "--- PASS: TestA/one (0.00s)\n", "TestA/one", "!pass",
		"TestA/two", "=== RUN   TestA/two\n"}, logs...),
		"TestA/two", "--- FAIL: TestA/two (0.00s)\n", "TestA/two", "!fail",
		"TestA", "--- FAIL: TestA (0.00s)\n", "TestA", "!fail",
		"", "FAIL\n", "", "!fail")...)
	var out bytes.Buffer
	ev := readEvents(strings.NewReader(in), &out, "tests/x")
	require.NoError(t, ev.err)
	assert.Equal(t, []perf.PlanLine{planLine("TestA/one", 35, 0)}, ev.plans)
	assert.True(t, strings.HasPrefix(out.String(), "=== RUN   TestA\n=== RUN   TestA/one\n"+pl+"\n"), "%s", out.String())
	assert.True(t, strings.HasSuffix(out.String(), "--- FAIL: TestA (0.00s)\nFAIL\n"), "%s", out.String())
	require.Len(t, ev.failed, 1)
	f := ev.failed[0]
	assert.Equal(t, "TestA/two", f.Test)
	require.Len(t, f.Lines, tailLines)
	assert.Equal(t, "--- FAIL: TestA/two (0.00s)", f.Lines[tailLines-1])
	assert.Equal(t, "    log line e", f.Lines[0])

	var why bytes.Buffer
	writeFailures(&why, ev.failed, 5)
	assert.Equal(t, "        log line l\n        log line m\n        log line n\n        log line o\n    --- FAIL: TestA/two (0.00s)\n", why.String())
}

// The table has a row per scenario, a total per package of several and the suite's total;
// the load column and "up to" come from the plan line's phases, not its kind; the progress
// lines count the plan without the upper bounds.
func TestTableAndProgress(t *testing.T) {
	plan := []planPkg{
		{Name: "tests/b_pkg", Lines: []perf.PlanLine{planLine("TestB/one", 35, 0), planLine("TestB/two", 40.5, 0)}},
		{Name: "tests/a_pkg", Lines: []perf.PlanLine{planLine("TestA", 70, 60)}},
	}
	var tb bytes.Buffer
	require.NoError(t, writeTable(&tb, plan))
	s := tb.String()
	assert.Regexp(t, `tests/b_pkg +TestB/one +overhead +100 QPS x 10s, 16 conn +1 +35s\n`, s)
	assert.Regexp(t, `tests/b_pkg +\(package\) +1m16s\n`, s)
	assert.Regexp(t, `tests/a_pkg +TestA +iterations +closed-loop iterations +1 +up to 1m10s\n`, s)
	assert.Contains(t, s, "suite: 2 packages, 3 scenarios, expected about 2m26s (1m0s of it is the maxDuration of closed-loop runs")
	assert.Contains(t, s, "without it 1m26s")

	var pb bytes.Buffer
	p := newProgress(plan, &pb)
	p.start("tests/b_pkg")
	p.done("tests/b_pkg")
	p.start("tests/unplanned") // a package without plan lines has no progress line
	p.done("tests/unplanned")
	p.start("tests/a_pkg")
	lines := strings.Split(pb.String(), "\n")
	require.Len(t, lines, 4, pb.String())
	assert.Regexp(t, `^perf: package 1 of 2: tests/b_pkg \(plan 1m16s\); elapsed 0s, suite ETA about 1m26s left \(\d\d:\d\d UTC\)$`, lines[0])
	assert.Regexp(t, `^perf: package 1 of 2 done: tests/b_pkg in 0s of wall time \(plan 1m16s\)$`, lines[1])
	assert.Regexp(t, `^perf: package 2 of 2: tests/a_pkg \(plan 10s\); elapsed 0s, suite ETA about 10s left`, lines[2])
}

func TestFmtSecs(t *testing.T) {
	for d, want := range map[time.Duration]string{6 * time.Second: "6s", 245 * time.Second: "4m05s", 3723 * time.Second: "1h02m03s", 1499 * time.Millisecond: "1s"} {
		assert.Equal(t, want, fmtSecs(d))
	}
}

// A bad flag, variable or package argument is a configuration error (exit 6) naming it, before
// anything is built.
func TestConfigurationErrors(t *testing.T) {
	root, err := perf.RepoRoot()
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"flag", []string{"-count=2", "./tests/jobs"}, nil, "the one flag is -run REGEXP"},
		{"plan only", nil, map[string]string{perf.EnvPlanOnly: "yes"}, `DAPR_PERF_PLAN_ONLY="yes": must be 1 or true`},
		{"timeout", nil, map[string]string{"PERF_TIMEOUT": "long"}, `PERF_TIMEOUT="long": must be a Go duration`},
		{"binaries folder", nil, map[string]string{"PERF_TEST_BINARIES": "/nonexistent"}, "PERF_TEST_BINARIES=/nonexistent: not a folder"},
		{"binary missing", []string{"./tests/jobs"}, map[string]string{"PERF_TEST_BINARIES": t.TempDir()}, "has no test binary for " + perf.ModulePath + "/tests/jobs"},
		{"no test package", []string{"./apps/internal/apptest"}, nil, "no test package in ./apps/internal/apptest"},
		{"no package", []string{"./tests/nonexistent"}, nil, "the package arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(root)
			reports := t.TempDir()
			for k, v := range map[string]string{"DAPR_PERF_RUN_ID": "config", "DAPR_PERF_REPORT_DIR": reports, "DAPR_PERF_COMMAND": "",
				"DAPR_PERF_OVERHEAD_GATE": "", "PATH": os.Getenv("PATH"), perf.EnvPlanOnly: "", "PERF_TIMEOUT": "", "PERF_TEST_BINARIES": ""} {
				t.Setenv(k, v)
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			code := run(tc.args, &stdout, &stderr)
			assert.Equal(t, perf.OutcomeConfig, code, "%s%s", &stdout, &stderr)
			assert.Contains(t, stderr.String(), tc.want)
			assert.Contains(t, stderr.String(), "configuration error (exit 6)")
			assert.NoDirExists(t, perf.RunDir(reports, "config"))
		})
	}
}

// The plan pass over a real package with -run, after the package: the selected scenario's
// plan row and the suite's total, a misspelled DAPR_PERF_* variable named once with the
// nearest known name, and nothing started or written. DAPR_PERF_DAPRD names no
// file, so constructing the local platform (which runs daprd --version) would fail; TMPDIR is
// a fresh folder, in which the local platform would create its daprperf-local-* run folder.
func TestPlanPassWithRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a perf test binary")
	}
	tmp, reports := t.TempDir(), t.TempDir()
	cmd := exec.CommandContext(t.Context(), perfsuite(t), "./tests/state_get_http", "-run", "TestStateGetHTTPPerformance/^state_get_redis$")
	cmd.Env = append(os.Environ(), perf.EnvPlanOnly+"=1", "DAPR_PERF_DAPRD="+filepath.Join(tmp, "no-daprd"), "TMPDIR="+tmp,
		"DAPR_PERF_REPORT_DIR="+reports, "DAPR_TEST_DURATION=10s", "DAPR_PERF_QPS=100", "DAPR_PERF_WARMUP_DURATION=3s",
		"DAPR_PERF_REPEAT=3")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Regexp(t, `(?m)^tests/state_get_http +TestStateGetHTTPPerformance/state_get_redis +overhead +100 QPS x 10s, \d+ conn +\d+ +\d+s$`, string(out))
	assert.NotContains(t, string(out), "state_get_postgresql", "-run picks one scenario")
	assert.Contains(t, string(out), "suite: 1 packages, 1 scenarios, expected about")
	assert.Contains(t, string(out), "perf: plan listed in")
	assert.Equal(t, 1, strings.Count(string(out), "perf: warning: DAPR_PERF_REPEAT is set, but daprperf reads no variable of that name: ignored (did you mean DAPR_PERF_REPEATS?)"), "%s", out)
	left, err := filepath.Glob(filepath.Join(tmp, "daprperf-local-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "the local platform created its run folder")
	entries, err := os.ReadDir(reports)
	require.NoError(t, err)
	assert.Empty(t, entries, "a result was written")
}

// scripts/perf.sh, which make calls, passes its arguments and perfsuite's exit code through.
func TestWrapperPassesTheExitCode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perfsuite into .bin")
	}
	cmd := exec.CommandContext(t.Context(), "../../scripts/perf.sh", "-count=2")
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	require.ErrorAs(t, err, &exitErr, "%s", out)
	assert.Equal(t, int(perf.OutcomeConfig), exitErr.ExitCode(), "%s", out)
	assert.Contains(t, string(out), "the one flag is -run REGEXP")
}

// fakeBinary is a stand-in test binary (a shell script) for PERF_TEST_BINARIES: in the plan
// pass it prints a plan line of 10 s and passes, in the run it fails with a message naming its
// package, or with FAKE_WAIT set waits until Ctrl-C and fails then. Its output carries the
// test2json markers a real binary writes under -test.v=test2json.
const fakeBinary = `#!/bin/sh
name=$(basename "$0" .test)
printf '\026=== RUN   TestFake\n'
if [ "$DAPR_PERF_PLAN_ONLY" = 1 ]; then
	printf 'daprperf-plan {"package":"tests/%s","test":"TestFake","plan":"overhead","qps":100,"connections":1,"durationSeconds":10,"phases":[{"name":"main","seconds":10}],"expectedSeconds":10}\n' "$name"
	printf '\026--- PASS: TestFake (0.00s)\nPASS\n'
	exit 0
fi
if [ -n "$FAKE_WAIT" ]; then
	trap 'kill $!; printf "    fake_test.go:2: interrupted\n\026--- FAIL: TestFake (0.00s)\nFAIL\n"; exit 1' INT
	printf '    fake_test.go:1: waiting\n'
	sleep 60 >/dev/null 2>&1 &
	wait
	exit 0
fi
printf '    fake_test.go:1: boom in %s\n\026--- FAIL: TestFake (0.00s)\nFAIL\n' "$name"
exit 1
`

// startFake starts perfsuite over fake binaries of tests/jobs and tests/workflows, in its own
// process group, with extra environment env; the group is killed when the test ends.
func startFake(t *testing.T, env ...string) (cmd *exec.Cmd, out *syncBuffer, runDir string) {
	t.Helper()
	bins, reports := t.TempDir(), t.TempDir()
	for _, name := range []string{"jobs", "workflows"} {
		require.NoError(t, os.WriteFile(filepath.Join(bins, name+".test"), []byte(fakeBinary), 0o755))
	}
	out = &syncBuffer{}
	cmd = exec.Command(perfsuite(t), "./tests/jobs", "./tests/workflows")
	cmd.Env = append(os.Environ(), "PERF_TEST_BINARIES="+bins, "DAPR_PERF_REPORT_DIR="+reports, "DAPR_PERF_RUN_ID=fake", perf.EnvPlanOnly+"=")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return cmd, out, perf.RunDir(reports, "fake")
}

// syncBuffer is a bytes.Buffer a command writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// exitCode waits for cmd and returns its exit code.
func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Wait()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode()
}

// A run whose binaries fail and write no result: the plan, a progress line before and after
// each package, go test's text for each (in test.log too), exit 5 in exit-code, and why: the
// verdicts and each failed test's last lines.
func TestRunOfFailingBinaries(t *testing.T) {
	cmd, out, runDir := startFake(t)
	code := exitCode(t, cmd)
	s := out.String()
	assert.Equal(t, int(perf.OutcomeInfra), code, "%s", s)
	assert.Regexp(t, `(?m)^tests/jobs +TestFake +overhead +100 QPS x 10s, 1 conn +1 +10s$`, s)
	assert.Contains(t, s, "expected about 20s for 2 packages")
	for _, want := range []string{
		"perf: package 1 of 2: tests/jobs (plan 10s); elapsed 0s, suite ETA about 20s left",
		"=== RUN   TestFake\n    fake_test.go:1: boom in jobs\n--- FAIL: TestFake (0.00s)\nFAIL\nFAIL\t" + perf.ModulePath + "/tests/jobs\t",
		"perf: package 2 of 2 done: tests/workflows in 0s of wall time (plan 10s)",
	} {
		assert.Contains(t, s, want)
	}
	log, err := os.ReadFile(filepath.Join(runDir, "test.log"))
	require.NoError(t, err)
	assert.Contains(t, string(log), "boom in workflows")
	assert.Contains(t, string(log), "perf: package 2 of 2: tests/workflows")
	assert.NotContains(t, string(log), "daprperf-plan", "the plan pass is not the run's log")
	b, err := os.ReadFile(filepath.Join(runDir, "exit-code"))
	require.NoError(t, err)
	assert.Equal(t, "5\n", string(b))
	_, why, ok := strings.Cut(s, "perf: why exit 5:\n")
	require.True(t, ok, "%s", s)
	assert.Contains(t, why, "infrastructure error (exit 5): no result file")
	assert.Contains(t, why, "  tests/jobs TestFake:\n    === RUN   TestFake\n        fake_test.go:1: boom in jobs\n    --- FAIL: TestFake (0.00s)\n")
	assert.Contains(t, why, "  tests/workflows TestFake:")
}

// Ctrl-C during the first package: the binary gets it and ends its test; the second package
// does not run; exit 130, also in exit-code.
func TestRunInterrupted(t *testing.T) {
	cmd, out, runDir := startFake(t, "FAKE_WAIT=1")
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(out.String(), "fake_test.go:1: waiting") {
		require.True(t, time.Now().Before(deadline), "the fake binary never started:\n%s", out)
		time.Sleep(50 * time.Millisecond)
	}
	require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGINT), "Ctrl-C reaches the whole foreground group")
	code := exitCode(t, cmd)
	s := out.String()
	assert.Equal(t, int(perf.OutcomeInterrupted), code, "%s", s)
	assert.Contains(t, s, "fake_test.go:2: interrupted")
	assert.Contains(t, s, "perf: interrupted: the packages after tests/jobs do not run")
	assert.NotContains(t, s, "perf: package 2 of 2")
	b, err := os.ReadFile(filepath.Join(runDir, "exit-code"))
	require.NoError(t, err)
	assert.Equal(t, "130\n", string(b))
}
