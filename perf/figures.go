package perf

// Figures are a run's derived figures, computed once from its measurements (report.DeriveFigures)
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
	// main phases' own figures, k6's kind of gate (report.mainGates): "latency.p95" and the other
	// GatePercentiles, "latency.mean" (seconds), "requests", "dropped" (counts) and "qps".
	Gates map[string]float64 `json:"gates"`
	// Cost is what each sidecar and the app spend per request of the main phases, one entry
	// per process with readings (report.ProcessCosts); empty when the run has no main-phase
	// rate (no rounds, or a rate of 0) or no resources. A process without readings has no entry.
	Cost []ProcessCost `json:"cost,omitempty"`
}

// ProcessCost is one process's CPU and memory per request of the main phases. It is our own
// derivation from the measured means (report.ProcessCosts), not a figure Dapr publishes:
//
//	CPUSecondsPerRequest = MeanCPUCores / RequestsPerSecond   (core-seconds per request)
//	CPU µs per request   = 1e6 × CPUSecondsPerRequest
//	mCPU per 1,000 req/s = 1000 × MeanCPUCores / (RequestsPerSecond / 1000)
//
// The last two are the same number: 1 µs of CPU per request at 1,000 requests/s is 1 ms of CPU
// per second, 1 mCPU. MeanCPUCores is ResourceSummary.MeanCPUCores (the mean over the main
// phases' samples); RequestsPerSecond the main phases' achieved rate (PhaseFigures.QPS of
// PhaseMain, the median over rounds). It assumes CPU grows linearly with the rate: idle CPU is
// counted as part of each request's cost.
type ProcessCost struct {
	Process string `json:"process"`
	Role    string `json:"role"`
	// RequestsPerSecond is the rate the CPU was divided by, requests/s.
	RequestsPerSecond float64 `json:"requestsPerSecond"`
	// CPUSecondsPerRequest is core-seconds of CPU per request.
	CPUSecondsPerRequest float64 `json:"cpuSecondsPerRequest"`
	// PeakRSSBytes is ResourceSummary.PeakRSSBytes, bytes.
	PeakRSSBytes uint64 `json:"peakRSSBytes"`
	// CPURatioToApp and RSSRatioToApp are this process's CPU per request and peak RSS divided
	// by the app's (RoleApp): 3 means three times the app's. Absent for the app itself, and
	// when the report has no single app with readings or the app's figure is 0.
	CPURatioToApp *float64 `json:"cpuRatioToApp,omitempty"`
	RSSRatioToApp *float64 `json:"rssRatioToApp,omitempty"`
}

// CPUMicrosPerRequest is CPU microseconds (of one core) per request.
func (c ProcessCost) CPUMicrosPerRequest() float64 { return 1e6 * c.CPUSecondsPerRequest }

// MilliCPUPer1000RPS is the mCPU the process needs per 1,000 requests/s,
// 1000 × cores / (requests/s / 1000) = 1e6 × CPUSecondsPerRequest: the same number as
// CPUMicrosPerRequest (see ProcessCost).
func (c ProcessCost) MilliCPUPer1000RPS() float64 { return 1e6 * c.CPUSecondsPerRequest }

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

// GatePercentiles are the percentiles of the main phases' service time that report.DeriveFigures
// offers as gates ("latency.p95"): OverheadPercentiles plus p95, the one k6's thresholds and
// Dapr's k6 tests use (actor_type_scale p95 < 95 ms).
var GatePercentiles = []float64{50, 75, 90, 95, 99, 99.9}

// ClosedLoop reports whether r's load was a closed loop of the driver (no target rate).
func (r *Result) ClosedLoop() bool { return r.Params.Executor.ClosedLoop() }
