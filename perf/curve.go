package perf

// CurveReport is a cost-curve run's measurements (the curve plan): the main route loaded at
// rising offered rates, several rounds at each, and the searches for the highest rate that
// keeps the bound. Each load's whole result is in Report.Loads under the name its round or
// step gives; these are the figures read from it while it ran, and the sidecars' CPU, which
// the result does not hold. report.CurvePoints derives the medians and intervals.
type CurveReport struct {
	// Bound is what a load must keep to pass: its response-time p99 (seconds) at most
	// P99Seconds, no error, and at least KeptRatio of its offered rate (Result.KeptQPSRatio).
	Bound CurveBound `json:"bound"`
	// Points are the offered rates in rising order, each with its rounds.
	Points []CurvePoint `json:"points"`
	// Stopped says why no higher rate was offered ("" when every rate of the plan ran).
	Stopped string `json:"stopped,omitempty"`
	// Searches are the repeats of the search for the highest rate that keeps the bound.
	Searches []RateSearch `json:"searches,omitempty"`
	// Search states the search's steps: where it starts, how it grows and when it stops.
	Search string `json:"search,omitempty"`
}

// CurveBound is a curve plan's pass condition for one load.
type CurveBound struct {
	P99Seconds float64 `json:"p99Seconds"`
	KeptRatio  float64 `json:"keptRatio"`
	// Source says where the bound comes from.
	Source string `json:"source"`
}

// CurvePoint is one offered rate of the curve.
type CurvePoint struct {
	// OfferedQPS is the rate asked of the tester, requests/s.
	OfferedQPS int          `json:"offeredQPS"`
	Rounds     []CurveProbe `json:"rounds"`
}

// CurveProbe is one load of a curve run: a round of a point, or a step of a search.
type CurveProbe struct {
	// Load names the load in Report.Loads.
	Load string `json:"load"`
	// OfferedQPS and AchievedQPS are requests/s.
	OfferedQPS  int     `json:"offeredQPS"`
	AchievedQPS float64 `json:"achievedQPS"`
	// KeptRatio is the load's Result.KeptQPSRatio.
	KeptRatio float64 `json:"keptRatio"`
	// P50, P90 and P99 are service time, ResponseP99 response time (from each request's
	// intended start), seconds.
	P50         float64 `json:"p50"`
	P90         float64 `json:"p90"`
	P99         float64 `json:"p99"`
	ResponseP99 float64 `json:"responseP99"`
	Errors      int64   `json:"errors"`
	// CPU is each measured process's use over the load (sidecars and app).
	CPU []ProcessUse `json:"cpu,omitempty"`
	// Pass says whether the load kept the Bound; Why says how it missed it.
	Pass bool   `json:"pass"`
	Why  string `json:"why,omitempty"`
}

// ProcessUse is one process's use over a load: its mean CPU, cores, and its peak RSS, bytes.
type ProcessUse struct {
	Process      string  `json:"process"`
	Role         string  `json:"role"`
	Cores        float64 `json:"cores"`
	PeakRSSBytes uint64  `json:"peakRSSBytes"`
}

// RateSearch is one search for the highest rate that keeps the bound.
type RateSearch struct {
	// Steps are the loads it offered, in order.
	Steps []CurveProbe `json:"steps"`
	// HighestQPS is the highest offered rate that passed, requests/s (0 when none did).
	HighestQPS int `json:"highestQPS"`
	// Reason says how it ended.
	Reason string `json:"reason"`
}

// EnvCurveP99 sets the curve plan's bound on each load's response-time p99 (Env.CurveP99).
const EnvCurveP99 = "DAPR_PERF_CURVE_P99"

// The gate figures of a curve run (report's curve kind derives them).
const (
	// CurveHighestFigure is the median over the searches of the highest rate that kept the
	// bound, requests/s.
	CurveHighestFigure = "curve.highest.qps"
	// CurveSpreadFigure is how far the searches' highest rates are apart: (max − min) / median,
	// a fraction.
	CurveSpreadFigure = "curve.search.spread"
)
