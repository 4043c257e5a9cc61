package perf_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"
)

// importRules are the module's own imports each package may have (its non-test files), by
// import path relative to the module; a pattern ending in "/..." covers the packages below
// it. The leaves (perf/driver, perf/growth, perf/hdr, perf/stats) import no package of the
// module but each other. docs/architecture.md states the same rules.
var importRules = []struct {
	pkg     string
	allowed []string
}{
	{"perf/driver", []string{"perf/hdr", "perf/stats"}},
	{"perf/growth", []string{"perf/stats"}},
	{"perf/hdr", nil},
	{"perf/stats", nil},
	{"perf", []string{"perf/driver", "perf/growth", "perf/hdr", "perf/stats"}},
	{"perf/report", []string{"perf", "perf/growth", "perf/hdr", "perf/stats"}},
	{"perf/push", []string{"perf", "perf/report", "perf/growth"}},
	{"perf/plan", []string{"perf", "perf/report", "perf/driver", "perf/growth", "perf/hdr", "perf/stats"}},
	{"perf/runner", []string{"perf", "perf/report", "perf/push", "perf/growth", "perf/hdr", "perf/stats"}},
	{"internal/...", nil},
	{"local/...", []string{"perf", "local/...", "internal/...", "perf/hdr", "perf/stats"}},
	{"kube/...", []string{"perf", "kube/...", "internal/...", "perf/hdr", "perf/stats"}},
	{"apps/...", []string{"perf", "apps/...", "perf/driver", "perf/hdr", "perf/stats"}},
	{"charts", []string{"perf", "perf/report", "perf/growth", "perf/hdr", "perf/stats"}},
	{"cmd/...", []string{"perf", "perf/report"}},
	{"tests/scenarios", []string{"perf", "perf/plan", "perf/runner", "perf/driver", "local", "kube"}},
	{"docs", nil},
}

// match reports whether import path p (relative to the module) is pattern pat.
func match(pat, p string) bool {
	if base, ok := strings.CutSuffix(pat, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return p == pat
}

// Every package of the module imports only what importRules allows it: the core's packages
// point one way (perf <- report <- push, perf <- plan, perf <- runner, runner never importing
// plan), and the platforms and apps know only the vocabulary.
func TestImportRules(t *testing.T) {
	root, err := perf.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], perf.ModulePath+"/")
		if !ok {
			continue // the module's root package, if any
		}
		var allowed []string
		ruled := false
		for _, r := range importRules {
			if match(r.pkg, pkg) {
				allowed, ruled = r.allowed, true
				break
			}
		}
		if !ruled {
			if !strings.HasPrefix(pkg, "tests/") { // the scenario packages hold only tests
				t.Errorf("package %s has no import rule: add it to importRules and docs/architecture.md", pkg)
			}
			continue
		}
		seen++
		for _, imp := range fields[1:] {
			rel, own := strings.CutPrefix(imp, perf.ModulePath+"/")
			if !own {
				continue
			}
			ok := false
			for _, a := range allowed {
				ok = ok || match(a, rel)
			}
			if !ok {
				t.Errorf("%s imports %s, which its rule does not allow (allowed: %v)", pkg, rel, allowed)
			}
		}
	}
	if seen < 15 {
		t.Errorf("checked %d packages; the module has more", seen)
	}
}
