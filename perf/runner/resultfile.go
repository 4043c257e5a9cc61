package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/prometheus/procfs"
)

// Run files. Every run writes under its own run id,
//
//	<report root>/runs/<run id>/<test>/<transport>/result.json
//
// and never replaces a file it did not create: the file is created exclusively (when the name
// is taken, result-2.json, result-3.json, ... are tried), then rewritten in place, atomically,
// as phases complete. Until the run's final write it is marked incomplete and says which phase
// it completed last, so a run cut short by SIGINT, SIGKILL or a test timeout leaves what it
// measured. Publishing a run into reports/v<version>/ is a separate, explicit step (charts
// publish).

// Environment variables of the run record.
const (
	// EnvRunID names the run; unset, every run of one test binary shares an id generated at its
	// start (scripts/perf.sh, behind make perf, sets one for all the scenario packages).
	EnvRunID = "DAPR_PERF_RUN_ID"
	// EnvCommand is the command that started the run, recorded as given ("make perf").
	EnvCommand = "DAPR_PERF_COMMAND"
)

// maxRunFiles bounds the names tried for one scenario in one run (result.json, result-2.json, ...).
const maxRunFiles = 100

// runIDPattern is what a run id may be: a file-name-safe word of at most 128 characters.
var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// NewRunID returns a run id for a run started at t: UTC time to the second and 4 random hex
// digits, e.g. "20060102T150405Z-4f2a" (Go's reference time).
func NewRunID(t time.Time) string {
	return t.UTC().Format("20060102T150405Z") + "-" + perf.RandomHex(2)
}

// processRunID is the run id of every run of this test binary when EnvRunID is unset.
var processRunID = sync.OnceValue(func() string { return NewRunID(time.Now()) })

// RunIDFromEnv returns env's DAPR_PERF_RUN_ID, or the id generated for this process when it is
// unset or empty. A value that is not a file-name-safe word (letters, digits, '.', '_', '-',
// starting with a letter or digit, at most 128 characters) is an error naming the variable.
func RunIDFromEnv(env perf.Env) (string, error) {
	raw := perf.Val(env.RunID)
	if raw == "" {
		return processRunID(), nil
	}
	if !runIDPattern.MatchString(raw) {
		return "", fmt.Errorf("perf: %s=%q: must be letters, digits, '.', '_' or '-', starting with a letter or digit, at most 128 characters", EnvRunID, raw)
	}
	return raw, nil
}

// commandFromEnv records the current process's command line and settings: env's
// DAPR_PERF_COMMAND, and every DAPR_* variable of the process as it was set, secrets redacted.
func commandFromEnv(env perf.Env) *perf.Command {
	c := &perf.Command{Args: slices.Clone(os.Args), Env: map[string]string{}}
	if env.Command != nil {
		c.Invocation = *env.Command
	}
	c.Dir, _ = os.Getwd()
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "DAPR_") && !strings.HasPrefix(k, "DAPRD_") && k != "CI" {
			continue
		}
		for _, secret := range []string{"PASSWORD", "TOKEN", "SECRET"} {
			if strings.Contains(k, secret) {
				v = "<redacted>"
			}
		}
		c.Env[k] = v
	}
	return c
}

// runFile is the result file one run owns. Its methods are safe for concurrent use: the test's
// goroutine writes phases, interrupt may mark it from a platform's signal handler.
type runFile struct {
	mu   sync.Mutex
	path string
	// last is the report as last written; interrupt rewrites it.
	last *perf.Report
	// done is set by the final write; interrupted names the signal interrupt was told of.
	done        bool
	interrupted string
	// phase is the last phase the run completed, for the incomplete reason; "" for none.
	phase string
}

// after says how far the run got: "after round 1 baseline", or "before any phase completed".
func (f *runFile) after() string {
	if f.phase == "" {
		return "before any phase completed"
	}
	return "after " + f.phase
}

// createRunFile writes rep, marked incomplete, as a new file under root (see RunPath). It never
// replaces a file: when result.json is taken (the same run id ran the scenario before), it
// takes result-2.json, then result-3.json, and so on.
func createRunFile(root string, rep *perf.Report) (*runFile, error) {
	first := rep.RunPath(root)
	dir := filepath.Dir(first)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("perf: result file: %w", err)
	}
	f := &runFile{}
	b, err := f.encode(rep, false)
	if err != nil {
		return nil, err
	}
	for n := 1; n <= maxRunFiles; n++ {
		path := first
		if n > 1 {
			path = filepath.Join(dir, fmt.Sprintf("result-%d.json", n))
		}
		err := createExclusive(path, b)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("perf: result file: %w", err)
		}
		f.path = path
		f.last = f.snapshot(rep, false)
		return f, nil
	}
	return nil, fmt.Errorf("perf: result file: %s and result-2.json to result-%d.json all exist in %s: set %s to a new run id",
		filepath.Base(first), maxRunFiles, dir, EnvRunID)
}

// createExclusive creates path with content b, failing with fs.ErrExist when it exists. The
// content is written to a temporary file first and linked into place, so a reader never sees
// a half-written file; where hard links are refused it falls back to O_EXCL.
func createExclusive(path string, b []byte) error {
	tmp, err := writeTemp(filepath.Dir(path), b)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := out.Write(b); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// writeTemp writes b to a new hidden temporary file in dir and returns its path.
func writeTemp(dir string, b []byte) (string, error) {
	tmp, err := os.CreateTemp(dir, ".result-*.tmp")
	if err != nil {
		return "", err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// Path is the file the run owns.
func (f *runFile) Path() string { return f.path }

// snapshot copies rep for writing; unless final, it is marked incomplete with the last phase
// completed. After interrupt, every write is marked interrupted.
func (f *runFile) snapshot(rep *perf.Report, final bool) *perf.Report {
	c := *rep
	if !final && !c.Incomplete {
		c.Incomplete = true
		c.IncompleteReason = "did not finish, stopped " + f.after() +
			" (the run is still going, or it was interrupted, killed or timed out)"
	}
	if f.interrupted != "" {
		reason := "interrupted by " + f.interrupted + " " + f.after()
		if c.Incomplete && c.IncompleteReason != "" && !strings.HasPrefix(c.IncompleteReason, "did not finish") {
			reason += "; " + c.IncompleteReason
		}
		c.Incomplete, c.IncompleteReason, c.Pass, c.InterruptedBy = true, reason, false, f.interrupted
	}
	if c.Incomplete {
		c.Pass = false
	}
	return &c
}

func (f *runFile) encode(rep *perf.Report, final bool) ([]byte, error) {
	b, err := json.MarshalIndent(f.snapshot(rep, final), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("perf: result file: %w", err)
	}
	return append(b, '\n'), nil
}

// replace rewrites the run's own file with rep, atomically (a temporary file renamed over it).
// The caller holds f.mu.
func (f *runFile) replace(rep *perf.Report, final bool) error {
	b, err := f.encode(rep, final)
	if err != nil {
		return err
	}
	tmp, err := writeTemp(filepath.Dir(f.path), b)
	if err != nil {
		return fmt.Errorf("perf: result file %s: %w", f.path, err)
	}
	if err := os.Rename(tmp, f.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("perf: result file %s: %w", f.path, err)
	}
	f.last = f.snapshot(rep, final)
	return nil
}

// checkpoint writes rep as it stands, marked incomplete, after phase completed.
func (f *runFile) checkpoint(rep *perf.Report, phase string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.phase = phase
	if f.done {
		return nil
	}
	return f.replace(rep, false)
}

// finish writes rep as the run's result; it is complete unless rep says otherwise (or the run
// was interrupted). Later calls rewrite it (a push that failed after it, for instance).
func (f *runFile) finish(rep *perf.Report) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.done = true
	return f.replace(rep, true)
}

// stopped is deferred by the runners: when the test stops before the final write (t.Fatal in
// a platform's Start, a panic), it writes what was measured, marked incomplete, with an
// infrastructure error saying where it stopped. A panic goes on after the write.
func (f *runFile) stopped(t testing.TB, rep *perf.Report) {
	f.mu.Lock()
	done := f.done
	after := f.after()
	f.mu.Unlock()
	if done {
		return
	}
	c := *rep
	c.Incomplete = true
	c.IncompleteReason = "the test stopped before the run finished, " + after + " (a fatal test error or a panic: see the test log)"
	c.InfraErrors = append(slices.Clone(c.InfraErrors), "test stopped "+after+": see the test log")
	if err := f.finish(&c); err != nil {
		t.Errorf("%v", err)
		return
	}
	t.Logf("result file (incomplete): %s", f.path)
}

// newReport starts the report of one run: what ran, where and with what. The daprd version is
// filled in when the plan's first deployment starts (session.deploy).
func newReport(sc perf.Scenario, cfg runConfig) *perf.Report {
	now := time.Now().UTC()
	runID := cfg.runID
	if runID == "" {
		runID = NewRunID(now)
	}
	load := perf.LoadOf(cfg.Env)
	if sc.TesterReplicas > 1 {
		load.Testers = sc.TesterReplicas
	}
	return &perf.Report{
		Load:           &load,
		Schema:         perf.ReportSchema,
		Test:           sc.Test,
		Plan:           sc.Plan.Kind(),
		AppWork:        sc.AppWork,
		Component:      sc.Component,
		RateIsMeasured: sc.RateIsMeasured,
		Transport:      sc.Transport,
		RunID:          runID,
		Params:         cfg.Main,
		WarmupParams:   cfg.Warmup,
		Environment: perf.Environment{
			DaprVersion:     "",
			Platform:        cfg.Platform.Name(),
			CPUModel:        cpuModel(),
			CPUs:            runtime.NumCPU(),
			HostMemoryBytes: hostMemoryBytes(),
			KernelRelease:   kernelRelease(),
			GoVersion:       runtime.Version(),
			DaprperfCommit:  gitCommit(),
			StartTime:       now,
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

// gitCommit reads the checked-out commit of the repository at the module root (no git binary
// needed); "" when unknown.
func gitCommit() string {
	root, err := perf.RepoRoot()
	if err != nil {
		return ""
	}
	return commitAt(root)
}

// commitAt reads the commit checked out in the repository at root from its .git: HEAD, then
// the ref it names, loose or packed. In a linked worktree .git is a file naming the worktree's
// own folder ("gitdir: ..."), which holds HEAD, while the refs live in the folder its commondir
// names.
func commitAt(root string) string {
	gitDir := filepath.Join(root, ".git")
	if b, err := os.ReadFile(gitDir); err == nil { // a file: a linked worktree
		dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
		if !ok {
			return ""
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, dir)
		}
		gitDir = dir
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !ok {
		return ref // detached HEAD: the hash itself
	}
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common = strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
	}
	for _, dir := range []string{gitDir, common} {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref))); err == nil {
			return strings.TrimSpace(string(b))
		}
	}
	packed, err := os.ReadFile(filepath.Join(common, "packed-refs"))
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

func defaultReportRoot() (string, error) {
	root, err := perf.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "reports"), nil
}

// setAside renames the finished result file to <name>.json in its directory (<name>-2.json,
// ... when that is taken: it never replaces a file) and returns the new path. result.json is
// then free for the next attempt's file.
func (f *runFile) setAside(name string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	dir := filepath.Dir(f.path)
	for n := 1; n <= maxRunFiles; n++ {
		path := filepath.Join(dir, name+".json")
		if n > 1 {
			path = filepath.Join(dir, fmt.Sprintf("%s-%d.json", name, n))
		}
		err := os.Link(f.path, path)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil { // no hard links here: rename, once the name is seen to be free
			if _, serr := os.Lstat(path); serr == nil {
				continue
			}
			if err := os.Rename(f.path, path); err != nil {
				return "", fmt.Errorf("perf: set aside result file %s: %w", f.path, err)
			}
		} else if err := os.Remove(f.path); err != nil {
			return "", fmt.Errorf("perf: set aside result file %s: %w", f.path, err)
		}
		f.path = path
		return path, nil
	}
	return "", fmt.Errorf("perf: set aside result file %s: %s.json to %s-%d.json all exist in %s", f.path, name, name, maxRunFiles, dir)
}
