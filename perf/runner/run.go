package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/push"
	"github.com/daprperf/daprperf/perf/report"
)

// Run is the one runner, for every kind of scenario. In order:
//  1. the configuration: env overrides, thresholds, run id, the push and the plan's own
//     settings, all validated: any error fails t before a process starts;
//  2. the result file, created under the run's id (RunPath) before anything starts;
//  3. the scenario's plan (Scenario.Plan, which must be set), which starts its
//     deployments on the platform (each stamps the environment) and runs its phases,
//     checkpointing the result file after each, so a run cut short keeps what it measured;
//  4. exits and restarts of every deployment;
//  5. the figures, derived once (report.DeriveFigures), and the verdicts on them;
//  6. the result file's final write, then the push to the Pushgateway when one is configured
//     (a failed push is an infrastructure error, written to the file too), then the remote
//     write to a Prometheus when one is configured (a failed write is a warning, written to
//     the file too), then the summary;
//  7. one test error per failed bound, per failed plan check, and for an invalid or
//     incomplete run.
//
// It returns the report, also when t has failed. Under DAPR_PERF_PLAN_ONLY=1 it only prints
// the plan (printPlan, planonly.go) and returns nil, with no platform needed or started.
//
// When the preflight picks the load (make perf: EnvPreflight=ladder, no DAPR_PERF_QPS) and a
// full-length run at that load is invalid, Run runs the scenario again at the ladder's next
// load, each attempt a subtest with its own deployment (runLadder). Otherwise,
// under DAPR_PERF_INVALID_RETRIES=N, an invalid run runs again at the same load, at most N
// times, each attempt a subtest (runRetried).
func Run(t *testing.T, sc perf.Scenario, opts ...RunOption) *perf.Report {
	t.Helper()
	env, unknown, err := runEnv(options(opts))
	if err != nil {
		t.Fatalf("%s/%s: configuration: %v", sc.Test, sc.Transport, err)
	}
	if sc, err = scenarioFor(env, sc); err != nil {
		skipOrFatal(t, err)
	}
	planOnly := PlanOnlyFromEnv(env)
	if planOnly {
		opts = planOnlyOptions(env, opts)
	}
	cfg, err := newRunConfig(sc, env, opts, !planOnly)
	if err != nil {
		t.Fatal(err)
	}
	if planOnly {
		printPlan(t, sc, cfg, unknown)
		return nil
	}
	for _, u := range unknown { // a misspelled variable: said, and kept in the result
		t.Logf("warning: %s", u)
		cfg.Notes = append(cfg.Notes, u)
	}
	if stepDownPossible(sc, cfg) {
		return runLadder(t, sc, cfg)
	}
	if cfg.retries > 0 {
		return runRetried(t, sc, cfg, cfg.retries)
	}
	rep, rf := runAttempt(t, sc, cfg)
	conclude(t, cfg, rep, rf)
	return rep
}

// runAttempt is steps 2 to 6 of Run up to the result file's final write: the run itself, with
// cfg as configured. It returns the report and its file.
func runAttempt(t *testing.T, sc perf.Scenario, cfg runConfig) (*perf.Report, *runFile) {
	t.Helper()
	plan := cfg.planRun
	rep := newReport(sc, cfg)
	rep.Command = commandFromEnv(cfg.Env)
	rf, err := createRunFile(cfg.reportRoot, rep)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run %s: result file %s", rep.RunID, rf.Path())
	defer rf.stopped(t, rep) // a fatal error or a panic: keep what was measured, marked incomplete

	s := &session{t: t, sc: sc, cfg: &cfg, rep: rep, rf: rf}
	s.prog = newProgress(t, sc, plan.Steps(sc, cfg.RunConfig), cfg.Platform.Name()) // the plan, then a line per phase
	runErr := plan.Run(s)
	if runErr != nil { // the plan's Finish records it
		t.Errorf("%s/%s: load: %v", sc.Test, sc.Transport, runErr)
	}
	s.readActorStats()
	s.readAllExits()
	plan.Finish(s, runErr)
	if rep.AB != nil && len(rep.Profiles) > 0 {
		var warnings []string
		rep.AB.Profiles, warnings = abProfileDiffs(rep, filepath.Dir(rf.Path()))
		rep.Warnings = append(rep.Warnings, warnings...)
	}
	rep.Warnings = append(rep.Warnings, cfg.Notes...) // what the overrides did, for every plan
	report.Judge(rep, cfg.Thresholds)
	rep.Pass = rep.Pass && planChecksPass(rep)

	if werr := rf.finish(rep); werr != nil { // first: nothing after it can lose the figures
		t.Errorf("%v", werr)
	} else {
		t.Logf("result file: %s", rf.Path())
	}
	return rep, rf
}

// planChecksPass is false when a plan's own check failed (Kind.Failures: the growth
// detector's), or a bound of build B in an A/B run (the report's verdicts are build A's).
func planChecksPass(r *perf.Report) bool {
	return len(report.KindOf(r).Failures(r)) == 0 && (r.AB == nil || report.ABVerdictsPass(r.AB))
}

// conclude is the end of Run once the result file is written: the push (a failed one is
// written to the file too), the remote write (a failed one is a warning in the file), the
// summary, and the test errors (failOn).
func conclude(t *testing.T, cfg runConfig, rep *perf.Report, rf *runFile) {
	t.Helper()
	perr, werr := publish(t, cfg, rep)
	if perr != nil {
		rep.InfraErrors = append(rep.InfraErrors, "push: "+perr.Error())
		rep.Pass = false
	}
	if werr != nil {
		rep.Warnings = append(rep.Warnings, werr.Error())
	}
	if perr != nil || werr != nil {
		if ferr := rf.finish(rep); ferr != nil {
			t.Errorf("%v", ferr)
		}
	}
	t.Log("\n" + report.Summary(rep))
	failOn(t, rep)
}

// noPushOnce is set once the missing Pushgateway was said, once per test binary.
var noPushOnce atomic.Bool

// publish sends rep, after its result file is written, to the Pushgateway and to the
// Prometheus remote-write endpoint, each when configured. A failed push is a test error with the
// server's message (pushErr); a failed write is logged as a warning (writeErr), since the run's
// figures are in its result file already and a history can load it later (cmd/promhistory).
// Without a Pushgateway it says so, once per test binary.
func publish(t *testing.T, cfg runConfig, rep *perf.Report) (pushErr, writeErr error) {
	t.Helper()
	if cfg.push.Enabled() {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		pushErr = push.Push(ctx, cfg.push, rep)
		cancel()
		if pushErr != nil {
			t.Errorf("%s/%s: %v", rep.Test, rep.Transport, pushErr)
		} else {
			t.Logf("pushed to %s (run_id %s)", cfg.push.URL, rep.RunID)
		}
	} else if first := noPushOnce.CompareAndSwap(false, true); first {
		t.Logf("no Pushgateway configured (%s unset): results are not pushed", push.EnvPushgatewayURL)
	}
	if cfg.write.Enabled() {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		writeErr = push.Write(ctx, cfg.write, rep)
		cancel()
		if writeErr != nil {
			t.Logf("warning: %s/%s: %v (load the result file later with go run ./cmd/promhistory)", rep.Test, rep.Transport, writeErr)
		} else {
			t.Logf("written to %s (run_id %s, at %s)", cfg.write.URL, rep.RunID, rep.Environment.StartTime.UTC().Format(time.RFC3339))
		}
	}
	return pushErr, writeErr
}

// failOn fails t once per failed bound that is not warn-only, once per failed check of the
// growth detector, and once if the run is invalid or incomplete; never stopping at the first.
func failOn(t *testing.T, rep *perf.Report) {
	t.Helper()
	if rep.Incomplete {
		t.Errorf("%s/%s: INCOMPLETE run: %s", rep.Test, rep.Transport, rep.IncompleteReason)
	}
	if !rep.Validity.Valid {
		t.Errorf("%s/%s: INVALID run: %v", rep.Test, rep.Transport, rep.Validity.Reasons)
	}
	for _, v := range rep.Verdicts {
		switch {
		case !v.Pass && !v.WarnOnly:
			t.Errorf("%s/%s: %s", rep.Test, rep.Transport, v)
		case !v.Pass:
			t.Logf("%s/%s: %s: this bound comes from 8-vCPU cluster nodes; on a machine with %d CPUs the tester, both sidecars and the app share the cores", rep.Test, rep.Transport, v, rep.Environment.CPUs)
		}
	}
	for _, f := range report.KindOf(rep).Failures(rep) {
		t.Errorf("%s/%s: %s", rep.Test, rep.Transport, f)
	}
}

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

// A run is invalid when its generator fell behind the schedule or missed the rate
// (report.PhaseValidity): its latencies understate queueing, so it never passes. On a shared or
// busy machine one stall of the whole machine can do that to a short phase: 8 connections at
// 100 QPS each send every 80 ms, and one 90 ms stall makes 8 of a 4 s phase's 400 requests
// late, over the 1 % limit. DAPR_PERF_INVALID_RETRIES runs such a run again at the same load,
// with a fresh deployment, at most that many times; each invalid attempt's result file is kept
// beside the result as attempt-<n>.json (not pushed, left out of charts and the exit code), and
// the last attempt's result says how many came before and why they were invalid. CI's smoke
// sets it to 1; by default an invalid run is the result.

// retryAfter reports whether rep, attempt n (from 1) of a run with retries retries, is run
// again: a complete run without an infrastructure error or a test error that was invalid, with
// a retry left.
func retryAfter(t testing.TB, rep *perf.Report, n, retries int) bool {
	return n <= retries && !rep.Validity.Valid && !rep.Incomplete && len(rep.InfraErrors) == 0 && !t.Failed()
}

// runRetried runs the scenario as subtests attempt_1, attempt_2, ..., each with its own
// deployment (stopped by the subtest's cleanup before the next starts) and result file, until
// an attempt is not retried (retryAfter). A retried attempt sets its result file aside, logs
// its summary and is skipped, saying so; the last concludes as Run does. It returns the last
// attempt's report.
func runRetried(t *testing.T, sc perf.Scenario, cfg runConfig, retries int) *perf.Report {
	t.Helper()
	var final *perf.Report
	for n := 1; n <= retries+1; n++ {
		again := false
		t.Run(fmt.Sprintf("attempt_%d", n), func(st *testing.T) {
			rep, rf := runAttempt(st, sc, cfg)
			final = rep
			if !retryAfter(st, rep, n, retries) {
				conclude(st, cfg, rep, rf)
				return
			}
			path, err := rf.setAside(fmt.Sprintf("attempt-%d", n))
			if err != nil {
				st.Errorf("%s/%s: %v", sc.Test, sc.Transport, err)
				conclude(st, cfg, rep, rf)
				return
			}
			st.Log("\n" + report.Summary(rep))
			cfg.Notes = append(cfg.Notes[:len(cfg.Notes):len(cfg.Notes)], fmt.Sprintf(
				"attempt %d of at most %d (%s=%d): attempt %d at this load was INVALID (%s); its result file is kept as %s, not pushed, left out of charts and the exit code",
				n+1, retries+1, perf.EnvInvalidRetries, retries, n, firstReason(rep.Validity.Reasons), filepath.Base(path)))
			again = true
			st.Skipf("%s/%s: INVALID: %s; its result file is kept as %s (not pushed, left out of charts and the exit code); running again at the same load (%s=%d)",
				sc.Test, sc.Transport, firstReason(rep.Validity.Reasons), path, perf.EnvInvalidRetries, retries)
		})
		if !again {
			return final
		}
	}
	return final
}
