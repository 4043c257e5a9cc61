package perf

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// errNoRounds is the overhead error of a run that completed no round.
var errNoRounds = errors.New("no complete round")

// Validity bounds: a measured phase is invalid when it achieved less than 99 % of its target
// QPS, or when more than 1 % of its schedule was skipped or late (the generator fell behind,
// so its latencies understate queueing: coordinated omission).
const (
	minValidQPSRatio       = 0.99
	maxValidBehindFraction = 0.01
)

// finish derives everything from the rounds and exits: overhead, resource summaries,
// validity, figures, verdicts and the overall pass.
func (r *Report) finish(sc Scenario, thresholds []Threshold) {
	var err error
	if len(r.Rounds) == 0 {
		err = errNoRounds
	} else {
		r.Overhead, err = ComputeOverheads(r.Rounds)
	}
	r.Validity = validity(r.Rounds)
	if err != nil {
		r.Validity.Valid = false
		r.Validity.Reasons = append(r.Validity.Reasons, "overhead: "+err.Error())
	}
	if len(r.Rounds) > 0 {
		r.ResponseOverhead, _ = ComputeResponseOverheads(r.Rounds) // nil when a phase has none
	}
	r.Warnings = warnings(r.Rounds)
	r.Resources = summariseResources(r.Rounds, r.Idle)
	r.Verdicts = Evaluate(thresholds, r.figures())
	for i := range r.Verdicts {
		if o, ok := r.OverheadOf(strings.TrimPrefix(r.Verdicts[i].Figure, "overhead.")); ok && strings.HasPrefix(r.Verdicts[i].Figure, "overhead.") {
			r.Verdicts[i].Basis = o.GateBasis()
		}
	}
	r.Pass = r.Validity.Valid
	for _, v := range r.Verdicts {
		if !v.Pass && !v.WarnOnly {
			r.Pass = false
		}
	}
}

func validity(rounds []Round) Validity {
	v := Validity{Valid: true}
	check := func(name string, res Result) {
		if q := res.QPSRatio(); q < minValidQPSRatio {
			v.Reasons = append(v.Reasons, fmt.Sprintf("%s: achieved %.1f of %.0f QPS (ratio %.4f < %.2f)", name, res.ActualQPS, res.RequestedQPS, q, minValidQPSRatio))
		}
		if b := res.Schedule.BehindFraction(); b > maxValidBehindFraction {
			v.Reasons = append(v.Reasons, fmt.Sprintf("%s: generator fell behind on %.2f %% of %d scheduled requests (%d skipped, %d late; limit %.0f %%)",
				name, 100*b, res.Schedule.Scheduled, res.Schedule.Skipped, res.Schedule.Late, 100*maxValidBehindFraction))
		}
	}
	for i, rd := range rounds {
		check(fmt.Sprintf("round %d baseline", i+1), rd.Baseline)
		check(fmt.Sprintf("round %d main", i+1), rd.Main)
	}
	v.Valid = len(v.Reasons) == 0
	if !v.Valid && len(rounds) > 0 {
		p := rounds[0].Main.Params
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
func warnings(rounds []Round) []string {
	var out []string
	check := func(name string, res *Result) {
		if ratio, flagged := res.CoordinatedOmission(); flagged {
			svc, _ := res.Percentile(99)
			resp, _ := res.ResponsePercentile(99)
			out = append(out, fmt.Sprintf("%s: coordinated omission: response-time p99 %.3f ms is %.1fx the service-time p99 %.3f ms (flagged above %gx): requests went out after their slots, so service time understates what a client at this rate sees",
				name, 1e3*resp.Seconds(), ratio, 1e3*svc.Seconds(), CoordinatedOmissionFactor))
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

// figures are the values thresholds are compared with; see Threshold.Figure.
func (r *Report) figures() map[string]float64 {
	f := map[string]float64{}
	restarts := 0
	for _, e := range r.Exits {
		restarts += max(e.Restarts, 1)
	}
	f["restarts"] = float64(restarts)
	if len(r.Rounds) == 0 {
		return f
	}
	var errs int64
	minRatio := math.Inf(1)
	for _, rd := range r.Rounds {
		errs += rd.Baseline.Errors() + rd.Main.Errors()
		minRatio = min(minRatio, rd.Main.QPSRatio())
	}
	f["errors"] = float64(errs)
	f["qps.ratio"] = minRatio
	for _, o := range r.Overhead {
		f["overhead."+o.Figure] = o.GateSeconds()
	}
	return f
}

// summariseResources merges each process's series over all main phases, and classifies the
// growth of its RSS over the last main phase and the idle window.
func summariseResources(rounds []Round, idle []Series) []ResourceSummary {
	var out []ResourceSummary
	index := map[string]int{}
	cpuSum := map[string]float64{}
	cpuN := map[string]int{}
	for _, rd := range rounds {
		for _, s := range rd.Resources {
			i, ok := index[s.Process]
			if !ok {
				i = len(out)
				index[s.Process] = i
				out = append(out, ResourceSummary{Process: s.Process, Role: s.Role})
			}
			for _, p := range s.Points[min(1, len(s.Points)):] {
				cpuSum[s.Process] += p.CPUCores
				cpuN[s.Process]++
			}
			out[i].PeakRSSMiB = math.Max(out[i].PeakRSSMiB, float64(s.PeakRSS())/(1<<20))
			out[i].RSSSlopeBytesPerSecond, out[i].RSSSlopeR2 = s.Slope() // the last round's
		}
	}
	for i := range out {
		if n := cpuN[out[i].Process]; n > 0 {
			out[i].MeanCPUMillicores = 1000 * cpuSum[out[i].Process] / float64(n)
		}
	}
	if len(rounds) > 0 {
		last := rounds[len(rounds)-1]
		for i := range out {
			load, idleRSS := growthPoints(last, idle, out[i].Process)
			if len(load) >= minGrowthSamples {
				out[i].Growth = ClassifyGrowth(load, idleRSS, MinGrowthThresholdKiB)
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
func growthPoints(rd Round, idle []Series, process string) (load, idleRSS []GrowthPoint) {
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
			load = append(load, GrowthPoint{Requests: int64(sec * rd.Main.ActualQPS), Seconds: sec, RSSBytes: p.RSSBytes})
		}
	}
	total := rd.Main.Requests
	for _, s := range idle {
		if s.Process != process || start.IsZero() {
			continue
		}
		for _, p := range s.Points {
			idleRSS = append(idleRSS, GrowthPoint{Requests: total, Seconds: p.At.Sub(start).Seconds(), RSSBytes: p.RSSBytes})
		}
	}
	return load, idleRSS
}
