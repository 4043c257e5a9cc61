package local

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/daprperf/daprperf/perf"
)

// keptResources is the run folder's subfolder of component files, kept with the logs.
const keptResources = "resources"

// keepLogs copies what a failed test needs to be read later from the run folder into dir
// (created if missing): every process's log (<process>.log, sentry-init.log), the sidecars'
// configurations (<app>-config*.yaml) and the component files (resources/*.yaml). The backends'
// data and sentry's credentials stay behind, removed with the run folder. A file that cannot be
// copied is an error naming it, after the others are copied.
func keepLogs(runDir, dir string) error {
	var errs []error
	for _, sub := range []string{"", keptResources} {
		entries, err := os.ReadDir(filepath.Join(runDir, sub))
		if errors.Is(err, os.ErrNotExist) && sub != "" {
			continue
		}
		if err != nil {
			return fmt.Errorf("keep logs: %w", err)
		}
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return fmt.Errorf("keep logs: %w", err)
		}
		for _, e := range entries {
			name := e.Name()
			if !e.Type().IsRegular() || (!strings.HasSuffix(name, ".log") && !strings.HasSuffix(name, ".yaml")) {
				continue
			}
			if err := copyFile(filepath.Join(runDir, sub, name), filepath.Join(dir, sub, name)); err != nil {
				errs = append(errs, fmt.Errorf("keep logs: %w", err))
			}
		}
	}
	return errors.Join(errs...)
}

// runLogs is what becomes of one run directory's logs, shared by the deployment's close and
// the signal handler, which can both want them kept: a signal stops the processes, so the test
// fails and its cleanup runs while the handler keeps the logs. Whichever settles them first keeps
// them (or, for a test that passed, leaves them), and the other then finds them settled: they are
// copied once, and keepLogs never meets the files of the first copy.
type runLogs struct {
	runDir string    // the deployment's run directory
	dir    string    // where they are kept (perf.LogsDir); "" for nowhere
	once   sync.Once // settles them
}

// keep copies the logs into r.dir (keepLogs) unless they are settled already, then calls report
// with keepLogs' error before it lets the other path go on: the one that kept them says so, and
// the process does not die of the signal before it has. r.dir must not be "".
func (r *runLogs) keep(report func(error)) {
	r.once.Do(func() { report(keepLogs(r.runDir, r.dir)) })
}

// leave settles the logs without keeping them: the run directory of a test that passed is
// removed with them, also when a signal arrives meanwhile.
func (r *runLogs) leave() { r.once.Do(func() {}) }

// copyFile copies the regular file src to dst, which must not exist yet.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}

// logTails writes the last perf.LogTailLines lines of each process's log into t's output, for
// a failed test that was given no folder to keep them in.
func (d *Deployment) logTails(t perf.TB) {
	for _, p := range d.processes() {
		b, err := os.ReadFile(p.log)
		if err != nil {
			t.Logf("local: log of %s: %v", p.name, err)
			continue
		}
		t.Logf("local: %s, last lines of its log:\n%s", p.name, perf.LastLines(b, perf.LogTailLines))
	}
}
