package charts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A published scenario's page sets it beside the same scenario of the newest version published
// before it, skipping versions that lack it; the oldest has no such section.
func TestPageAgainstThePreviousVersion(t *testing.T) {
	root := t.TempDir()
	put := func(ver, test string) {
		src := filepath.Join("..", "reports", "v1.18.3", "service_invocation", "http", "result.json")
		if ver == "v1.16.5" || ver == "v1.17.5" {
			src = filepath.Join("..", "reports", ver, "service_invocation", "http", "result.json")
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, ver, test, "http")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, resultFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("v1.16.5", "service_invocation")
	put("v1.17.5", "service_invocation")
	put("v1.18.3", "service_invocation")
	put("v1.16.5", "only_old")
	put("v1.18.3", "only_old")
	put("v1.10.0", "unrelated")
	scs, err := loadReportsSkipping(root, filepath.Join(root, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, sc := range scs {
		name, prev, ok := previousVersion(sc)
		if ok != (prev != nil) {
			t.Fatalf("%s: ok %v with report %v", sc.Path, ok, prev != nil)
		}
		rel, _ := filepath.Rel(root, sc.Path)
		got[filepath.ToSlash(rel)] = name
	}
	want := map[string]string{
		"v1.16.5/service_invocation/http/result.json": "",
		"v1.17.5/service_invocation/http/result.json": "v1.16.5",
		"v1.18.3/service_invocation/http/result.json": "v1.17.5",
		"v1.16.5/only_old/http/result.json":           "",
		"v1.18.3/only_old/http/result.json":           "v1.16.5", // v1.17.5 lacks it
		"v1.10.0/unrelated/http/result.json":          "",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: previous %q, want %q", k, got[k], v)
		}
	}
	var b strings.Builder
	for _, sc := range scs {
		if strings.HasPrefix(filepath.ToSlash(sc.Path), filepath.ToSlash(filepath.Join(root, "v1.18.3", "service_invocation"))) {
			name, prev, _ := previousVersion(sc)
			b.WriteString(scenarioMarkdownWith(sc.Report, nil, name, prev))
		}
	}
	page := b.String()
	for _, w := range []string{"\n## Against v1.17.5\n", "| figure | v1.17.5 | this | change | interval | U test | verdict |", "| overhead p90 | +3.703 ms"} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}
