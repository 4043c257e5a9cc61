package runner

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"

	"github.com/prometheus/procfs"
)

// newReport starts the report of one run: what ran, where and with what. The daprd version is
// filled in when the plan's first deployment starts (session.deploy).
func newReport(sc perf.Scenario, cfg runConfig) *perf.Report {
	now := time.Now().UTC()
	runID := cfg.runID
	if runID == "" {
		runID = NewRunID(now)
	}
	return &perf.Report{
		Schema:       perf.ReportSchema,
		Test:         sc.Test,
		Plan:         scenarioPlan(sc).Kind(),
		Transport:    sc.Transport,
		RunID:        runID,
		Params:       cfg.Main,
		WarmupParams: cfg.Warmup,
		Environment: perf.Environment{
			DaprVersion: "",
			Platform:    cfg.Platform.Name(),
			CPUModel:    cpuModel(),
			CPUs:        runtime.NumCPU(),
			GoVersion:   runtime.Version(),
			GitCommit:   gitCommit(),
			StartTime:   now,
		},
	}
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
	root, err := perf.RepoRoot()
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
