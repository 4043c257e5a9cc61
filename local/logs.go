package local

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
