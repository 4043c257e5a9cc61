package charts

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyResult copies a fixture's result file to dir/<test>/<transport>/result.json, with
// change applied to its JSON text.
func copyResult(t *testing.T, from, dir, change, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if change != "" {
		if !bytes.Contains(b, []byte(change)) {
			t.Fatalf("%s has no %q to change", from, change)
		}
		b = bytes.Replace(b, []byte(change), []byte(to), 1)
	}
	rel, _ := filepath.Rel(filepath.Join("testdata", "loads"), from)
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckRun(t *testing.T) {
	jobs := filepath.Join("testdata", "loads", "jobs_triggering", "http", "result.json")
	publish := filepath.Join("testdata", "loads", "pubsub_publish", "http", "result.json")
	pkgs := t.TempDir()
	for _, p := range []string{"jobs", "pubsub_publish_http", "state_get_http"} {
		if err := os.MkdirAll(filepath.Join(pkgs, p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkgs, p, "x_test.go"), []byte("//go:build perf\n\npackage x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A package whose test files are not perf-tagged is not expected to write a result.
	if err := os.MkdirAll(filepath.Join(pkgs, "helpers"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkgs, "helpers", "h_test.go"), []byte("package helpers\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("complete", func(t *testing.T) {
		dir := t.TempDir()
		copyResult(t, jobs, dir, "", "")
		var out strings.Builder
		if err := checkRun(dir, "c4", "", &out); err != nil {
			t.Fatalf("checkRun: %v\n%s", err, out.String())
		}
		if !strings.Contains(out.String(), "jobs_triggering/http complete (jobs.trigger plan") {
			t.Errorf("output %q names no complete jobs result", out.String())
		}
	})
	t.Run("another run and a lost section", func(t *testing.T) {
		dir := t.TempDir()
		copyResult(t, jobs, dir, `"scheduled": `, `"scheduled": 0, "was": `)
		copyResult(t, publish, dir, "", "")
		var out strings.Builder
		err := checkRun(dir, "c4", pkgs, &out)
		if err == nil {
			t.Fatalf("checkRun passed a run with a foreign and an empty result:\n%s", out.String())
		}
		for _, want := range []string{"2 of 2 result files incomplete", "no result file from state_get_http"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q, want %q in it", err, want)
			}
		}
		for _, want := range []string{`runID "c1", want "c4"`, "no job scheduled (jobs)"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output %q, want %q in it", out.String(), want)
			}
		}
		if strings.Contains(err.Error(), "helpers") {
			t.Errorf("error %q names a package without perf tests", err)
		}
	})
	t.Run("empty", func(t *testing.T) {
		if err := checkRun(t.TempDir(), "", "", &strings.Builder{}); err == nil || !strings.Contains(err.Error(), "no result file") {
			t.Errorf("checkRun of an empty dir = %v, want no result file", err)
		}
	})
}
