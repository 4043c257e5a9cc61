package perf

import (
	"fmt"
	"math"
)

// The verdicts of a comparison of two builds or two sets of rounds (Difference.Verdict), shared
// by A/B runs, charts compare and the nightly comparison with earlier runs. They follow
// Chromium Pinpoint's three outcomes (catapult dashboard/pinpoint/models/compare/compare.py:
// different, same, unknown → run more), with "different" split by direction.
const (
	// VerdictRegressed: the decision interval of the change lies wholly on the worse side of
	// zero and the change is at least ChangeRule.MinChange.
	VerdictRegressed = "regressed"
	// VerdictImproved: as VerdictRegressed, on the better side.
	VerdictImproved = "improved"
	// VerdictSame: the equivalence interval of the change lies wholly within ± ChangeRule.Margin
	// (Schuirmann's two one-sided tests).
	VerdictSame = "same"
	// VerdictUndecided: neither; more rounds may decide.
	VerdictUndecided = "undecided"
)

// The verdict words of result files written before the four-way verdict. VerdictWord maps them.
const (
	OldVerdictRegression  = "regression"
	OldVerdictImprovement = "improvement"
	OldVerdictWithinNoise = "within noise"
	OldVerdictTooFew      = "too few rounds to tell"
)

// VerdictWord is the four-way word for a verdict read from a result file: the words written
// before it map to theirs (regression → regressed, improvement → improved; "within noise" and
// "too few rounds to tell" → undecided, since neither showed the change to be within a
// margin); the current words and "" are returned as they are.
func VerdictWord(v string) string {
	switch v {
	case OldVerdictRegression:
		return VerdictRegressed
	case OldVerdictImprovement:
		return VerdictImproved
	case OldVerdictWithinNoise, OldVerdictTooFew:
		return VerdictUndecided
	}
	return v
}

// ChangeRule is what a verdict asks of a change B − A. Confidences are in (0, 1); MinChange and
// Margin are fractions of |A|.
//
// Regressed or improved needs the decision interval, at DecideConfidence, to exclude zero: on
// data of one build, the chance that a two-sided interval misses the true change of zero is at
// most 1 − DecideConfidence, so 0.99 bounds the false alarms of a figure at 1 % per look (the
// order-statistics and Mann–Whitney intervals used are distribution-free and their actual
// confidence is at least the one asked for). Same needs the equivalence interval, at
// SameConfidence, to lie within ± Margin: that is Schuirmann's two one-sided tests at level
// (1 − SameConfidence) / 2 each (D. J. Schuirmann, "A comparison of the two one-sided tests
// procedure and the power approach for assessing the equivalence of average bioavailability",
// J. Pharmacokinet. Biopharm. 15(6), 1987: a 1 − 2α interval inside the margin), so 0.90 is the
// usual α = 5 %.
//
// Looks > 1 is a run that decides after each of several looks at growing rounds (the adaptive
// A/B rounds): each confidence is then spread over the looks by Bonferroni's inequality, the
// interval of each look at 1 − (1 − c) / Looks, so that the chance of any false call over all
// looks stays within 1 − c.
type ChangeRule struct {
	// MinChange is the smallest |Median| / |A| that counts as regressed or improved.
	MinChange float64 `json:"minChange"`
	// Margin is the equivalence margin: same when the whole equivalence interval lies within
	// ± Margin × |A|.
	Margin float64 `json:"margin"`
	// Confidence is the decision interval's confidence over all looks; SameConfidence the
	// equivalence interval's.
	Confidence     float64 `json:"confidence"`
	SameConfidence float64 `json:"sameConfidence"`
	// Looks is how many times the rounds may be judged (1 when they are judged once; 0 reads
	// as 1).
	Looks int `json:"looks"`
}

// Validate reports a rule whose fields are out of range.
func (r ChangeRule) Validate() error {
	switch {
	case !(r.MinChange >= 0) || math.IsInf(r.MinChange, 0):
		return fmt.Errorf("perf: change rule: minimum change %g: must be a fraction >= 0", r.MinChange)
	case !(r.Margin >= 0) || math.IsInf(r.Margin, 0):
		return fmt.Errorf("perf: change rule: margin %g: must be a fraction >= 0", r.Margin)
	case !(r.Confidence > 0 && r.Confidence < 1):
		return fmt.Errorf("perf: change rule: confidence %g: must be in (0, 1)", r.Confidence)
	case !(r.SameConfidence > 0 && r.SameConfidence < 1):
		return fmt.Errorf("perf: change rule: same confidence %g: must be in (0, 1)", r.SameConfidence)
	case r.Looks < 0:
		return fmt.Errorf("perf: change rule: %d looks: must be >= 0", r.Looks)
	}
	return nil
}

// DecideConfidence is the confidence asked of one look's decision interval: 1 − (1 −
// Confidence) / Looks.
func (r ChangeRule) DecideConfidence() float64 { return perLook(r.Confidence, r.Looks) }

// EquivalenceConfidence is the confidence asked of one look's equivalence interval:
// 1 − (1 − SameConfidence) / Looks.
func (r ChangeRule) EquivalenceConfidence() float64 { return perLook(r.SameConfidence, r.Looks) }

func perLook(c float64, looks int) float64 {
	return 1 - (1-c)/float64(max(looks, 1))
}

// Verdict decides d by the rule, from d.A, d.Median, d.HigherIsBetter, the decision interval
// (d.Low, d.High, d.HasInterval) and the equivalence interval (d.SameLow, d.SameHigh,
// d.HasSameInterval), all in d's unit:
//
//   - regressed or improved when HasInterval, the interval lies wholly beyond zero (Low > 0 or
//     High < 0), and |Median| >= MinChange × |A|, by the figure's direction;
//   - same when HasSameInterval and −Margin × |A| <= SameLow and SameHigh <= Margin × |A|;
//   - undecided otherwise, among which every difference without an interval at the asked
//     confidence (too few rounds).
//
// With A = 0 any non-zero change counts as at least MinChange and only an interval of [0, 0]
// is within the margin.
func (r ChangeRule) Verdict(d Difference) string {
	ref := math.Abs(d.A)
	if d.HasInterval && (d.Low > 0 || d.High < 0) && math.Abs(d.Median) >= r.MinChange*ref && d.Median != 0 {
		if (d.Median > 0) == d.HigherIsBetter {
			return VerdictImproved
		}
		return VerdictRegressed
	}
	if d.HasSameInterval && d.SameLow >= -r.Margin*ref && d.SameHigh <= r.Margin*ref {
		return VerdictSame
	}
	return VerdictUndecided
}
