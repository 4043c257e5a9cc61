package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyPublished copies a published result file of the repository into root at the same path.
func copyPublished(t *testing.T, root, rel string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../reports", rel))
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The commands' exit codes and output: rebuild and list on real result files, add twice, a
// corrupt file (rebuild: 3 and its name; add: 1), a file outside the root, bad usage.
func TestCommands(t *testing.T) {
	root := t.TempDir()
	copyPublished(t, root, "v1.17.5/service_invocation/http/result.json")
	copyPublished(t, root, "v1.16.5/memory_growth/http/result.json")
	var out, errs bytes.Buffer
	code := func(args ...string) int {
		out.Reset()
		errs.Reset()
		return run(args, &out, &errs)
	}

	if c := code("rebuild", root); c != exitOK || !strings.Contains(out.String(), "2 entries (0 missing)") {
		t.Fatalf("rebuild: exit %d, %q %q", c, out.String(), errs.String())
	}
	if c := code("list", root); c != exitOK {
		t.Fatalf("list: exit %d, %s", c, errs.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "time (UTC)") {
		t.Fatalf("list:\n%s\nwant a header and 2 lines", out.String())
	}
	// The published references: memory growth on 2026-12-05 23:50 (no overhead), service
	// invocation at 22:06 with an overhead p90 median of 3.703 ms.
	if f := strings.Fields(lines[1]); f[2] != "ref-si-v1.17.5-6r" || f[3] != "service_invocation/http" || f[4] != "1.17.5" ||
		!strings.HasSuffix(f[5], "~") || f[6] != "3.703" || f[7] != "ms" {
		t.Errorf("list line %q: want the v1.17.5 service invocation run first, overhead p90 3.703 ms, an incomplete fingerprint", lines[1])
	}
	if f := strings.Fields(lines[2]); f[3] != "memory_growth/http" || f[6] != "-" {
		t.Errorf("list line %q: want memory growth without an overhead", lines[2])
	}
	for _, l := range lines {
		if strings.HasSuffix(l, " ") {
			t.Errorf("list line %q ends in spaces", l)
		}
	}

	copyPublished(t, filepath.Join(root, "runs"), "v1.16.5/service_invocation/http/result.json") // a run folder: runs/v1.16.5
	moved := filepath.Join(root, "runs", "v1.16.5")
	for range 2 {
		if c := code("add", root, moved); c != exitOK || !strings.Contains(out.String(), "3 entries") {
			t.Errorf("add: exit %d, %q %q; want 3 entries each time", c, out.String(), errs.String())
		}
	}

	bad := filepath.Join(root, "runs", "bad", "state_get", "http", "result.json")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := code("add", root, bad); c != exitFailed || !strings.Contains(errs.String(), bad) {
		t.Errorf("add of a corrupt file: exit %d, %q; want 1 naming it", c, errs.String())
	}
	if c := code("rebuild", root); c != exitSkipped || !strings.Contains(errs.String(), bad) || !strings.Contains(out.String(), "3 entries") {
		t.Errorf("rebuild with a corrupt file: exit %d, %q %q; want 3 naming it, 3 entries", c, out.String(), errs.String())
	}
	if c := code("add", root, filepath.Join(t.TempDir(), "result.json")); c != exitFailed {
		t.Errorf("add of a file that is not there: exit %d, want 1", c)
	}
	for _, args := range [][]string{nil, {"list"}, {"show", root}, {"add", root}, {"rebuild", root, "extra"}} {
		if c := code(args...); c != exitUsage || !strings.Contains(errs.String(), "usage:") {
			t.Errorf("%q: exit %d, want 2 with the usage", args, c)
		}
	}
}
