package growth

import (
	"fmt"
	"math"
)

// Bounds of the agreement between a sidecar's /metrics series and its RSS (RunChecks).
const (
	// SeriesMinBytes is the least RSS one added /metrics series costs, in bytes: distinct paths
	// cost 55-73 bytes of RSS per added series (daprd 1.16.5 and 1.17.5, checkout/<uuid>, caller
	// and callee: slope / series per request; docs/scenarios/memory-growth.md), rounded down to 50.
	SeriesMinBytes = 50
	// SeriesFlatPerRequest is the series growth per request under which /metrics counts as not
	// growing: 1 new series per 1,000 requests (distinct paths add 39-54 per request).
	SeriesFlatPerRequest = 0.001
)

// Check is one check of the detector itself: the control variant is flat, and each
// sidecar's /metrics series agree with its RSS verdict.
type Check struct {
	// Check is "control flat" or "series agree with RSS".
	Check   string `json:"check"`
	Variant string `json:"variant"`
	Sidecar string `json:"sidecar"`
	Pass    bool   `json:"pass"`
	Detail  string `json:"detail"`
}

// String reads like "control flat, a-fixed caller-sidecar: pass (flat, slope 101)".
func (c Check) String() string {
	word := "pass"
	if !c.Pass {
		word = "FAIL"
	}
	return fmt.Sprintf("%s, %s %s: %s (%s)", c.Check, c.Variant, c.Sidecar, word, c.Detail)
}

// RunChecks checks the detector on the variants that ran in g (classified against
// g.ThresholdKiBPer1000):
//   - control flat: every sidecar of the control variant has the verdict flat;
//   - series agree with RSS, for every sidecar whose /metrics was read: with the series' growth
//     rate the smaller of SeriesPerRequest and SeriesTailPerRequest, the series grow by at least
//     SeriesFlatPerRequest per request when RSS is growing; and RSS is growing when the series
//     grow so fast that, at SeriesMinBytes each, they alone exceed the threshold. Rates between
//     those bounds are not asserted either way.
func RunChecks(g *Report) []Check {
	out := []Check{}
	for _, v := range g.Variants {
		for _, s := range v.Sidecars {
			gr := s.Growth
			if v.Control {
				out = append(out, Check{Check: "control flat", Variant: v.Name, Sidecar: s.Role,
					Pass:   gr.Verdict == Flat,
					Detail: fmt.Sprintf("%s, slope %.0f, tail %.0f KiB/1000 requests", gr.Verdict, gr.SlopeKiBPer1000, gr.TailSlopeKiBPer1000)})
			}
			c := Check{Check: "series agree with RSS", Variant: v.Name, Sidecar: s.Role, Pass: true}
			if n := len(s.Readings); n == 0 || s.Readings[0].Series < 0 || s.Readings[n-1].Series < 0 {
				c.Detail = "no /metrics endpoint: nothing to compare"
				out = append(out, c)
				continue
			}
			// As for RSS, series grow only when they grow over all rounds and after the first:
			// the smaller rate counts. impliedKiB is the RSS slope that rate adds at least.
			rate := math.Min(s.SeriesPerRequest, s.SeriesTailPerRequest)
			impliedKiB := rate * SeriesMinBytes * 1000 / 1024
			c.Detail = fmt.Sprintf("series %+.3f per request, %+.3f after round 1 (at least %.0f KiB/1000 requests of RSS); RSS %s with slope %.0f",
				s.SeriesPerRequest, s.SeriesTailPerRequest, impliedKiB, gr.Verdict, gr.SlopeKiBPer1000)
			switch {
			case gr.Verdict == Growing && rate < SeriesFlatPerRequest:
				c.Pass = false
				c.Detail += ": RSS grows but the series do not"
			case gr.Verdict != Growing && impliedKiB > g.ThresholdKiBPer1000:
				c.Pass = false
				c.Detail += fmt.Sprintf(": the series grow past the threshold (%.0f) but RSS does not", g.ThresholdKiBPer1000)
			}
			out = append(out, c)
		}
	}
	return out
}
