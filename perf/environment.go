package perf

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ModulePath is this framework's Go module; RepoRoot looks for its go.mod.
const ModulePath = "github.com/daprperf/daprperf"

// RepoRoot is RepoRootFrom the working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("perf: repo root: %w", err)
	}
	return RepoRootFrom(dir)
}

// RepoRootFrom returns the nearest directory, dir or above, whose go.mod declares module
// ModulePath. Nested modules (such as daprd's build wrapper) are skipped.
func RepoRootFrom(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("perf: repo root: %w", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && moduleLine(string(b)) == ModulePath {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("perf: repo root: no go.mod of module %s in %s or above", ModulePath, dir)
		}
	}
}

func moduleLine(gomod string) string {
	for line := range strings.Lines(gomod) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`+"`")
		}
	}
	return ""
}

func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
