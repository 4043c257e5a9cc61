package perf

import "testing"

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
