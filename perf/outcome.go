package perf

import (
	"fmt"
	"strings"
)

// Outcome is what a run came to; its value is the exit code make perf (cmd/perfsuite, through
// report.RunOutcome) ends with. Codes 1 and 2 are left to go test and make themselves.
// The values grow with severity, so the worst of several is the largest (Worst).
type Outcome int

// The outcomes, from best to worst; a run of several scenarios takes the worst.
const (
	// OutcomePass: complete, valid, and every bound that gates was kept.
	OutcomePass Outcome = 0
	// OutcomeMissedBound: complete and valid, but a bound that gates failed (errors, restarts,
	// QPS ratio, an enforced overhead bound).
	OutcomeMissedBound Outcome = 3
	// OutcomeInvalid: the load did not keep its schedule or reach its QPS, so the latencies
	// cannot be trusted (Validity).
	OutcomeInvalid Outcome = 4
	// OutcomeInfra: the run could not measure what it should: the platform, the tester or the
	// push failed, the run ended early (not by a signal), or no result file was written at all.
	OutcomeInfra Outcome = 5
	// OutcomeConfig: a configuration or usage error (a bad DAPR_PERF_* value, a bad flag or
	// package argument of cmd/perfsuite): the run was refused before any process started, so
	// it wrote no result file. cmd/perfsuite finds it in its plan-only pass.
	OutcomeConfig Outcome = 6
	// OutcomeInterrupted: the run was stopped by a signal (Ctrl-C's SIGINT, or SIGTERM) and kept
	// what it measured, its result file marked interrupted (InterruptedBy); 128 + SIGINT, as a
	// shell reports a command ended by Ctrl-C. It dominates every other outcome: the run did not
	// end by itself.
	OutcomeInterrupted Outcome = 130
)

// Worst is the more severe of o and p.
func Worst(o, p Outcome) Outcome { return max(o, p) }

// String names the outcome as the exit-code table of docs/results.md ("Exit codes") does.
func (o Outcome) String() string {
	switch o {
	case OutcomePass:
		return "pass"
	case OutcomeMissedBound:
		return "missed bound"
	case OutcomeInvalid:
		return "invalid run"
	case OutcomeInfra:
		return "infrastructure error"
	case OutcomeConfig:
		return "configuration error"
	case OutcomeInterrupted:
		return "interrupted"
	}
	return fmt.Sprintf("outcome %d", int(o))
}

// Outcome classifies the report and says why in one line: a run stopped by a signal first,
// then an incomplete run, one with infrastructure errors or one whose store, broker or
// control-plane service exited under it (BackendExits: the environment broke, which says
// nothing of daprd), then an invalid one, then failed bounds (not warn-only ones). A pass that
// missed warn-only bounds (make perf's default gate for Dapr's overhead and latency bounds)
// says how many and which, never "every bound kept".
func (r *Report) Outcome() (Outcome, string) {
	backends := r.BackendExits()
	switch {
	case r.InterruptedBy != "":
		return OutcomeInterrupted, "incomplete: " + r.IncompleteReason
	case r.Incomplete && strings.HasPrefix(r.IncompleteReason, "interrupted by "): // written before interruptedBy
		return OutcomeInterrupted, "incomplete: " + r.IncompleteReason
	case r.Incomplete:
		return OutcomeInfra, "incomplete: " + r.IncompleteReason
	case len(r.InfraErrors) > 0:
		return OutcomeInfra, strings.Join(r.InfraErrors, "; ")
	case len(backends) > 0:
		return OutcomeInfra, strings.Join(backends, "; ")
	case !r.Validity.Valid:
		return OutcomeInvalid, strings.Join(r.Validity.Reasons, "; ")
	}
	var failed, warned []string
	verdicts := r.Verdicts
	if r.AB != nil {
		verdicts = append(append([]Verdict(nil), verdicts...), r.AB.Verdicts...)
	}
	for _, v := range verdicts {
		switch {
		case !v.Pass && !v.WarnOnly:
			failed = append(failed, v.String())
		case !v.Pass:
			warned = append(warned, v.String())
		}
	}
	switch {
	case len(failed) > 0:
		return OutcomeMissedBound, strings.Join(failed, "; ")
	case !r.Pass:
		return OutcomeInfra, "the run did not pass, yet no bound failed: see the test log"
	case len(warned) > 0:
		// A pass, but not a clean one: the headline names each warn-only bound it missed.
		return OutcomePass, fmt.Sprintf("every gating bound kept; %d warn-only bound(s) missed: %s", len(warned), strings.Join(warned, "; "))
	}
	return OutcomePass, "every bound kept"
}

// BackendExits names, one line each, the unexpected exits (Exits) of a store, broker or
// control-plane service the platform started for the run (Environment.Backends, by process):
// "backend redis exited mid-run: signal SIGKILL". A sidecar's or an app's exit is not among
// them: that is what the restarts bound judges.
func (r *Report) BackendExits() []string {
	procs := map[string]Backend{}
	for _, b := range r.Environment.Backends {
		if b.Process != "" {
			procs[b.Process] = b.Backend
		}
	}
	var out []string
	for _, e := range r.Exits {
		if b, ok := procs[e.Process]; ok {
			out = append(out, fmt.Sprintf("backend %s (%s) exited mid-run: %s: the environment broke, not daprd", e.Process, b, e.Reason))
		}
	}
	return out
}
