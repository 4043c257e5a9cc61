package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/testers"
)

// CurvePlan is the sidecar's cost curve: the scenario's Main route (tester -> its daprd -> the
// app's daprd -> app) loaded at each of Rates, rising, Rounds fixed-rate loads of Duration at
// each, every load recorded whole (Report.Loads) with each process's mean CPU, until a rate is
// missed in every round (past the knee: the rest are not offered); then Searches repeats of a
// search for the highest rate that keeps the bound (report.CurveKeeps: response-time p99 at
// most P99, no error, the rate kept): from SearchStart, the rate doubles while it passes, then
// the bracket between the highest rate that passed and the lowest that failed is halved until
// it is narrower than Resolution of its lower end, each rate judged by the majority of up to
// three loads, and both ends of the last bracket judged a second time (an end that does not
// hold is moved, and the halving goes on: rateSearch); the answer is its lower end. The
// searches take turns, one load each, so that a machine whose speed drifts over the run moves
// all of them alike (interleavedSearches). One warmup comes first, its result discarded. There
// is no baseline: the figures are the latency through both sidecars and each sidecar's CPU per
// request, against the rate (report.CurvePoints); the overhead plan measures the added latency.
//
// Env overrides: DAPR_TEST_DURATION sets every load's length; DAPR_PERF_REPEATS the rounds at
// each rate; DAPR_PERF_CURVE_P99 the bound's p99; DAPR_PERF_CONNECTIONS the connections (Scenario.MainOptions otherwise);
// DAPR_PERF_QPS caps the rates, as the stage plan's: the rates above it are not offered, the
// cap itself is, and no search goes above it.
type CurvePlan struct {
	// Rates are the curve's offered rates, requests/s, rising, each from 1 to perf.MaxQPS.
	Rates []int
	// Rounds is the loads at each rate (at least 1), for the interval of each figure.
	Rounds int
	// Duration is each load's length, at least perf.MinDuration.
	Duration time.Duration
	// P99 is the bound on each load's response-time p99; KeptRatio the least
	// Result.KeptQPSRatio it must reach (0.99 when 0); BoundSource where they come from.
	P99         time.Duration
	KeptRatio   float64
	BoundSource string
	// Searches is how many times the highest rate is searched for (0 for none); SearchStart
	// the rate each starts at; Resolution the bracket's width at which it stops, a fraction of
	// its lower end, in (0, 1).
	Searches    int
	SearchStart int
	Resolution  float64
}

// curveRun is one run of a CurvePlan: its loads after the overrides, and the curve as it grows.
type curveRun struct {
	CurvePlan
	load   perf.Params // every load's connections, payload and length; QPS set per load
	maxQPS int         // the highest rate a search offers: perf.MaxQPS, or DAPR_PERF_QPS
	curve  *perf.CurveReport
	namedLoads
}

// Kind is KindCurve.
func (*CurvePlan) Kind() string { return perf.KindCurve }

func (cp *CurvePlan) Configure(sc perf.Scenario, cfg *perf.RunConfig) (perf.PlanRun, error) {
	r := &curveRun{CurvePlan: *cp, maxQPS: perf.MaxQPS}
	var errs problems
	add := errs.add
	loadParams(sc, cfg, add)
	if sc.Tester == "" || sc.Main.To == "" {
		add(fmt.Errorf("curve plan: Tester and Main.To must name apps (got %q, %q)", sc.Tester, sc.Main.To))
	}
	if len(cp.Rates) == 0 {
		add(errors.New("curve plan: Rates is empty: list at least one rate"))
	}
	for i, q := range cp.Rates {
		if q < 1 || q > perf.MaxQPS || (i > 0 && q <= cp.Rates[i-1]) {
			add(fmt.Errorf("curve plan: Rates[%d] = %d: must be from 1 to %d requests/s and above the rate before it", i, q, perf.MaxQPS))
		}
	}
	if cp.Rounds < 1 {
		add(fmt.Errorf("curve plan: Rounds = %d: must be at least 1", cp.Rounds))
	}
	if cp.P99 <= 0 || cp.BoundSource == "" {
		add(fmt.Errorf("curve plan: P99 = %v, BoundSource = %q: the bound must be above 0 and say where it comes from", cp.P99, cp.BoundSource))
	}
	if cp.KeptRatio < 0 || cp.KeptRatio > 1 {
		add(fmt.Errorf("curve plan: KeptRatio = %g: must be in [0, 1] (0 for 0.99)", cp.KeptRatio))
	}
	if cp.Searches < 0 || (cp.Searches > 0 && (cp.SearchStart < 1 || cp.SearchStart > perf.MaxQPS || !(cp.Resolution > 0 && cp.Resolution < 1))) {
		add(fmt.Errorf("curve plan: Searches = %d, SearchStart = %d, Resolution = %g: searches need a start from 1 to %d requests/s and a resolution in (0, 1)", cp.Searches, cp.SearchStart, cp.Resolution, perf.MaxQPS))
	}
	if cfg.Env.Repeats != nil {
		r.Rounds = *cfg.Env.Repeats
	}
	if cfg.Env.CurveP99 != nil {
		r.P99, r.BoundSource = *cfg.Env.CurveP99, perf.EnvCurveP99
	}
	r.load = cfg.Main
	r.load.Duration = cp.Duration
	if cfg.Env.Duration != nil {
		r.load.Duration = *cfg.Env.Duration
	}
	if r.load.Duration < perf.MinDuration {
		add(fmt.Errorf("curve plan: Duration = %v: must be at least %v", r.load.Duration, perf.MinDuration))
	}
	if r.KeptRatio == 0 {
		r.KeptRatio = 0.99
	}
	if q := cfg.Env.QPS; q != nil { // a cap, as the stage plan's: no rate above it
		r.Rates = slices.DeleteFunc(slices.Clone(r.Rates), func(x int) bool { return x > *q })
		if len(r.Rates) == 0 || r.Rates[len(r.Rates)-1] < *q {
			r.Rates = append(r.Rates, *q)
		}
		r.SearchStart, r.maxQPS = min(r.SearchStart, *q), *q
	}
	// The run's main load, as the result records it: every load's length and connections, at
	// the curve's highest rate.
	cfg.Main = r.load
	if len(r.Rates) > 0 {
		cfg.Main.QPS = r.Rates[len(r.Rates)-1]
	}
	return r, errors.Join(errs...)
}

// bound is the run's pass condition.
func (r *curveRun) bound() perf.CurveBound {
	return perf.CurveBound{P99Seconds: r.P99.Seconds(), KeptRatio: r.KeptRatio, Source: r.BoundSource}
}

// searchWords states the search's steps.
func (r *curveRun) searchWords() string {
	if r.Searches == 0 {
		return ""
	}
	return fmt.Sprintf("from %d requests/s, doubling while a rate passes (up to %d), then halving the bracket between the highest rate that passed and the lowest that failed until it is narrower than %.0f %% of its lower end (at most %d loads of %v each); each rate judged by the majority of up to %d loads (two alike settle it); both ends of the last bracket judged again, a rate judged twice taking the majority of all its loads, and an end that does not hold moved; the answer is the highest rate that passed; the %d searches take turns, one load each",
		r.SearchStart, r.maxQPS, 100*r.Resolution, maxSearchSteps, r.load.Duration, searchVotes, r.Searches)
}

// Steps are the warmup, the curve's loads and the searches (their loads not known ahead: about
// 2 log2 of the highest rate over the start, each).
func (r *curveRun) Steps(_ perf.Scenario, cfg perf.RunConfig) []perf.Step {
	out := []perf.Step{{Name: fmt.Sprintf("warmup, %d QPS x %v", cfg.Warmup.QPS, cfg.Warmup.Duration), Duration: cfg.Warmup.Duration}}
	for _, q := range r.Rates {
		out = append(out, perf.Step{Name: fmt.Sprintf("curve at %d QPS: %d round(s) of %v, %d connections", q, r.Rounds, r.load.Duration, r.load.Connections), Duration: time.Duration(r.Rounds) * r.load.Duration})
	}
	if r.Searches > 0 {
		out = append(out, perf.Step{Name: fmt.Sprintf("%d searches for the highest rate within the bound, taking turns: about %d loads of %v", r.Searches, 30*r.Searches, r.load.Duration), Duration: time.Duration(30*r.Searches) * r.load.Duration})
	}
	return out
}

func (r *curveRun) Run(s perf.Session) error {
	top := r.load // the fastest load the run may offer, which caps the testers
	top.QPS = r.Rates[len(r.Rates)-1]
	if r.Searches > 0 {
		top.QPS = max(top.QPS, r.maxQPS)
	}
	dep, tester, err := deployAndWarm(s, top)
	if err != nil {
		return err
	}
	r.namedLoads = namedLoads{prefix: ""}
	r.curve = &perf.CurveReport{Bound: r.bound(), Search: r.searchWords()}
	s.Report().Curve = r.curve
	probe := func(name string, qps int) (perf.CurveProbe, error) {
		return r.probe(s, dep, tester, name, qps)
	}
	for i, q := range r.Rates {
		pt := perf.CurvePoint{OfferedQPS: q}
		missed := 0
		for k := range r.Rounds {
			pr, err := probe(fmt.Sprintf("curve-%dqps-r%d", q, k+1), q)
			if err != nil {
				r.curve.Points = append(r.curve.Points, pt)
				return err
			}
			pt.Rounds = append(pt.Rounds, pr)
			if pr.KeptRatio < r.KeptRatio {
				missed++
			}
		}
		r.curve.Points = append(r.curve.Points, pt)
		if missed == r.Rounds && i < len(r.Rates)-1 {
			r.curve.Stopped = fmt.Sprintf("%d requests/s was not kept in any of its %d rounds: past the knee, so %v requests/s were not offered", q, r.Rounds, r.Rates[i+1:])
			break
		}
	}
	if r.Searches > 0 {
		searches, err := interleavedSearches(r.Searches, r.SearchStart, r.maxQPS, r.Resolution, func(search, step, qps int) (perf.CurveProbe, error) {
			return probe(fmt.Sprintf("search%d-step%d-%dqps", search, step, qps), qps)
		})
		r.curve.Searches = searches
		if err != nil {
			return err
		}
	}
	return nil
}

// probe runs one load of qps through the main route, records it as the load name, and returns
// its figures, the processes' CPU and whether it kept the bound.
func (r *curveRun) probe(s perf.Session, dep perf.Deployment, tester testers.Client, name string, qps int) (perf.CurveProbe, error) {
	sc := s.Scenario()
	p := r.load
	p.QPS = qps
	p.Connections = min(r.load.Connections, qps)
	lp, err := routed(dep, sc, sc.Main, p)
	if err != nil {
		return perf.CurveProbe{}, fmt.Errorf("%s: %w", name, err)
	}
	phase := perf.Step{Name: fmt.Sprintf("%s: %d QPS x %v to %s", name, qps, lp.Duration, lp.Target), Duration: lp.Duration}
	res, err := r.measureLoad(s, dep, tester, name, phase, lp, sc.Roles())
	if err != nil {
		return perf.CurveProbe{}, err
	}
	pr := report.CurveProbeOf(name, qps, &res, r.bound())
	for _, se := range r.series[len(r.series)-1] {
		// A series of fewer than two readings has no interval to take a mean CPU over (the
		// metrics API's windows on Kubernetes can be longer than a load): no figure, not 0.
		if len(se.Points) >= 2 && (se.Role == perf.RoleApp || strings.HasSuffix(se.Role, "sidecar")) {
			pr.CPU = append(pr.CPU, perf.ProcessUse{Process: se.Process, Role: se.Role, Cores: se.MeanCPU(), PeakRSSBytes: se.PeakRSS()})
		}
	}
	return pr, nil
}

// Finish takes the validity of the loads as warnings (a load past the knee falls behind by
// design: that is what the curve shows), and makes the run invalid only when no rate of the
// curve kept the bound, or no search found a rate; then the resources over all loads and how
// complete the run is.
func (r *curveRun) Finish(s perf.Session, runErr error) {
	want := len(r.Rates) * r.Rounds
	if r.curve != nil && r.curve.Stopped != "" {
		want = 0
		for _, pt := range r.curve.Points {
			want += len(pt.Rounds)
		}
	}
	r.finish(s, want, "load", "memory growth is not classified by the curve plan: its loads run at different rates", runErr)
	rep := s.Report()
	if n := len(rep.Validity.Reasons); n > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("curve: %d finding(s) of a load behind its schedule or short of its rate over the %d loads, as loads past the knee give (they fail the bound, and the curve shows them); the first: %s",
			n, len(rep.Loads), rep.Validity.Reasons[0]))
	}
	rep.Validity = perf.Validity{Valid: true}
	if reasons := report.CurveInvalid(rep.Curve, r.Searches); len(reasons) > 0 {
		rep.Validity = perf.Validity{Reasons: reasons}
	}
}
