package perf

import (
	"math"
	"slices"
)

// Figures are a run's derived figures, computed once from its measurements (DeriveFigures)
// and stored in the result file: the summary, the push and the charts render them and derive
// nothing of their own. Base units only: seconds, bytes, cores, requests per second. The
// per-process figures (mean CPU cores, peak RSS bytes, RSS slope) are Report.Resources; the
// overhead per percentile with its interval is Report.Overhead.
type Figures struct {
	// Phases has one entry per measured phase kind of the rounds: "baseline", "main" and, in an
	// A/B run, "main (build B)"; empty when the plan has no rounds.
	Phases []PhaseFigures `json:"phases,omitempty"`
	// NoOverhead says why the run has no sidecar overhead, when its plan defines none (the
	// growth plan has no baseline phase); empty otherwise.
	NoOverhead string `json:"noOverhead,omitempty"`
	// Gates are the figures thresholds are compared with, by Threshold.Figure: "errors" (a
	// count over every measured phase), "restarts" (a count), "qps.ratio" (the lowest
	// achieved/target of the main phases, or of every load of a plan without them),
	// "overhead.p90" (seconds, Overhead.GateSeconds) and the other overhead figures; and the
	// main phases' own figures, k6's kind of gate (mainGates): "latency.p95" and the other
	// GatePercentiles, "latency.mean" (seconds), "requests", "dropped" (counts) and "qps".
	Gates map[string]float64 `json:"gates"`
}

// PhaseFigures is one phase kind over the rounds.
type PhaseFigures struct {
	Phase string `json:"phase"`
	// Rounds is how many rounds contributed.
	Rounds int `json:"rounds"`
	// ServiceTime and ResponseTime: per percentile (OverheadPercentiles), the median over
	// rounds of each round's percentile, seconds; ResponseTime is empty when a round has none.
	ServiceTime  []QuantileFigure `json:"serviceTime"`
	ResponseTime []QuantileFigure `json:"responseTime,omitempty"`
	// MeanSeconds is the median over rounds of each round's mean service time;
	// ResponseMeanSeconds the same of the response time (0 when a round has none).
	MeanSeconds         float64 `json:"meanSeconds"`
	ResponseMeanSeconds float64 `json:"responseMeanSeconds,omitempty"`
	// QPS is the median over rounds of the achieved rate, LowestQPS the lowest round's (the
	// one qps.ratio gates on); TargetQPS the requested one.
	QPS       float64 `json:"qps"`
	LowestQPS float64 `json:"lowestQPS"`
	TargetQPS float64 `json:"targetQPS"`
	// Requests and Errors are totals over the rounds.
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
	// EventsPerRequest is how many events each request published when more than one (a bulk
	// publish, or single publishes in turn: Operation.EventsPerRequest); 0 otherwise. A
	// latency divided by it is the latency per event.
	EventsPerRequest int `json:"eventsPerRequest,omitempty"`
}

// QuantileFigure is one percentile (0..100) in seconds.
type QuantileFigure struct {
	Percentile float64 `json:"p"`
	Seconds    float64 `json:"seconds"`
}

// Quantile returns the figure at percentile p; false when it is not there.
func (f PhaseFigures) Quantile(p float64, response bool) (float64, bool) {
	qs := f.ServiceTime
	if response {
		qs = f.ResponseTime
	}
	for _, q := range qs {
		if q.Percentile == p {
			return q.Seconds, true
		}
	}
	return 0, false
}

// Phase returns the figures of phase kind name ("baseline", "main"); nil when absent.
func (f *Figures) Phase(name string) *PhaseFigures {
	if f == nil {
		return nil
	}
	for i := range f.Phases {
		if f.Phases[i].Phase == name {
			return &f.Phases[i]
		}
	}
	return nil
}

// The phase kinds of Figures.Phases.
const (
	PhaseBaseline = "baseline"
	PhaseMain     = "main"
	PhaseMainB    = "main (build B)"
)

// DeriveFigures computes r's figures from its rounds (and build B's), its growth loads and its
// exits. It is the only place the median over rounds is taken for reporting: the runner stores
// its answer in Report.Figures, and ReadReport calls it for files written before that field.
func DeriveFigures(r *Report) Figures {
	f := Figures{Gates: map[string]float64{}}
	restarts := 0
	for _, e := range r.Exits {
		restarts += max(e.Restarts, 1)
	}
	f.Gates["restarts"] = float64(restarts)
	if len(r.Rounds) > 0 {
		f.Phases = append(f.Phases, phaseFigures(PhaseBaseline, r.Rounds, func(rd *Round) *Result { return &rd.Baseline }),
			phaseFigures(PhaseMain, r.Rounds, func(rd *Round) *Result { return &rd.Main }))
		var errs int64
		minRatio := math.Inf(1)
		for _, rd := range r.Rounds {
			errs += rd.Baseline.Errors() + rd.Main.Errors()
			if !rd.Main.closedLoop() { // a closed loop has no target rate to reach
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
		f.Phases = append(f.Phases, phaseFigures(PhaseMainB, r.AB.Rounds, func(rd *Round) *Result { return &rd.Main }))
	}
	for _, o := range r.Overhead {
		f.Gates["overhead."+o.Figure] = o.GateSeconds()
	}
	for _, ph := range f.Phases { // absolute means, for bounds such as Dapr's k6 avg<500 ms
		switch ph.Phase {
		case PhaseBaseline, PhaseMain:
			f.Gates[ph.Phase+".mean"] = ph.MeanSeconds
		}
	}
	KindOf(r).Figures(r, &f)
	return f
}

// phaseFigures takes, for one phase kind picked from each round, the median over rounds of
// each percentile, of the mean and of the achieved QPS, and the totals.
func phaseFigures(name string, rounds []Round, pick func(*Round) *Result) PhaseFigures {
	f := PhaseFigures{Phase: name, Rounds: len(rounds)}
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
	for _, p := range OverheadPercentiles {
		if s, ok := medianQuantile(rounds, p, func(rd *Round) *Latency { return &pick(rd).Latency }); ok {
			f.ServiceTime = append(f.ServiceTime, QuantileFigure{p, s})
		}
		if s, ok := medianQuantile(rounds, p, func(rd *Round) *Latency { return pick(rd).ResponseTime }); ok {
			f.ResponseTime = append(f.ResponseTime, QuantileFigure{p, s})
		}
	}
	return f
}

// medianQuantile is the median over rounds of percentile p of the latency pick gives, seconds;
// false when a round lacks it.
func medianQuantile(rounds []Round, p float64, pick func(*Round) *Latency) (float64, bool) {
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

// GatePercentiles are the percentiles of the main phases' service time that DeriveFigures
// offers as gates ("latency.p95"): OverheadPercentiles plus p95, the one k6's thresholds and
// Dapr's k6 tests use (actor_type_scale p95 < 95 ms).
var GatePercentiles = []float64{50, 75, 90, 95, 99, 99.9}

// mainGates adds the main phases' own figures to gates, as k6's thresholds see a run
// (http_req_duration p(95), avg; iterations; dropped_iterations):
//   - "latency.p<N>" for each of GatePercentiles and "latency.mean": the median over rounds
//     of each main phase's service time at that percentile, or of its mean, in seconds (a
//     closed loop's service time is its response time: it has no schedule);
//   - "requests": the main phases' requests in all, a count;
//   - "qps": the lowest main phase's achieved rate, requests/s;
//   - "dropped": the main phases' dropped iterations in all (Result.Executor.Dropped), or for
//     fortio's load its scheduled requests never sent (Schedule.Skipped), a count.
func mainGates(gates map[string]float64, rounds []Round) {
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
	for _, p := range GatePercentiles {
		if s, ok := medianQuantile(rounds, p, func(rd *Round) *Latency { return &rd.Main.Latency }); ok {
			gates["latency."+PercentileName(p)] = s
		}
	}
}

// closedLoop reports whether r's load was a closed loop of the driver (no target rate).
func (r *Result) closedLoop() bool { return r.Params.Executor.ClosedLoop() }
