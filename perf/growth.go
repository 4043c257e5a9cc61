package perf

import (
	"fmt"
	"math"
	"os"
	"strconv"
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

// MinGrowthThresholdKiB is the smallest growth threshold, in KiB of RSS per 1,000 requests:
// below it RSS moves with the Go heap's own pacing. daprd 1.17's per-path metrics cost about
// 2,400-3,000 KiB per 1,000 distinct paths (../shared/notes.md), ten times this.
const MinGrowthThresholdKiB = 256

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
		g.SlopeKiBPer1000, g.R2 = rssPerRequests(load)
		g.TailSlopeKiBPer1000 = g.SlopeKiBPer1000
		if len(load) >= 3 {
			g.TailSlopeKiBPer1000, _ = rssPerRequests(load[max(1, len(load)/3):])
		}
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

// GrowthThreshold returns the threshold in KiB per 1,000 requests: DAPR_PERF_GROWTH_THRESHOLD_KIB
// when set; else three times the largest |tail slope| measured on the reference (fixed-name)
// series, the run's own noise; never below MinGrowthThresholdKiB.
func GrowthThreshold(reference [][]GrowthPoint) (kib float64, source string, err error) {
	if raw, ok := os.LookupEnv(EnvGrowthThreshold); ok {
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return 0, "", fmt.Errorf("perf: %s=%q: must be a number > 0 (KiB of RSS per 1,000 requests)", EnvGrowthThreshold, raw)
		}
		return v, EnvGrowthThreshold, nil
	}
	noise := 0.0
	for _, ps := range reference {
		if len(ps) >= 3 {
			s, _ := rssPerRequests(ps[1:])
			noise = math.Max(noise, math.Abs(s))
		}
	}
	if 3*noise > MinGrowthThresholdKiB {
		return 3 * noise, fmt.Sprintf("3 x the fixed variant's noise (%.0f KiB/1000 requests)", noise), nil
	}
	return MinGrowthThresholdKiB, fmt.Sprintf("the minimum (the fixed variant's noise, %.0f KiB/1000 requests, x 3 is below it)", noise), nil
}
