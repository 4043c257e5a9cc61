package report

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"

	"github.com/daprperf/daprperf/perf/growth"
)

// errNoRounds is the overhead error of a run that completed no round.
var errNoRounds = errors.New("no complete round")

// Validity bounds: a measured phase is invalid when it achieved less than 99 % of its planned
// QPS, the last request's own time allowed for (Result.KeptQPSRatio), or when more than 1 % of
// its schedule was skipped or late (the generator fell behind, so its latencies understate
// queueing: coordinated omission).
const (
	MinValidQPSRatio       = 0.99
	MaxValidBehindFraction = 0.01
)

// DeriveOverhead derives what the overhead plan measures from the rounds and the idle window:
// the overhead on service and response time, the validity of every measured phase (under
// Report.RateIsMeasured a missed rate or schedule is a warning instead), the warnings and the
// resource summaries. With no complete round the run is invalid.
func DeriveOverhead(r *perf.Report) {
	var err error
	if len(r.Rounds) == 0 {
		err = errNoRounds
	} else {
		r.Overhead, err = ComputeOverheads(r.Rounds)
	}
	var rateWarnings []string
	if r.RateIsMeasured {
		r.Validity = perf.Validity{Valid: true}
		for _, ph := range roundPhases(r.Rounds) {
			if reasons := PhaseInvalidReasons(ph.Name, ph.Res); len(reasons) > 0 {
				rateWarnings = append(rateWarnings, strings.Join(reasons, "; ")+"; the rate is what this scenario measures, so the run stays valid, and this phase's service times understate queueing (its response times do not)")
			}
		}
	} else {
		r.Validity = PhaseValidity(roundPhases(r.Rounds))
	}
	if err != nil {
		r.Validity.Valid = false
		r.Validity.Reasons = append(r.Validity.Reasons, "overhead: "+err.Error())
	}
	if len(r.Rounds) > 0 {
		r.ResponseOverhead, _ = ComputeResponseOverheads(r.Rounds) // nil when a phase has none
	}
	r.Warnings = append(warnings(r.Rounds), rateWarnings...)
	r.Resources = SummariseResources(r.Rounds, r.Idle)
}

// Judge derives the figures once (DeriveFigures), applies the thresholds to them and sets the
// overall pass: valid, complete, no infrastructure error, and every verdict that is not
// WarnOnly passed. A plan's own checks (the growth detector's) are ANDed in by the runner.
func Judge(r *perf.Report, thresholds []perf.Threshold) {
	f := DeriveFigures(r)
	r.Figures = &f
	r.Verdicts = Evaluate(thresholds, f.Gates)
	r.Warnings = append(r.Warnings, NotApplied(thresholds, f.Gates)...)
	for i := range r.Verdicts {
		if o, ok := r.OverheadOf(strings.TrimPrefix(r.Verdicts[i].Figure, "overhead.")); ok && strings.HasPrefix(r.Verdicts[i].Figure, "overhead.") {
			r.Verdicts[i].Basis = o.GateBasis()
		}
	}
	r.Pass = r.Validity.Valid && !r.Incomplete && len(r.InfraErrors) == 0
	for _, v := range r.Verdicts {
		if !v.Pass && !v.WarnOnly {
			r.Pass = false
		}
	}
}

// NamedResult is one measured phase, named for the validity reasons ("round 2 main").
type NamedResult struct {
	Name string
	Res  *perf.Result
}

// roundPhases names the baseline and main phase of every round.
func roundPhases(rounds []perf.Round) []NamedResult {
	out := make([]NamedResult, 0, 2*len(rounds))
	for i := range rounds {
		out = append(out, NamedResult{fmt.Sprintf("round %d baseline", i+1), &rounds[i].Baseline},
			NamedResult{fmt.Sprintf("round %d main", i+1), &rounds[i].Main})
	}
	return out
}

// MissedRate says whether a phase fell below MinValidQPSRatio of its rate, judged by
// Result.KeptQPSRatio (against the schedule's plan, the last request's own time allowed for),
// and the reason naming the phase, in QPS and ms.
func MissedRate(name string, res *perf.Result) (string, bool) {
	q := res.KeptQPSRatio()
	if q >= MinValidQPSRatio {
		return "", false
	}
	return fmt.Sprintf("%s: achieved %.1f of %.0f QPS (ratio to the planned %d requests %.4f < %.2f, the last request's %.0f ms allowed for)",
		name, res.ActualQPS, res.RequestedQPS, res.Schedule.Scheduled, q, MinValidQPSRatio, 1e3*res.Latency.MaxSeconds), true
}

// PhaseInvalidReasons says why the measured phase res, called name, is invalid: it missed its
// rate (MissedRate; a closed loop has no target rate) or fell behind its schedule on more than
// MaxValidBehindFraction of its requests. None when it is valid.
func PhaseInvalidReasons(name string, res *perf.Result) []string {
	var out []string
	if r, missed := MissedRate(name, res); missed && !res.ClosedLoop() {
		out = append(out, r)
	}
	if b := res.Schedule.BehindFraction(); b > MaxValidBehindFraction {
		out = append(out, fmt.Sprintf("%s: generator fell behind on %.2f %% of %d scheduled requests (%d skipped, %d late; limit %.0f %%)",
			name, 100*b, res.Schedule.Scheduled, res.Schedule.Skipped, res.Schedule.Late, 100*MaxValidBehindFraction))
	}
	return out
}

// PhaseValidity checks that every measured phase kept its schedule and reached its QPS
// (PhaseInvalidReasons); an invalid run never passes. The hint names the per-connection period
// of the first phase.
func PhaseValidity(phases []NamedResult) perf.Validity {
	v := perf.Validity{Valid: true}
	for _, ph := range phases {
		v.Reasons = append(v.Reasons, PhaseInvalidReasons(ph.Name, ph.Res)...)
	}
	v.Valid = len(v.Reasons) == 0
	if !v.Valid && len(phases) > 0 {
		p := phases[0].Res.Params
		if p.QPS > 0 {
			period := time.Duration(float64(p.Connections) / float64(p.QPS) * float64(time.Second))
			v.Reasons = append(v.Reasons, fmt.Sprintf("hint: each connection sends one request every %v (connections/QPS = %d/%d); "+
				"requests slower than that skip the next slot, so lower DAPR_PERF_QPS or raise DAPR_PERF_CONNECTIONS until the run is valid",
				period, p.Connections, p.QPS))
		}
	}
	return v
}

// warnings flags, per round and phase, coordinated omission and connection churn.
func warnings(rounds []perf.Round) []string {
	var out []string
	check := func(name string, res *perf.Result) {
		if ratio, flagged := res.CoordinatedOmission(); flagged {
			svc, _ := res.Percentile(99)
			resp, _ := res.ResponsePercentile(99)
			out = append(out, fmt.Sprintf("%s: coordinated omission: response-time p99 %.3f ms is %.1fx the service-time p99 %.3f ms (flagged above %gx): requests went out after their slots, so service time understates what a client at this rate sees",
				name, 1e3*resp.Seconds(), ratio, 1e3*svc.Seconds(), perf.CoordinatedOmissionFactor))
		}
		if res.ConnectionChurn() {
			out = append(out, fmt.Sprintf("%s: connection churn: %d TCP connections opened for %d configured", name, res.Sockets, res.Params.Connections))
		}
	}
	for i := range rounds {
		check(fmt.Sprintf("round %d baseline", i+1), &rounds[i].Baseline)
		check(fmt.Sprintf("round %d main", i+1), &rounds[i].Main)
	}
	return out
}

// SummariseResources merges each process's series over all main phases, and classifies the
// growth of its RSS over the last main phase and the idle window.
func SummariseResources(rounds []perf.Round, idle []perf.Series) []perf.ResourceSummary {
	var out []perf.ResourceSummary
	index := map[string]int{}
	cpuSum := map[string]float64{}
	cpuN := map[string]int{}
	for _, rd := range rounds {
		for _, s := range rd.Resources {
			i, ok := index[s.Process]
			if !ok {
				i = len(out)
				index[s.Process] = i
				out = append(out, perf.ResourceSummary{Process: s.Process, Role: s.Role})
			}
			if n := len(s.Points) - 1; n > 0 { // pooled over phases: each phase's mean, weighted
				cpuSum[s.Process] += s.MeanCPU() * float64(n)
				cpuN[s.Process] += n
			}
			out[i].PeakRSSBytes = max(out[i].PeakRSSBytes, s.PeakRSS())
			for _, p := range s.Points {
				if p.RSSBytes > 0 {
					out[i].Readings++
				}
			}
			out[i].RSSSlopeBytesPerSecond, out[i].RSSSlopeR2 = s.Slope() // the last round's
		}
	}
	for i := range out {
		if n := cpuN[out[i].Process]; n > 0 {
			out[i].MeanCPUCores = cpuSum[out[i].Process] / float64(n)
		}
	}
	if len(rounds) > 0 {
		last := rounds[len(rounds)-1]
		for i := range out {
			load, idleRSS := growthPoints(last, idle, out[i].Process)
			if len(load) >= minGrowthSamples {
				out[i].Growth = growth.Classify(load, idleRSS, growth.MinThresholdKiB)
			}
		}
	}
	return out
}

// minGrowthSamples is the fewest main-phase samples the growth check classifies: a shorter
// phase is mostly the ramp from the warmup's load to the main one (Growth stays empty).
const minGrowthSamples = 20

// growthPoints turns a process's main-phase samples into growth points (requests estimated as
// seconds x achieved QPS) and its idle samples into points at the phase's request count.
func growthPoints(rd perf.Round, idle []perf.Series, process string) (load, idleRSS []growth.Point) {
	var start time.Time
	for _, s := range rd.Resources {
		if s.Process != process {
			continue
		}
		for _, p := range s.Points {
			if start.IsZero() {
				start = p.At
			}
			sec := p.At.Sub(start).Seconds()
			load = append(load, growth.Point{Requests: int64(sec * rd.Main.ActualQPS), Seconds: sec, RSSBytes: p.RSSBytes})
		}
	}
	total := rd.Main.Requests
	for _, s := range idle {
		if s.Process != process || start.IsZero() {
			continue
		}
		for _, p := range s.Points {
			idleRSS = append(idleRSS, growth.Point{Requests: total, Seconds: p.At.Sub(start).Seconds(), RSSBytes: p.RSSBytes})
		}
	}
	return load, idleRSS
}

// Evaluate applies each threshold to figures (by Figure name). A missing figure fails its
// verdict, except for an IfMeasured bound, which gets no verdict (NotApplied names it).
func Evaluate(thresholds []perf.Threshold, figures map[string]float64) []perf.Verdict {
	out := make([]perf.Verdict, 0, len(thresholds))
	for _, th := range thresholds {
		v := perf.Verdict{Threshold: th}
		if th.NotApplicable(figures) {
			continue
		}
		v.Got, v.Measured = figures[th.Figure]
		if v.Measured {
			switch th.Op {
			case perf.AtMost:
				v.Pass = v.Got <= th.Limit
			case perf.AtLeast:
				v.Pass = v.Got >= th.Limit
			case perf.Below:
				v.Pass = v.Got < th.Limit
			case perf.Above:
				v.Pass = v.Got > th.Limit
			}
		}
		out = append(out, v)
	}
	return out
}

// NotApplied says, one line each, which IfMeasured bounds Evaluate dropped from figures because
// the plan does not measure their figure: "DAPR_PERF_MIN_QPS_RATIO: this plan measures no
// qps.ratio; its bound (at least 0.9700) does not apply".
func NotApplied(thresholds []perf.Threshold, figures map[string]float64) []string {
	var out []string
	for _, th := range thresholds {
		if th.NotApplicable(figures) {
			out = append(out, fmt.Sprintf("%s: this plan measures no %s; its bound (%s %s) does not apply", th.Source, th.Figure, th.Op, perf.FormatFigure(th.Figure, th.Limit)))
		}
	}
	return out
}
