package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// A preflight step is a few seconds; the run it chooses the load for is a minute or more. A
// load can keep its schedule for 6 s and not for the minute: measured on 2 cores, an
// actor_activation step at 500 QPS was 0.00 % behind and the 1 min main phase at 500 QPS
// 1.58 % (each request activates a new actor, so daprd's work grows with the run). When the
// preflight chose the load, such a run steps down: Run runs the scenario again at the ladder's
// next load, until a run is valid or the ladder ends. A load the user named (DAPR_PERF_QPS) is
// never stepped down, and an invalid run never passes.

// stepDownPossible reports whether Run may step the load down after an invalid run: a plan
// whose load a preflight picks (perf.Laddered: the overhead plan) with more than one load on
// its ladder.
func stepDownPossible(sc perf.Scenario, cfg runConfig) bool {
	return len(ladder(sc, cfg)) > 1
}

// ladder is the loads sc's plan may step down through under cfg; none for a plan that is not
// perf.Laddered.
func ladder(sc perf.Scenario, cfg runConfig) []int {
	if l, ok := sc.Plan.(perf.Laddered); ok {
		return l.Ladder(sc, cfg.RunConfig)
	}
	return nil
}

// nextRung is the first load of pf's ladder below qps, or 0 when there is none.
func nextRung(pf *perf.Preflight, qps int) int {
	for _, q := range pf.Ladder {
		if q < qps {
			return q
		}
	}
	return 0
}

// stepDownTo is the load to run again at after rep, or 0 to keep rep as the run's result. It
// steps down only a run whose load the preflight chose, that completed without an
// infrastructure error or a test error, and was invalid; and only to a lower load of the
// ladder.
func stepDownTo(t testing.TB, rep *perf.Report) int {
	if rep.Preflight == nil || rep.Validity.Valid || rep.Incomplete || len(rep.InfraErrors) > 0 || t.Failed() {
		return 0
	}
	return nextRung(rep.Preflight, rep.Params.QPS)
}

// runLadder runs the scenario as subtests, one per attempt: at_preflight_load first, then
// at_<qps>qps for each step down. Each attempt has its own deployment (stopped by the
// subtest's cleanup before the next starts) and result file. An attempt that steps down writes
// its result file, sets it aside (StepDown.File), logs its summary and is skipped, saying so;
// the next reuses its preflight without measuring again, and its report's Preflight lists the
// step downs and says so in its Note. The last attempt concludes as Run does: push, summary,
// test errors. It returns the last attempt's report.
func runLadder(t *testing.T, sc perf.Scenario, cfg runConfig) *perf.Report {
	t.Helper()
	var final *perf.Report
	name := "at_preflight_load"
	for range ladder(sc, cfg) { // each attempt steps down at least one rung
		next := 0
		t.Run(name, func(st *testing.T) {
			rep, rf := runAttempt(st, sc, cfg)
			final = rep
			q := stepDownTo(st, rep)
			if q == 0 {
				conclude(st, cfg, rep, rf)
				return
			}
			path, err := rf.setAside(fmt.Sprintf("attempt-%dqps", rep.Params.QPS))
			if err != nil {
				st.Errorf("%s/%s: %v", sc.Test, sc.Transport, err)
				conclude(st, cfg, rep, rf)
				return
			}
			st.Log("\n" + report.Summary(rep))
			pf := steppedPreflight(rep, q, filepath.Base(path))
			cfg.Main.QPS, cfg.Stepped, next = q, pf, q
			st.Skipf("%s/%s: INVALID at %d QPS, the load the preflight chose, over the full run: %s; its result file is kept as %s (not pushed, left out of charts and the exit code); running again at %d QPS, the ladder's next load",
				sc.Test, sc.Transport, rep.Params.QPS, firstReason(rep.Validity.Reasons), path, q)
		})
		if next == 0 {
			return final
		}
		name = fmt.Sprintf("at_%dqps", next)
	}
	return final
}

// steppedPreflight is rep's preflight for the attempt at qps after rep, whose result file was
// set aside as file: the step down appended, ChosenQPS qps, and the note extended.
func steppedPreflight(rep *perf.Report, qps int, file string) *perf.Preflight {
	pf := *rep.Preflight
	pf.StepDowns = append(append([]perf.StepDown(nil), pf.StepDowns...), perf.StepDown{QPS: rep.Params.QPS, Reasons: rep.Validity.Reasons, File: file})
	pf.ChosenQPS = qps
	pf.Note = fmt.Sprintf("%s; the full-length run at %d QPS was INVALID (%s), its result file kept as %s; ran again at %d QPS, the ladder's next load",
		rep.Preflight.Note, rep.Params.QPS, firstReason(rep.Validity.Reasons), file, qps)
	return &pf
}

// firstReason is the first of reasons that is not the closing hint, or "no reason given".
func firstReason(reasons []string) string {
	for _, r := range reasons {
		if !strings.HasPrefix(r, "hint: ") {
			return r
		}
	}
	return "no reason given"
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
