package bisect

import (
	"context"
	"fmt"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// Rounds is a Comparer that measures both binaries in this process, in interleaved rounds: the
// order alternates AB, BA, AB, ... so that a drift of the machine falls on both alike. After
// Planned rounds of each, and after each further pair, it judges the paired differences B − A
// with report.PairedDifference under report.ABRule(Planned, Max), the rule of an A/B perf run
// (its false alarms spread over every look), and stops at the first verdict other than
// undecided, or after Max rounds.
type Rounds struct {
	// Figure and Unit name what Measure returns ("latency p50", "s"); lower is better.
	Figure, Unit string
	// Planned is the rounds of each binary before the first look (at least 2); Max the budget
	// (at least Planned).
	Planned, Max int
	// Measure runs one round of binary b and returns its figure, in Unit.
	Measure func(ctx context.Context, b Binary) (float64, error)
}

// Compare measures a and b in rounds until the verdict on b − a is decided or Max rounds ran.
// A round's error stops it.
func (r Rounds) Compare(ctx context.Context, a, b Binary) (Comparison, error) {
	if r.Planned < 2 || r.Max < r.Planned || r.Measure == nil {
		return Comparison{}, fmt.Errorf("bisect: rounds: planned %d, max %d: need 2 <= planned <= max and a Measure", r.Planned, r.Max)
	}
	start := time.Now()
	rule := report.ABRule(r.Planned, r.Max)
	var as, bs []float64
	for n := 1; ; n++ {
		first, second := a, b
		if n%2 == 0 {
			first, second = b, a
		}
		v1, err := r.Measure(ctx, first)
		if err != nil {
			return Comparison{}, fmt.Errorf("bisect: round %d of %s: %w", n, first.Commit.Short(), err)
		}
		v2, err := r.Measure(ctx, second)
		if err != nil {
			return Comparison{}, fmt.Errorf("bisect: round %d of %s: %w", n, second.Commit.Short(), err)
		}
		if n%2 == 0 {
			v1, v2 = v2, v1
		}
		as, bs = append(as, v1), append(bs, v2)
		// Looks come after the planned rounds and after each further pair (report.ABLooks).
		if n < r.Planned || (n < r.Max && (n-r.Planned)%2 == 1) {
			continue
		}
		d := report.PairedDifference(r.Figure, r.Unit, as, bs, false, rule)
		if perf.VerdictWord(d.Verdict) != perf.VerdictUndecided || n >= r.Max {
			return Comparison{A: a.Commit, B: b.Commit, Difference: d, Rounds: n, Seconds: time.Since(start).Seconds()}, nil
		}
	}
}
