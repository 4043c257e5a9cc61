package charts

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// publish copies every result of a run (a run id under <reports>/runs, or a run directory)
// into the versioned reference tree, <reports>/v<daprd version>/<test>/<transport>/result.json,
// replacing the scenario's earlier reference and the charts drawn from it, then redraws that
// version's charts and READMEs. It is the only command that changes <reports>/v<version>/.
// Without force it refuses, naming each file and why, a run with an incomplete result, an
// infrastructure error, an invalid run or a failed bound; it always refuses an A/B result (two
// builds are no one version's reference), a result without a daprd version, and two results
// of one scenario in the run. Nothing is written when anything is refused.
func publish(reports, run string, force bool, w io.Writer) error {
	dir := run
	if _, err := os.Stat(dir); err != nil {
		dir = perf.RunDir(reports, run)
	}
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("charts publish: %q is neither a run id (no %s) nor a run directory", run, dir)
	}
	scs, err := loadReports(dir)
	if err != nil {
		return fmt.Errorf("charts publish: %w", err)
	}
	if _, err := byKey(scs); err != nil {
		return fmt.Errorf("charts publish: %w: publish one of them (move the other out of %s)", err, dir)
	}
	var refused []error
	for _, sc := range scs {
		rep := sc.Report
		var why []string
		always := false
		switch {
		case rep.AB != nil:
			why, always = append(why, "an A/B result holds two daprd builds ("+rep.AB.A.Version+" and "+rep.AB.B.Version+"), not one version's reference"), true
		case rep.Environment.DaprVersion == "":
			why, always = append(why, "no daprd version recorded"), true
		}
		if rep.Incomplete {
			why = append(why, "incomplete: "+rep.IncompleteReason)
		}
		if len(rep.InfraErrors) > 0 {
			why = append(why, "infrastructure errors: "+strings.Join(rep.InfraErrors, "; "))
		}
		if !rep.Validity.Valid {
			why = append(why, "invalid: "+strings.Join(rep.Validity.Reasons, "; "))
		} else if !rep.Pass {
			o, reason := rep.Outcome()
			why = append(why, o.String()+": "+reason)
		}
		if len(why) > 0 && (always || !force) {
			refused = append(refused, fmt.Errorf("%s: %s", sc.Path, strings.Join(why, "; ")))
		} else if len(why) > 0 {
			fmt.Fprintf(w, "publishing despite (-force): %s: %s\n", sc.Path, strings.Join(why, "; "))
		}
	}
	if len(refused) > 0 {
		hint := "fix the run and take it again, or pass -force (FORCE=1 with make publish)"
		return fmt.Errorf("charts publish: refused, nothing written (%s):\n%w", hint, errors.Join(refused...))
	}
	var versions []string
	for _, sc := range scs {
		dst := sc.Report.Path(reports)
		if err := replaceScenario(sc.Path, dst); err != nil {
			return fmt.Errorf("charts publish: %w", err)
		}
		fmt.Fprintf(w, "%s -> %s\n", sc.Path, dst)
		if v := filepath.Dir(filepath.Dir(filepath.Dir(dst))); !slices.Contains(versions, v) {
			versions = append(versions, v)
		}
	}
	for _, v := range versions {
		if err := generate(v, w); err != nil {
			return fmt.Errorf("charts publish: redraw %s: %w", v, err)
		}
	}
	return nil
}

// replaceScenario makes dst a copy of src: the charts and README of the scenario directory
// (drawn from the reference it replaces) are removed, then the file is written to a temporary
// name and renamed into place.
func replaceScenario(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.png"))
	if err != nil {
		return err
	}
	for _, f := range append(old, filepath.Join(dir, "README.md")) {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	tmp, err := os.CreateTemp(dir, ".result-*.tmp")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
