package runner

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

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
