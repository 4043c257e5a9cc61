package perf_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// envReaders are the packages that may read the process environment into a perf.Env
// (runner.LoadEnv): the runner, once per run, and the commands. Everything else gets the Env it
// needs passed down (perf.RunConfig.Env, the platforms' WithEnv, a scenario's ForEnv).
var envReaders = []string{"perf/runner", "cmd/..."}

// loadEnvCall matches a call of LoadEnv, whichever package it is called through.
var loadEnvCall = regexp.MustCompile(`\bLoadEnv\(`)

// No package but envReaders calls LoadEnv in its non-test files, with any build tag: the
// plans, the report, the push, the platforms and the scenarios never read the environment.
// Tests may call runner.LoadEnv to read what they set with t.Setenv as a run would.
func TestEnvironmentIsReadOnce(t *testing.T) {
	lines := goList(t, "-tags", "perf,kubenode", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}", "./...")
	if len(lines) < 20 {
		t.Fatalf("go list found %d packages; the module has more", len(lines))
	}
	for _, line := range lines {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		if allowedReader(rel(f[0])) {
			continue
		}
		for _, name := range strings.Fields(f[2]) {
			b, err := os.ReadFile(filepath.Join(f[1], name))
			if err != nil {
				t.Fatal(err)
			}
			for i, l := range strings.Split(string(b), "\n") {
				if loadEnvCall.MatchString(l) && !strings.HasPrefix(strings.TrimSpace(l), "//") {
					t.Errorf("%s/%s:%d calls LoadEnv: only %v read the environment; take the run's perf.Env instead (perf.RunConfig.Env, a platform's WithEnv, Scenario.ForEnv)", rel(f[0]), name, i+1, envReaders)
				}
			}
		}
	}
}

// allowedReader reports whether pkg (relative to the module) is one of envReaders.
func allowedReader(pkg string) bool {
	for _, r := range envReaders {
		if base, ok := strings.CutSuffix(r, "/..."); ok && (pkg == base || strings.HasPrefix(pkg, base+"/")) || pkg == r {
			return true
		}
	}
	return false
}
