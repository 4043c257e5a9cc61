package report

import (
	"math"
	"slices"

	"github.com/daprperf/daprperf/perf"
)

// DeriveFigures computes r's figures from its rounds (and build B's), its growth loads, its
// exits and, for the cost per request (ProcessCosts), its resource summaries. It is the only
// place the median over rounds is taken for reporting: the runner stores its answer in
// Report.Figures, and ReadReport calls it for files written before that field.
func DeriveFigures(r *perf.Report) perf.Figures {
	f := perf.Figures{Gates: map[string]float64{}}
	restarts := 0
	for _, e := range r.Exits {
		restarts += max(e.Restarts, 1)
	}
	f.Gates["restarts"] = float64(restarts)
	if len(r.Rounds) > 0 {
		f.Phases = append(f.Phases, derivePhaseFigures(perf.PhaseBaseline, r.Rounds, func(rd *perf.Round) *perf.Result { return &rd.Baseline }),
			derivePhaseFigures(perf.PhaseMain, r.Rounds, func(rd *perf.Round) *perf.Result { return &rd.Main }))
		var errs int64
		minRatio := math.Inf(1)
		for _, rd := range r.Rounds {
			errs += rd.Baseline.Errors() + rd.Main.Errors()
			if !rd.Main.ClosedLoop() { // a closed loop has no target rate to reach
				minRatio = min(minRatio, rd.Main.QPSRatio())
			}
		}
		f.Gates["errors"] = float64(errs)
		if !math.IsInf(minRatio, 1) {
			f.Gates["qps.ratio"] = minRatio
		}
		mainGates(f.Gates, r.Rounds)
	}
	actorFigures(f.Gates, r.Actors)
	if r.AB != nil && len(r.AB.Rounds) > 0 {
		f.Phases = append(f.Phases, derivePhaseFigures(perf.PhaseMainB, r.AB.Rounds, func(rd *perf.Round) *perf.Result { return &rd.Main }))
	}
	for _, o := range r.Overhead {
		f.Gates["overhead."+o.Figure] = o.GateSeconds()
	}
	for _, ph := range f.Phases { // absolute means, for bounds such as Dapr's k6 avg<500 ms
		switch ph.Phase {
		case perf.PhaseBaseline, perf.PhaseMain:
			f.Gates[ph.Phase+".mean"] = ph.MeanSeconds
		}
	}
	KindOf(r).Figures(r, &f)
	f.Cost = ProcessCosts(r.Resources, &f)
	return f
}

// derivePhaseFigures takes, for one phase kind picked from each round, the median over rounds of
// each percentile, of the mean and of the achieved QPS, and the totals.
func derivePhaseFigures(name string, rounds []perf.Round, pick func(*perf.Round) *perf.Result) perf.PhaseFigures {
	f := perf.PhaseFigures{Phase: name, Rounds: len(rounds)}
	var means, respMeans, qps []float64
	for i := range rounds {
		res := pick(&rounds[i])
		means = append(means, res.Latency.AvgSeconds)
		if res.ResponseTime != nil {
			respMeans = append(respMeans, res.ResponseTime.AvgSeconds)
		}
		qps = append(qps, res.ActualQPS)
		f.TargetQPS = res.RequestedQPS
		f.Requests += res.Requests
		f.Errors += res.Errors()
		if n := res.Params.Operation.EventsPerRequest(); n > 1 {
			f.EventsPerRequest = n
		}
	}
	f.MeanSeconds, f.QPS, f.LowestQPS = median(means), median(qps), slices.Min(qps)
	if len(respMeans) == len(rounds) {
		f.ResponseMeanSeconds = median(respMeans)
	}
	for _, p := range perf.OverheadPercentiles {
		if s, ok := medianQuantile(rounds, p, func(rd *perf.Round) *perf.Latency { return &pick(rd).Latency }); ok {
			f.ServiceTime = append(f.ServiceTime, perf.QuantileFigure{Percentile: p, Seconds: s})
		}
		if s, ok := medianQuantile(rounds, p, func(rd *perf.Round) *perf.Latency { return pick(rd).ResponseTime }); ok {
			f.ResponseTime = append(f.ResponseTime, perf.QuantileFigure{Percentile: p, Seconds: s})
		}
	}
	return f
}

// medianQuantile is the median over rounds of percentile p of the latency pick gives, seconds;
// false when a round lacks it.
func medianQuantile(rounds []perf.Round, p float64, pick func(*perf.Round) *perf.Latency) (float64, bool) {
	vals := make([]float64, 0, len(rounds))
	for i := range rounds {
		l := pick(&rounds[i])
		if l == nil {
			return 0, false
		}
		d, err := l.Percentile(p)
		if err != nil {
			return 0, false
		}
		vals = append(vals, d.Seconds())
	}
	return median(vals), len(vals) > 0
}

// mainGates adds the main phases' own figures to gates, as k6's thresholds see a run
// (http_req_duration p(95), avg; iterations; dropped_iterations):
//   - "latency.p<N>" for each of GatePercentiles and "latency.mean": the median over rounds
//     of each main phase's service time at that percentile, or of its mean, in seconds (a
//     closed loop's service time is its response time: it has no schedule);
//   - "requests": the main phases' requests in all, a count;
//   - "qps": the lowest main phase's achieved rate, requests/s;
//   - "dropped": the main phases' dropped iterations in all (Result.Executor.Dropped), or for
//     fortio's load its scheduled requests never sent (Schedule.Skipped), a count.
func mainGates(gates map[string]float64, rounds []perf.Round) {
	var requests, dropped int64
	lowest := math.Inf(1)
	means := make([]float64, 0, len(rounds))
	for i := range rounds {
		m := &rounds[i].Main
		requests += m.Requests
		dropped += m.Schedule.Skipped
		if m.Executor != nil {
			dropped += m.Executor.Dropped - m.Schedule.Skipped // the same count when both are set
		}
		lowest = min(lowest, m.ActualQPS)
		means = append(means, m.Latency.AvgSeconds)
	}
	gates["requests"] = float64(requests)
	gates["dropped"] = float64(dropped)
	gates["qps"] = lowest
	gates["latency.mean"] = median(means)
	for _, p := range perf.GatePercentiles {
		if s, ok := medianQuantile(rounds, p, func(rd *perf.Round) *perf.Latency { return &rd.Main.Latency }); ok {
			gates["latency."+perf.PercentileName(p)] = s
		}
	}
}
