package perf

import (
	"strings"
	"testing"
)

// TestOutcomeOrder: the codes grow with severity, so Worst (the largest) lets an interrupt win
// over everything, a configuration error over an infrastructure error, and so on; each has the
// name docs/results.md's table gives it.
func TestOutcomeOrder(t *testing.T) {
	order := []Outcome{OutcomePass, OutcomeMissedBound, OutcomeInvalid, OutcomeInfra, OutcomeConfig, OutcomeInterrupted}
	codes := []int{0, 3, 4, 5, 6, 130}
	names := []string{"pass", "missed bound", "invalid run", "infrastructure error", "configuration error", "interrupted"}
	for i, o := range order {
		if int(o) != codes[i] || o.String() != names[i] {
			t.Errorf("outcome %d: %d %q, want %d %q", i, int(o), o, codes[i], names[i])
		}
		for _, p := range order[:i] {
			if Worst(o, p) != o || Worst(p, o) != o {
				t.Errorf("Worst(%v, %v) is not %v", o, p, o)
			}
		}
	}
}

// TestOutcomeOfAnInterruptedRun: a result file marked interrupted (InterruptedBy, or, written
// before that field, its incomplete reason) is interrupted, whatever else it holds; an
// incomplete run that no signal stopped is an infrastructure error.
func TestOutcomeOfAnInterruptedRun(t *testing.T) {
	for _, c := range []struct {
		name string
		rep  Report
		want Outcome
	}{
		{"signal", Report{Incomplete: true, IncompleteReason: "interrupted by SIGINT after round 1 baseline", InterruptedBy: "SIGINT",
			InfraErrors: []string{"tester: connection refused"}}, OutcomeInterrupted},
		{"older file", Report{Incomplete: true, IncompleteReason: "interrupted by SIGTERM before any phase completed"}, OutcomeInterrupted},
		{"test stopped", Report{Incomplete: true, IncompleteReason: "the test stopped before the run finished, after round 1 main"}, OutcomeInfra},
	} {
		if got, why := c.rep.Outcome(); got != c.want {
			t.Errorf("%s: %v (%s), want %v", c.name, got, why, c.want)
		}
	}
}

// A store the platform started that exits mid-run is an infrastructure error naming it, even
// when the run is also invalid (its requests hung) and missed its restarts bound; a sidecar that
// exits is the restarts bound's, a missed bound.
func TestOutcomeOfAKilledBackend(t *testing.T) {
	r := &Report{Pass: false, Validity: Validity{Reasons: []string{"generator fell behind"}},
		Environment: Environment{Backends: []BackendInfo{{Backend: BackendRedis, Process: "redis"}}},
		Exits:       []Exit{{Process: "redis", Reason: "signal SIGKILL"}},
		Verdicts:    []Verdict{{Threshold: Threshold{Figure: "restarts", Op: AtMost}, Got: 1, Measured: true}}}
	o, why := r.Outcome()
	if o != OutcomeInfra || why != "backend redis (redis) exited mid-run: signal SIGKILL: the environment broke, not daprd" {
		t.Errorf("killed backend: %v, %q", o, why)
	}
	r.Exits = []Exit{{Process: "testapp-daprd", Reason: "signal SIGKILL"}}
	r.Validity = Validity{Valid: true}
	if o, _ := r.Outcome(); o != OutcomeMissedBound {
		t.Errorf("killed sidecar: %v, want a missed bound", o)
	}
}

// A pass that missed warn-only bounds says how many and names them; only a pass that missed
// none says "every bound kept"; a gating bound missed is a missed bound whatever else passed.
func TestOutcomeNamesMissedWarnOnlyBounds(t *testing.T) {
	p95 := Verdict{Threshold: Threshold{Figure: "latency.p95", Op: AtMost, Limit: 0.09, Source: "Dapr", WarnOnly: true}, Got: 0.15, Measured: true}
	errs := Verdict{Threshold: Threshold{Figure: "errors", Op: AtMost, Source: "Dapr"}, Measured: true, Pass: true}
	valid := Validity{Valid: true}

	o, why := (&Report{Pass: true, Validity: valid, Verdicts: []Verdict{errs}}).Outcome()
	if o != OutcomePass || why != "every bound kept" {
		t.Errorf("clean pass: %v %q", o, why)
	}
	o, why = (&Report{Pass: true, Validity: valid, Verdicts: []Verdict{errs, p95}}).Outcome()
	if o != OutcomePass || !strings.HasPrefix(why, "every gating bound kept; 1 warn-only bound(s) missed: latency.p95") {
		t.Errorf("pass with a warn-only miss: %v %q", o, why)
	}
	errs.Pass, errs.Got = false, 3
	o, why = (&Report{Validity: valid, Verdicts: []Verdict{errs, p95}}).Outcome()
	if o != OutcomeMissedBound || !strings.HasPrefix(why, "errors") || strings.Contains(why, "latency.p95") {
		t.Errorf("gating miss: %v %q", o, why)
	}
}
