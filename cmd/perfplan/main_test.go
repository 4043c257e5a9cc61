package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

func line(pkg, test string, expected, upTo float64) perf.PlanLine {
	return perf.PlanLine{Package: pkg, Test: test, Scenario: test, Transport: "http", Plan: "overhead", Platform: "local",
		QPS: 100, Connections: 16, DurationSeconds: 10, ExpectedSeconds: expected, UpToSeconds: upTo,
		Phases: []perf.PlanLinePhase{{Name: "round 1/1 main, 100 QPS x 10s", Seconds: 10}}}
}

// Parse finds the plan lines among go test's other output and reads them back whole; the
// table and the package lines total them per package, in the order go test ran them.
func TestParseTableAndPackages(t *testing.T) {
	a := line("tests/b_pkg", "TestB/one", 35, 0)
	b := line("tests/b_pkg", "TestB/two", 40.5, 0)
	c := line("tests/a_pkg", "TestA", 70, 60)
	c.Plan = "iterations"
	out := strings.Join([]string{
		"=== RUN   TestB", a.String(), "    b_test.go:12: plan only", b.String(), "--- PASS: TestB (0.00s)",
		"ok  \tgithub.com/daprperf/daprperf/tests/b_pkg\t0.02s", "=== RUN   TestA", c.String(), "PASS",
	}, "\n")
	lines, err := Parse(strings.NewReader(out))
	require.NoError(t, err)
	assert.Equal(t, []perf.PlanLine{a, b, c}, lines)

	var pk bytes.Buffer
	require.NoError(t, WritePackages(&pk, lines))
	assert.Equal(t, "tests/b_pkg 76 0 2\ntests/a_pkg 10 60 1\n", pk.String()) // 75.5 s rounds to 76

	var tb bytes.Buffer
	require.NoError(t, WriteTable(&tb, lines))
	s := tb.String()
	assert.Regexp(t, `tests/b_pkg +TestB/one +overhead +100 QPS x 10s, 16 conn +1 +35s\n`, s)
	assert.Regexp(t, `tests/b_pkg +\(package\) +1m16s\n`, s)
	assert.Regexp(t, `tests/a_pkg +TestA +iterations +closed-loop iterations +1 +up to 1m10s\n`, s)
	assert.Contains(t, s, "suite: 2 packages, 3 scenarios, expected about 2m26s (1m0s of it is the maxDuration of closed-loop runs")
	assert.Contains(t, s, "without it 1m26s")
}

func TestParseBadLineNamesItsNumber(t *testing.T) {
	_, err := Parse(strings.NewReader("ok\n" + perf.PlanLinePrefix + "{not json\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 2: plan line")
}

// The plan-only pass over a real perf package: one plan line whose expected time is the sum of
// the smoke's phases, and nothing started. DAPR_PERF_DAPRD names no file, so constructing the
// local platform (which runs daprd --version) would fail the test; TMPDIR is a fresh folder, in
// which the local platform would create its daprperf-local-* run folder; the report root stays
// empty (no result file).
func TestPlanOnlyPassOverARealPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a perf test binary")
	}
	root, err := perf.RepoRoot()
	require.NoError(t, err)
	tmp, reports := t.TempDir(), t.TempDir()
	cmd := exec.CommandContext(t.Context(), "go", "test", "-tags", "perf", "-count=1", "-v", "./tests/service_invocation_http")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "DAPR_PERF_PLAN_ONLY=1", "DAPR_PERF_DAPRD="+filepath.Join(tmp, "no-daprd"), "TMPDIR="+tmp,
		"DAPR_PERF_REPORT_DIR="+reports, "DAPR_TEST_DURATION=10s", "DAPR_PERF_QPS=100", "DAPR_PERF_WARMUP_DURATION=3s", "DAPR_PERF_PREFLIGHT=ladder")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines, err := Parse(bytes.NewReader(out))
	require.NoError(t, err)
	require.Len(t, lines, 1, "%s", out)
	l := lines[0]
	assert.Equal(t, "tests/service_invocation_http", l.Package)
	assert.Equal(t, "TestServiceInvocationHTTPPerformance", l.Test)
	assert.Equal(t, "service_invocation", l.Scenario)
	// DAPR_PERF_QPS set: no preflight; a 10 s baseline, the 3 s warmup, a 10 s main phase and
	// the 10 s idle window, each plus 0.5 s.
	assert.Equal(t, 10.0+3+10+10+4*0.5, l.ExpectedSeconds)
	assert.Equal(t, 100, l.QPS)
	left, err := filepath.Glob(filepath.Join(tmp, "daprperf-local-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "the local platform created its run folder")
	entries, err := os.ReadDir(reports)
	require.NoError(t, err)
	assert.Empty(t, entries, "a result was written")
}
