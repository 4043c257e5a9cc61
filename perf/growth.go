package perf

import (
	"fmt"
	"math"
)

// GrowthVerdict is the one-word reading of a memory series.
type GrowthVerdict string

// The growth verdicts.
const (
	// Flat: RSS neither grows with requests nor stepped up.
	Flat GrowthVerdict = "flat"
	// Growing: RSS keeps rising with requests after the first round: a leak-like growth, such
	// as one metrics series per distinct method name.
	Growing GrowthVerdict = "growing"
	// Retained: RSS stepped up, then stayed flat: memory kept (pools, caches), not a leak.
	Retained GrowthVerdict = "retained"
)

// The bounds of the growth threshold (GrowthThreshold), in KiB of RSS per 1,000 requests.
//
// The floor leaves at least GrowthNoiseMargin (2x) over every slope and tail slope a flat,
// fixed-method variant showed in repeated runs here: up to 231 (daprd 1.17.5, 5 runs, issue
// 20), 217 (1.17.5, 10 runs: slopes 28-217, tail slopes -47-214), 245 (1.16.5,
// reports/v1.16.5/memory_growth) and 246 (1.16.5, one more run); 2 x 246 = 492, rounded up to
// 512. The ceiling is a third of the smallest growth of a distinct-path variant seen: 2,188
// (1.16.5, checkout/<uuid> with --enable-metrics=false, caller); distinct paths grow
// 2,188-3,503 KiB per 1,000 requests on 1.16.5 and 1.17.5, with 39 series per path on the
// caller's /metrics and 54 on the callee's. So a threshold between them is 2x above the
// control's noise and 3x below the growth this scenario exists to catch.
const (
	MinGrowthThresholdKiB = 512
	MaxGrowthThresholdKiB = 729
	// SmallestGrowthKiB is the smallest distinct-path growth seen, the ceiling's source.
	SmallestGrowthKiB = 2188
	// GrowthNoiseMargin is the stated false-alarm margin: the threshold is at least this many
	// times the control variant's largest slope in the same run (unless capped at the ceiling).
	GrowthNoiseMargin = 2
)

// A rise of RSS counts as retained (stepped up, then flat) only beyond
// max(RetainedMinBytes, RetainedMinFraction x the first reading): smaller steps are the Go
// runtime's heap and scavenger pacing. Measured here on a 100 MiB daprd with a fixed method
// name, after a warmup round: steps of 0.7 to 1.7 MiB (1.17.5) and 2.6 to 3.2 MiB (1.16.5),
// while 9,000 distinct paths add 20 to 30 MiB.
const (
	RetainedMinBytes    = 4 << 20
	RetainedMinFraction = 0.05
)

// EnvGrowthThreshold overrides the growth threshold, in KiB per 1,000 requests (> 0).
const EnvGrowthThreshold = "DAPR_PERF_GROWTH_THRESHOLD_KIB"

// GrowthPoint is one memory reading: after Requests requests in total, at Seconds since the
// first reading.
type GrowthPoint struct {
	Requests int64   `json:"requests"`
	Seconds  float64 `json:"seconds"`
	RSSBytes uint64  `json:"rssBytes"`
}

// Growth is the classification of one process's memory over a load and the idle window after it.
type Growth struct {
	Verdict GrowthVerdict `json:"verdict"`
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

// ClassifyGrowth reads load (readings in request order, the first before any request) and idle
// (readings after the load stopped, in time order; may be empty) against threshold, in KiB
// per 1,000 requests:
//   - growing: both the overall and the tail slope exceed threshold;
//   - retained: not growing, but RSS rose over the load by more than
//     max(RetainedMinBytes, RetainedMinFraction x the first reading);
//   - flat: otherwise.
func ClassifyGrowth(load, idle []GrowthPoint, thresholdKiB float64) Growth {
	g := Growth{Verdict: Flat, ThresholdKiBPer1000: thresholdKiB}
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
		slope, r2 := LinearFit(xs, ys)
		g.GrowsWhenIdle = g.IdleGrowthKiB > limitKiB && slope > 0 && r2 >= 0.5
	}
	return g
}

// growthSlopes returns ClassifyGrowth's fits of load (at least 2 readings): the slope over all
// readings with its R², and the tail slope, without the first third (at least the first one)
// when there are 3 readings or more, else the slope again.
func growthSlopes(load []GrowthPoint) (slope, r2, tail float64) {
	slope, r2 = rssPerRequests(load)
	tail = slope
	if len(load) >= 3 {
		tail, _ = rssPerRequests(load[max(1, len(load)/3):])
	}
	return slope, r2, tail
}

// rssPerRequests fits RSS against requests: KiB per 1,000 requests, and R².
func rssPerRequests(ps []GrowthPoint) (float64, float64) {
	xs := make([]float64, len(ps))
	ys := make([]float64, len(ps))
	for i, p := range ps {
		xs[i] = float64(p.Requests) / 1000
		ys[i] = float64(p.RSSBytes) / 1024
	}
	return LinearFit(xs, ys)
}

// ThresholdDerivation is the growth threshold and how it was derived.
type ThresholdDerivation struct {
	// KiBPer1000 is the threshold, in KiB of RSS per 1,000 requests.
	KiBPer1000 float64 `json:"kibPer1000"`
	// Rule is which bound set it: "env" (DAPR_PERF_GROWTH_THRESHOLD_KIB), "floor", "control"
	// (GrowthNoiseMargin x the control's noise) or "ceiling".
	Rule string `json:"rule"`
	// FloorKiB and CeilingKiB are MinGrowthThresholdKiB and MaxGrowthThresholdKiB.
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

// GrowthThreshold derives the threshold, in KiB of RSS per 1,000 requests, from the control
// variant's readings (control names it; reference holds one load series per sidecar, nil when
// the control did not run):
//
//	DAPR_PERF_GROWTH_THRESHOLD_KIB                   when set (> 0);
//	min(ceiling, max(floor, 2 x noise))              otherwise,
//
// where noise is the largest |slope| or |tail slope| (ClassifyGrowth's two fits) over the
// control's sidecars, floor MinGrowthThresholdKiB and ceiling MaxGrowthThresholdKiB. So a
// flat variant as noisy as the control stays at least 2x below the threshold, unless the cap
// applies, which the text says with the margin left. Without the control the threshold is the
// floor. A bad env value is an error naming the variable.
func GrowthThreshold(control string, reference [][]GrowthPoint) (ThresholdDerivation, error) {
	d := ThresholdDerivation{FloorKiB: MinGrowthThresholdKiB, CeilingKiB: MaxGrowthThresholdKiB,
		Control: control, ControlRan: len(reference) > 0}
	for _, ps := range reference {
		if len(ps) >= 2 {
			s, _, tail := growthSlopes(ps)
			d.ControlNoiseKiB = math.Max(d.ControlNoiseKiB, math.Max(math.Abs(s), math.Abs(tail)))
		}
	}
	var why string
	env, err := LoadEnv()
	if err != nil {
		return ThresholdDerivation{}, err
	}
	if v := env.GrowthThreshold; v != nil {
		if math.IsInf(*v, 0) {
			return ThresholdDerivation{}, fmt.Errorf("perf: %s=%v: must be a number > 0 (KiB of RSS per 1,000 requests)", EnvGrowthThreshold, *v)
		}
		d.KiBPer1000, d.Rule, why = *v, "env", "set by "+EnvGrowthThreshold
	} else {
		scaled := GrowthNoiseMargin * d.ControlNoiseKiB
		switch {
		case scaled > MaxGrowthThresholdKiB:
			d.KiBPer1000, d.Rule = MaxGrowthThresholdKiB, "ceiling"
			why = fmt.Sprintf("the ceiling (a third of the smallest distinct-path growth seen, %d): %d x the control's noise, %.0f, is above it",
				SmallestGrowthKiB, GrowthNoiseMargin, scaled)
		case scaled > MinGrowthThresholdKiB:
			d.KiBPer1000, d.Rule = scaled, "control"
			why = fmt.Sprintf("%d x the control's noise", GrowthNoiseMargin)
		default:
			d.KiBPer1000, d.Rule = MinGrowthThresholdKiB, "floor"
			why = "the floor (2 x the largest fixed-method slope in repeated runs)"
			if d.ControlRan {
				why += fmt.Sprintf(": %d x the control's noise, %.0f, is below it", GrowthNoiseMargin, scaled)
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
		if d.MarginOverControl > 0 && d.MarginOverControl < GrowthNoiseMargin {
			d.Text += fmt.Sprintf(", BELOW the stated %dx", GrowthNoiseMargin)
		}
	}
	d.Text += fmt.Sprintf("; %.1fx below the smallest distinct-path growth seen (%d)", d.MarginBelowGrowth, SmallestGrowthKiB)
	return d, nil
}
