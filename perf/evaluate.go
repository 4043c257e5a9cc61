package perf

import (
	"fmt"
	"math"
)

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
	r.Resources = summariseResources(r.Rounds)
	r.Verdicts = Evaluate(thresholds, r.figures())
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
	return v
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

// summariseResources merges each process's series over all main phases.
func summariseResources(rounds []Round) []ResourceSummary {
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
	return out
}
