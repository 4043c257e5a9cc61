package perf_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
)

// TestChangeRuleVerdict decides constructed differences of a figure whose A is 10 (lower is
// better) by the rule: minimum change 5 %, margin ± 5 % (0.5 in A's unit).
func TestChangeRuleVerdict(t *testing.T) {
	rule := perf.ChangeRule{MinChange: 0.05, Margin: 0.05, Confidence: 0.99, SameConfidence: 0.90, Looks: 1}
	// d is a difference of median m with decision interval [lo, hi] and equivalence interval
	// [slo, shi], both at their confidence.
	d := func(m, lo, hi, slo, shi float64) perf.Difference {
		return perf.Difference{A: 10, Median: m, Low: lo, High: hi, HasInterval: true, SameLow: slo, SameHigh: shi, HasSameInterval: true}
	}
	for _, c := range []struct {
		name string
		d    perf.Difference
		want string
	}{
		{"interval above zero, +10 %", d(1, 0.6, 1.4, 0.8, 1.2), perf.VerdictRegressed},
		{"interval below zero, −10 %", d(-1, -1.4, -0.6, -1.2, -0.8), perf.VerdictImproved},
		{"exactly the minimum change", d(0.5, 0.1, 0.9, 0.2, 0.8), perf.VerdictRegressed},
		{"interval touching zero is not beyond it", d(1, 0, 2, 0.5, 1.5), perf.VerdictUndecided},
		{"significant but below the minimum, inside the margin", d(0.3, 0.1, 0.45, 0.2, 0.4), perf.VerdictSame},
		{"significant but below the minimum, past the margin", d(0.4, 0.1, 0.9, 0.2, 0.6), perf.VerdictUndecided},
		{"straddles zero within the margin", d(0, -0.6, 0.6, -0.3, 0.3), perf.VerdictSame},
		{"equivalence interval exactly at the margin", d(0, -0.6, 0.6, -0.5, 0.5), perf.VerdictSame},
		{"equivalence interval just past the margin", d(0, -0.6, 0.6, -0.5, 0.5001), perf.VerdictUndecided},
		{"straddles zero and the margin", d(0.2, -0.8, 1.2, -0.6, 1.0), perf.VerdictUndecided},
	} {
		if got := rule.Verdict(c.d); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}

	// Higher is better (a rate): a rise is an improvement.
	up := d(1, 0.6, 1.4, 0.8, 1.2)
	up.HigherIsBetter = true
	if got := rule.Verdict(up); got != perf.VerdictImproved {
		t.Errorf("a higher rate: %s, want improved", got)
	}
	// Without an interval at the confidence asked for (too few rounds), nothing is decided, even
	// when the widest interval the rounds give looks decisive.
	few := d(1, 0.6, 1.4, -0.1, 0.1)
	few.HasInterval, few.HasSameInterval = false, false
	if got := rule.Verdict(few); got != perf.VerdictUndecided {
		t.Errorf("no interval: %s, want undecided", got)
	}
	// A = 0: any change counts, and only [0, 0] is within the margin.
	zero := perf.Difference{Median: 0.1, Low: 0.05, High: 0.2, HasInterval: true, SameLow: 0.05, SameHigh: 0.15, HasSameInterval: true}
	if got := rule.Verdict(zero); got != perf.VerdictRegressed {
		t.Errorf("from 0: %s, want regressed", got)
	}
	if got := rule.Verdict(perf.Difference{HasInterval: true, HasSameInterval: true}); got != perf.VerdictSame {
		t.Errorf("0 against 0: %s, want same", got)
	}
}

// TestChangeRuleLooks: Bonferroni over looks: 99 % over 5 looks asks 99.8 % of each, 90 % asks
// 98 %; one look (or 0) asks the rule's own.
func TestChangeRuleLooks(t *testing.T) {
	r := perf.ChangeRule{Confidence: 0.99, SameConfidence: 0.90, Looks: 5}
	if got := r.DecideConfidence(); got < 0.998-1e-12 || got > 0.998+1e-12 {
		t.Errorf("decide, 5 looks: %v, want 0.998", got)
	}
	if got := r.EquivalenceConfidence(); got < 0.98-1e-12 || got > 0.98+1e-12 {
		t.Errorf("same, 5 looks: %v, want 0.98", got)
	}
	r.Looks = 0
	if got := r.DecideConfidence(); got != 0.99 {
		t.Errorf("decide, 0 looks: %v, want 0.99", got)
	}
	if err := (perf.ChangeRule{Confidence: 1, SameConfidence: 0.9}).Validate(); err == nil {
		t.Error("confidence 1 validated")
	}
	if err := (perf.ChangeRule{MinChange: 0.05, Margin: 0.05, Confidence: 0.99, SameConfidence: 0.9, Looks: 1}).Validate(); err != nil {
		t.Errorf("the default rule: %v", err)
	}
}

// TestVerdictWord maps the words of older result files to the four-way ones.
func TestVerdictWord(t *testing.T) {
	for old, want := range map[string]string{
		"regression": perf.VerdictRegressed, "improvement": perf.VerdictImproved,
		"within noise": perf.VerdictUndecided, "too few rounds to tell": perf.VerdictUndecided,
		perf.VerdictSame: perf.VerdictSame, "": "",
	} {
		if got := perf.VerdictWord(old); got != want {
			t.Errorf("VerdictWord(%q) = %q, want %q", old, got, want)
		}
	}
}
