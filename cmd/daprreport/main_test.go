package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunErrors: every bad argument is an error that names it, with exit code 1; a usage error
// is 2; nothing is written on an error.
func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	notResult := filepath.Join(dir, "other.json")
	if err := os.WriteFile(notResult, []byte(`{"name": "not a result"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "test_report_perf.json")
	v1165 := filepath.Join("..", "..", "reports", "v1.16.5", "service_invocation", "http", "result.json")
	v1175 := filepath.Join(reference, "service_invocation", "http", "result.json")
	cases := []struct {
		name string
		args []string
		code int
		says []string // in the error output
	}{
		{"no path", nil, 2, []string{"usage: daprreport"}},
		{"bad flag", []string{"-x", v1175}, 2, []string{"usage: daprreport"}},
		{"no such file", []string{filepath.Join(dir, "missing.json")}, 1, []string{filepath.Join(dir, "missing.json"), "no such file"}},
		{"not a result file", []string{notResult}, 1, []string{notResult, "cannot read it as a daprperf result file"}},
		{"not JSON", []string{"main.go"}, 1, []string{"main.go", "cannot read it as a daprperf result file"}},
		{"folder without results", []string{empty}, 1, []string{empty, "no result file"}},
		{"one bad among good", []string{v1175, filepath.Join(dir, "missing.json")}, 1, []string{filepath.Join(dir, "missing.json")}},
		{"only variants", []string{filepath.Join(reference, "state_get_redis")}, 1, []string{"skipped", "none of the 2 result files"}},
		{"two daprd versions", []string{v1165, v1175}, 1, []string{v1165, v1175, "1.16.5", "1.17.5"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"-o", out}, tc.args...), &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			for _, s := range tc.says {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr does not say %q:\n%s", s, stderr.String())
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written on an error", out)
			}
		})
	}
}

// TestRunWrites: -o writes the events to a file, leaving nothing else in its folder; without it
// they go to standard output; skipped variants are named on standard error.
func TestRunWrites(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "test_report_perf.json")
	si := filepath.Join(reference, "service_invocation")
	variant := filepath.Join(reference, "state_get_redis", "http", "result.json")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-o", out, si, variant}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "skipped "+variant) {
		t.Errorf("the variant is not named as skipped:\n%s", stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the folder, want the output only", len(entries))
	}
	tests := map[string]bool{}
	for line := range strings.Lines(string(b)) {
		var ev daprEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not an event: %v: %s", err, line)
		}
		if ev.Action == "run" {
			tests[ev.Package+" "+ev.Test] = true
		}
	}
	for _, want := range []string{
		"github.com/dapr/dapr/tests/perf/service_invocation_http TestServiceInvocationHTTPPerformance",
		"github.com/dapr/dapr/tests/perf/service_invocation_grpc TestServiceInvocationGrpcPerformance",
	} {
		if !tests[want] {
			t.Errorf("no run of %s (runs: %v)", want, tests)
		}
	}
	if len(tests) != 2 {
		t.Errorf("runs %v, want the two", tests)
	}

	stdout.Reset()
	stderr.Reset()
	if code := run([]string{si}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !bytes.Equal(stdout.Bytes(), b) {
		t.Errorf("standard output differs from the file written with -o")
	}
}
