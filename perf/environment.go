package perf

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/prometheus/procfs"
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

// newReport starts the report of one run: what ran, where and with what. The daprd version is
// filled in when the plan's first deployment starts (session.deploy).
func newReport(sc Scenario, cfg runConfig) *Report {
	now := time.Now().UTC()
	runID := cfg.runID
	if runID == "" {
		runID = NewRunID(now)
	}
	return &Report{
		Schema:       ReportSchema,
		Test:         sc.Test,
		Plan:         sc.plan().Kind(),
		Transport:    sc.Transport,
		RunID:        runID,
		Params:       cfg.main,
		WarmupParams: cfg.warmup,
		Environment: Environment{
			DaprVersion: "",
			Platform:    cfg.platform.Name(),
			CPUModel:    cpuModel(),
			CPUs:        runtime.NumCPU(),
			GoVersion:   runtime.Version(),
			GitCommit:   gitCommit(),
			StartTime:   now,
		},
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// cpuModel is the first processor's model name from /proc/cpuinfo ("" when unknown).
func cpuModel() string {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return ""
	}
	cpus, err := fs.CPUInfo()
	if err != nil || len(cpus) == 0 {
		return ""
	}
	return cpus[0].ModelName
}

// gitCommit reads the checked-out commit from the repository's .git folder (no git binary
// needed): HEAD, then the ref it names, loose or packed. "" when unknown.
func gitCommit() string {
	root, err := RepoRoot()
	if err != nil {
		return ""
	}
	gitDir := filepath.Join(root, ".git")
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !ok {
		return ref // detached HEAD: the hash itself
	}
	if b, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
		return strings.TrimSpace(string(b))
	}
	packed, err := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(packed)) {
		if f := strings.Fields(line); len(f) == 2 && f[1] == ref {
			return f[0]
		}
	}
	return ""
}
