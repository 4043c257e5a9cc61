package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/bisect"
	"github.com/daprperf/daprperf/perf/report"
)

// abRun is the Comparer of daprd builds: each comparison is one A/B perf run of a scenario
// (scripts/perf.sh, cmd/perfsuite) with DAPR_PERF_DAPRD the first build and DAPR_PERF_DAPRD_B
// the second, its rounds added by the runner until the gated figures are decided
// (DAPR_PERF_AB_MAX_ROUNDS), under its own run id, <id>-<n>. The figure is read from the
// run's one result file with an A/B part.
type abRun struct {
	repo, root string // the daprperf repository and the report root
	id         string // the bisection's id
	pkg, run   string // the scenario package and go test -run's pattern
	figure     string // a Difference.Figure of an A/B run ("latency p90")
	logDir     string // where each run's output goes
	n          int
}

// gateFor is the DAPR_PERF_AB_GATE value that gates only figure, "latency p50", "latency p90"
// or "latency p99", so that a comparison stops adding rounds once the figure the bisection
// reads is decided, not when p50 and p90 both are; "" for any other figure (the default gate).
func gateFor(figure string) string {
	p, ok := strings.CutPrefix(figure, "latency ")
	if ok && slices.Equal(report.ABGatedFiguresOf(p), []string{figure}) {
		return p
	}
	return ""
}

// runGrace is how long a stopped A/B run has to stop its processes and remove its folders.
const runGrace = 2 * time.Minute

func (r *abRun) Compare(ctx context.Context, a, b bisect.Binary) (bisect.Comparison, error) {
	r.n++
	id := fmt.Sprintf("%s-%02d", r.id, r.n)
	start := time.Now()
	logPath := filepath.Join(r.logDir, id+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return bisect.Comparison{}, err
	}
	defer logFile.Close()
	cmd := exec.CommandContext(ctx, filepath.Join(r.repo, "scripts", "perf.sh"), "-run", r.run, r.pkg)
	cmd.Dir, cmd.Stdout, cmd.Stderr = r.repo, logFile, logFile
	// When the bisection is stopped, the run is too, as Ctrl-C stops it: SIGINT to its own
	// process group (the script, the suite and the test binary), which then stops what it
	// started and removes its folders; it is killed only if it has not ended by runGrace.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	cmd.WaitDelay = runGrace
	cmd.Env = append(os.Environ(),
		"DAPR_PERF_RUN_ID="+id,
		"DAPR_PERF_REPORT_DIR="+r.root,
		"DAPR_PERF_DAPRD="+a.Path,
		"DAPR_PERF_DAPRD_B="+b.Path,
		"DAPR_PERF_COMMAND=make bisect ("+a.Commit.Short()+" against "+b.Commit.Short()+")")
	if g := gateFor(r.figure); g != "" && os.Getenv(perf.EnvABGate) == "" {
		cmd.Env = append(cmd.Env, perf.EnvABGate+"="+g)
	}
	runErr := cmd.Run()
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		return bisect.Comparison{}, fmt.Errorf("scripts/perf.sh: %w", runErr)
	}
	// Stopped with the bisection (its Ctrl-C reaches the run too), or by a signal of its own: an
	// interrupted comparison, not a run without its figure.
	if ctx.Err() != nil {
		return bisect.Comparison{}, fmt.Errorf("run %s interrupted (log %s): %w", id, logPath, ctx.Err())
	}
	if exit != nil && (perf.Outcome(exit.ExitCode()) == perf.OutcomeInterrupted || exit.ExitCode() == -1) {
		return bisect.Comparison{}, fmt.Errorf("run %s interrupted (log %s)", id, logPath)
	}
	d, files, rounds, err := r.read(id)
	if err != nil {
		return bisect.Comparison{}, fmt.Errorf("run %s (log %s): %w", id, logPath, err)
	}
	return bisect.Comparison{A: a.Commit, B: b.Commit, Difference: d, Rounds: rounds, Files: files, Seconds: time.Since(start).Seconds()}, nil
}

// read finds run id's result file with an A/B part and its difference of r.figure.
func (r *abRun) read(id string) (perf.Difference, []string, int, error) {
	paths, err := report.RunFiles(perf.RunDir(r.root, id))
	if err != nil {
		return perf.Difference{}, nil, 0, err
	}
	var found []*perf.Report
	for _, p := range paths {
		rep, err := report.ReadReport(p)
		if err != nil {
			return perf.Difference{}, paths, 0, err
		}
		if rep.AB != nil {
			found = append(found, rep)
		}
	}
	if len(found) != 1 {
		return perf.Difference{}, paths, 0, fmt.Errorf("%d result files with an A/B part, of %d: -run must select one A/B scenario", len(found), len(paths))
	}
	ab := found[0].AB
	i := slices.IndexFunc(ab.Differences, func(d perf.Difference) bool { return d.Figure == r.figure })
	if i < 0 {
		return perf.Difference{}, paths, 0, fmt.Errorf("the A/B run has no figure %q", r.figure)
	}
	rounds := len(ab.Rounds)
	if ab.Stop != nil {
		rounds = ab.Stop.Ran
	}
	return ab.Differences[i], paths, rounds, nil
}

// withControlPlane is a Builder that puts the control plane of the pinned daprd (placement,
// scheduler, sentry: the local platform looks for them beside the daprd it runs) beside each
// build, as symbolic links into dir, so that every build runs with the same control plane.
type withControlPlane struct {
	bisect.Builder
	dir string // the pinned version's folder, .daprd/<DAPR_VERSION>
}

func (w withControlPlane) Build(ctx context.Context, c bisect.Commit) (string, error) {
	path, err := w.Builder.Build(ctx, c)
	if err != nil {
		return path, err
	}
	for _, name := range []string{"placement", "scheduler", "sentry"} {
		src, dst := filepath.Join(w.dir, name), filepath.Join(filepath.Dir(path), name)
		if _, err := os.Stat(src); err != nil {
			continue // not built for this version: the platform says so if a scenario needs it
		}
		if _, err := os.Lstat(dst); err == nil {
			continue
		}
		if err := os.Symlink(src, dst); err != nil {
			return path, fmt.Errorf("link the control plane: %w", err)
		}
	}
	return path, nil
}
