package growth

import (
	"fmt"
	"math"

	"github.com/daprperf/daprperf/perf/stats"
)

// Verdict is the one-word reading of a memory series.
type Verdict string

// The growth verdicts.
const (
	// Flat: RSS neither grows with requests nor stepped up.
	Flat Verdict = "flat"
	// Growing: RSS keeps rising with requests after the first round: a leak-like growth, such
	// as one metrics series per distinct method name.
	Growing Verdict = "growing"
	// Retained: RSS stepped up, then stayed flat: memory kept (pools, caches), not a leak.
	Retained Verdict = "retained"
)

// The bounds of the growth threshold (DeriveThreshold), in KiB of RSS per 1,000 requests
// (docs/scenarios/memory-growth.md, "Threshold").
//
// The floor leaves at least NoiseMargin (2x) over every slope and tail slope a flat,
// fixed-method variant showed in repeated runs, the largest 246 (daprd 1.16.5): 2 x 246 = 492,
// rounded up to 512. The ceiling is a third of the smallest growth of a distinct-path variant
// seen: 2,188 (1.16.5, checkout/<uuid> with --enable-metrics=false, caller); distinct paths grow
// 2,188-3,503 KiB per 1,000 requests on 1.16.5 and 1.17.5, with 39 series per path on the
// caller's /metrics and 54 on the callee's. So a threshold between them is 2x above the
// control's noise and 3x below the growth this scenario exists to catch.
const (
	MinThresholdKiB = 512
	MaxThresholdKiB = 729
	// SmallestGrowthKiB is the smallest distinct-path growth seen, the ceiling's source.
	SmallestGrowthKiB = 2188
	// NoiseMargin is the stated false-alarm margin: the threshold is at least this many
	// times the control variant's largest slope in the same run (unless capped at the ceiling).
	NoiseMargin = 2
)

// A rise of RSS counts as retained (stepped up, then flat) only beyond
// max(RetainedMinBytes, RetainedMinFraction x the first reading): smaller steps are the Go
// runtime's heap and scavenger pacing: on a 100 MiB daprd with a fixed method name, after a
// warmup round, steps of 0.7 to 1.7 MiB (1.17.5) and 2.6 to 3.2 MiB (1.16.5), while 9,000
// distinct paths add 20 to 30 MiB (TestSmallStepIsFlatNotRetained holds two such steps).
const (
	RetainedMinBytes    = 4 << 20
	RetainedMinFraction = 0.05
)

// Point is one memory reading: after Requests requests in total, at Seconds since the
// first reading.
type Point struct {
	Requests int64   `json:"requests"`
	Seconds  float64 `json:"seconds"`
	RSSBytes uint64  `json:"rssBytes"`
}

// Classification is the reading of one process's memory over a load and the idle window after it.
type Classification struct {
	Verdict Verdict `json:"verdict"`
	// SlopeKiBPer1000 is the least-squares RSS growth over all load readings, in KiB per 1,000
	// requests, with its R²; TailSlopeKiBPer1000 is the same without the first third of the
	// readings (at least the first one), which separates growing from retained.
	SlopeKiBPer1000     float64 `json:"slopeKiBPer1000"`
	R2                  float64 `json:"r2"`
	TailSlopeKiBPer1000 float64 `json:"tailSlopeKiBPer1000"`
	// ThresholdKiBPer1000 is the bound the slopes were compared with.
	ThresholdKiBPer1000 float64 `json:"thresholdKiBPer1000"`
	// IdleGrowthKiB is RSS at the end of the idle window minus RSS at the end of the load.
	IdleGrowthKiB float64 `json:"idleGrowthKiB"`
	// GrowsWhenIdle flags memory that kept growing after the load stopped: more than
	// max(1 MiB, 1 % of RSS) over the idle window, rising steadily (idle fit R² >= 0.5).
	GrowsWhenIdle bool `json:"growsWhenIdle"`
}

// Classify reads load (readings in request order, the first before any request) and idle
// (readings after the load stopped, in time order; may be empty) against threshold, in KiB
// per 1,000 requests:
//   - growing: both the overall and the tail slope exceed threshold;
//   - retained: not growing, but RSS rose over the load by more than
//     max(RetainedMinBytes, RetainedMinFraction x the first reading);
//   - flat: otherwise.
func Classify(load, idle []Point, thresholdKiB float64) Classification {
	g := Classification{Verdict: Flat, ThresholdKiBPer1000: thresholdKiB}
	if len(load) >= 2 {
		g.SlopeKiBPer1000, g.R2, g.TailSlopeKiBPer1000 = growthSlopes(load)
		first, last := load[0], load[len(load)-1]
		rise := float64(last.RSSBytes) - float64(first.RSSBytes)
		switch {
		case g.SlopeKiBPer1000 > thresholdKiB && g.TailSlopeKiBPer1000 > thresholdKiB:
			g.Verdict = Growing
		case rise > math.Max(RetainedMinBytes, RetainedMinFraction*float64(first.RSSBytes)):
			g.Verdict = Retained
		}
	}
	if len(load) > 0 && len(idle) > 0 {
		end := float64(load[len(load)-1].RSSBytes)
		g.IdleGrowthKiB = (float64(idle[len(idle)-1].RSSBytes) - end) / 1024
		limitKiB := math.Max(1024, 0.01*end/1024)
		xs, ys := []float64{load[len(load)-1].Seconds}, []float64{end}
		for _, p := range idle {
			xs, ys = append(xs, p.Seconds), append(ys, float64(p.RSSBytes))
		}
		slope, r2 := stats.LinearFit(xs, ys)
		g.GrowsWhenIdle = g.IdleGrowthKiB > limitKiB && slope > 0 && r2 >= 0.5
	}
	return g
}

// growthSlopes returns Classify's fits of load (at least 2 readings): the slope over all
// readings with its R², and the tail slope, without the first third (at least the first one)
// when there are 3 readings or more, else the slope again.
func growthSlopes(load []Point) (slope, r2, tail float64) {
	slope, r2 = rssPerRequests(load)
	tail = slope
	if len(load) >= 3 {
		tail, _ = rssPerRequests(load[max(1, len(load)/3):])
	}
	return slope, r2, tail
}

// rssPerRequests fits RSS against requests: KiB per 1,000 requests, and R².
func rssPerRequests(ps []Point) (float64, float64) {
	xs := make([]float64, len(ps))
	ys := make([]float64, len(ps))
	for i, p := range ps {
		xs[i] = float64(p.Requests) / 1000
		ys[i] = float64(p.RSSBytes) / 1024
	}
	return stats.LinearFit(xs, ys)
}

// ThresholdDerivation is the growth threshold and how it was derived.
type ThresholdDerivation struct {
	// KiBPer1000 is the threshold, in KiB of RSS per 1,000 requests.
	KiBPer1000 float64 `json:"kibPer1000"`
	// Rule is which bound set it: "env" (setKiB given), "floor", "control"
	// (NoiseMargin x the control's noise) or "ceiling".
	Rule string `json:"rule"`
	// FloorKiB and CeilingKiB are MinThresholdKiB and MaxThresholdKiB.
	FloorKiB   float64 `json:"floorKiB"`
	CeilingKiB float64 `json:"ceilingKiB"`
	// Control is the control variant's name ("" when the scenario has none) and ControlRan
	// whether it ran in this run (it does not when -run selects other variants).
	Control    string `json:"control"`
	ControlRan bool   `json:"controlRan"`
	// ControlNoiseKiB is the control's noise: the largest |slope| or |tail slope| over its
	// sidecars, in KiB per 1,000 requests; 0 when it did not run.
	ControlNoiseKiB float64 `json:"controlNoiseKiB"`
	// MarginOverControl is KiBPer1000 / ControlNoiseKiB (0 when the noise is 0 or unknown) and
	// MarginBelowGrowth is SmallestGrowthKiB / KiBPer1000.
	MarginOverControl float64 `json:"marginOverControl"`
	MarginBelowGrowth float64 `json:"marginBelowGrowth"`
	// Text says how KiBPer1000 was derived, in one sentence without the figure itself, e.g.
	// "the floor (...): 2 x the control's noise, 363, is below it; control a-fixed: noise 182
	// (...), margin 2.8x; 4.3x below the smallest distinct-path growth seen (2188)".
	Text string `json:"text"`
}

// DeriveThreshold derives the threshold, in KiB of RSS per 1,000 requests, from the control
// variant's readings (control names it; reference holds one load series per sidecar, nil when
// the control did not run):
//
//	setKiB                                when > 0 (set by setBy, e.g. an env variable);
//	min(ceiling, max(floor, 2 x noise))   otherwise,
//
// where noise is the largest |slope| or |tail slope| (Classify's two fits) over the
// control's sidecars, floor MinThresholdKiB and ceiling MaxThresholdKiB. So a
// flat variant as noisy as the control stays at least 2x below the threshold, unless the cap
// applies, which the text says with the margin left. Without the control the threshold is the
// floor.
func DeriveThreshold(control string, reference [][]Point, setKiB float64, setBy string) ThresholdDerivation {
	d := ThresholdDerivation{FloorKiB: MinThresholdKiB, CeilingKiB: MaxThresholdKiB,
		Control: control, ControlRan: len(reference) > 0}
	for _, ps := range reference {
		if len(ps) >= 2 {
			s, _, tail := growthSlopes(ps)
			d.ControlNoiseKiB = math.Max(d.ControlNoiseKiB, math.Max(math.Abs(s), math.Abs(tail)))
		}
	}
	var why string
	if setKiB > 0 {
		d.KiBPer1000, d.Rule, why = setKiB, "env", "set by "+setBy
	} else {
		scaled := NoiseMargin * d.ControlNoiseKiB
		switch {
		case scaled > MaxThresholdKiB:
			d.KiBPer1000, d.Rule = MaxThresholdKiB, "ceiling"
			why = fmt.Sprintf("the ceiling (a third of the smallest distinct-path growth seen, %d): %d x the control's noise, %.0f, is above it",
				SmallestGrowthKiB, NoiseMargin, scaled)
		case scaled > MinThresholdKiB:
			d.KiBPer1000, d.Rule = scaled, "control"
			why = fmt.Sprintf("%d x the control's noise", NoiseMargin)
		default:
			d.KiBPer1000, d.Rule = MinThresholdKiB, "floor"
			why = "the floor (2 x the largest fixed-method slope in repeated runs)"
			if d.ControlRan {
				why += fmt.Sprintf(": %d x the control's noise, %.0f, is below it", NoiseMargin, scaled)
			}
		}
	}
	if d.ControlNoiseKiB > 0 {
		d.MarginOverControl = d.KiBPer1000 / d.ControlNoiseKiB
	}
	d.MarginBelowGrowth = SmallestGrowthKiB / d.KiBPer1000
	d.Text = why
	switch {
	case control == "":
		d.Text += "; the scenario has no control variant"
	case !d.ControlRan:
		d.Text += fmt.Sprintf("; the control %s did not run, so its noise is unknown", control)
	default:
		d.Text += fmt.Sprintf("; control %s: noise %.0f (largest |slope| over its sidecars)", control, d.ControlNoiseKiB)
		if d.MarginOverControl > 0 {
			d.Text += fmt.Sprintf(", margin %.1fx", d.MarginOverControl)
		}
		if d.MarginOverControl > 0 && d.MarginOverControl < NoiseMargin {
			d.Text += fmt.Sprintf(", BELOW the stated %dx", NoiseMargin)
		}
	}
	d.Text += fmt.Sprintf("; %.1fx below the smallest distinct-path growth seen (%d)", d.MarginBelowGrowth, SmallestGrowthKiB)
	return d
}
