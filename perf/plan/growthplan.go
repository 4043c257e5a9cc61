package plan

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/google/pprof/profile"

	"github.com/daprperf/daprperf/perf"
	pprof "github.com/daprperf/daprperf/perf/profile"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/testers"

	"github.com/daprperf/daprperf/perf/growth"
)

// GrowthPlan measures sidecar memory across rounds of load and an idle window, for several
// variants of one deployment (method names, daprd flags, Configuration). For each variant, in
// a subtest with its own deployment: a short warmup with a fixed method (so start-up
// allocation is not read as growth), a reading, K rounds of exactly M requests through the
// tester's sidecar each followed by a reading, and an idle window with RSS readings and a
// last full reading. A reading takes, for the tester's and the callee's sidecars, RSS first,
// then Go heap in use (pprof, when profiling is on) and the series of each metric family on
// /metrics (when the endpoint is on).
//
// Each variant is a subtest, so `-run 'TestX/a-fixed'` runs one: only the variants that ran
// are classified, checked and compared. Each sidecar is classified (growth.Classify) against
// GrowthThreshold, derived from the control variant when it ran and the floor when it did not
// (the report says which). Then the detector checks itself (growth.RunChecks) and the verdicts are
// compared with the expected-verdicts table (growth.Compare): a changed verdict is reported,
// not failed; a failed check fails the run. The rounds' loads are kept (Report.Loads)
// and give the run its validity (schedule kept, QPS reached) and its error count. The plan
// has no baseline, so no overhead (Figures.NoOverhead). The expected-verdicts table is read
// before any process starts: a bad one fails the configuration.
type GrowthPlan struct {
	Variants []perf.GrowthVariant
	// Rounds (K), RequestsPerRound (M) and Idle: defaults 3, 3,000 and 30 s; env
	// DAPR_PERF_GROWTH_ROUNDS, DAPR_PERF_GROWTH_REQUESTS, DAPR_PERF_GROWTH_IDLE override them.
	Rounds           int
	RequestsPerRound int
	Idle             time.Duration
	// QPS and Connections of each round's load (requests/s; M must be a multiple of
	// Connections so that each round sends exactly M requests).
	QPS, Connections int
	// ExpectedVerdicts is the path of the expected-verdicts table (growth.ReadExpectations),
	// relative to the repo root unless absolute; "" compares with nothing.
	ExpectedVerdicts string
}

// Kind is KindGrowth.
func (*GrowthPlan) Kind() string { return perf.KindGrowth }

// SingleBuild implements perf.SingleBuild: growth rounds are not interleaved between builds.
func (*GrowthPlan) SingleBuild() bool { return true }

// growthConfig is one run of a GrowthPlan: the plan with its defaults and env overrides
// applied, and its expected-verdicts table read.
type growthConfig struct {
	GrowthPlan
	table []growth.Expectation
	env   perf.Env // the run's, for the threshold's override (DAPR_PERF_GROWTH_THRESHOLD_KIB)
}

// Configure applies the defaults and cfg.Env's overrides, reads the expected verdicts and
// returns the run.
func (g *GrowthPlan) Configure(sc perf.Scenario, cfg *perf.RunConfig) (perf.PlanRun, error) {
	c, err := g.withEnv(cfg.Env, sc.Test)
	if err != nil {
		return nil, err
	}
	gc := &growthConfig{GrowthPlan: c, env: cfg.Env}
	if path := c.ExpectedVerdicts; path != "" {
		if !filepath.IsAbs(path) {
			root, err := perf.RepoRoot()
			if err != nil {
				return nil, err
			}
			path = filepath.Join(root, path)
		}
		if gc.table, err = growth.ReadExpectations(path); err != nil {
			return nil, err
		}
	}
	if _, err := growthThreshold(cfg.Env, "", nil); err != nil { // the env override; derived again after the rounds
		return nil, err
	}
	if sc.Transport != perf.HTTP {
		return nil, fmt.Errorf("growth plan: Transport %q: only %q (the load goes through daprd's HTTP invoke API)", sc.Transport, perf.HTTP)
	}
	cfg.Main = gc.roundParams()
	return gc, nil
}

// Steps are, per variant, the warmup round, K rounds and the idle window.
func (c *growthConfig) Steps(perf.Scenario, perf.RunConfig) []perf.Step {
	round := c.roundParams().Duration
	var out []perf.Step
	for _, v := range c.Variants {
		out = append(out, perf.Step{Name: fmt.Sprintf("%s: start, warmup and %d rounds of %d requests at %d QPS, idle %v", v.Name, c.Rounds, c.RequestsPerRound, c.QPS, c.Idle),
			Duration: time.Duration(c.Rounds+1)*round + c.Idle + growthStartCost})
	}
	return out
}

// idleReadings is how many RSS readings the idle window takes, evenly spaced.
const idleReadings = 6

// growthStartCost is what a variant costs beyond its load and idle window: the deployment's
// start and the scrapes (measured on the local platform at about 4 s). The plan's expected
// time counts it; a variant's phase starts once its deployment is up.
const growthStartCost = 4 * time.Second

func (c *growthConfig) Run(s perf.Session) error {
	gr := &growth.Report{Rounds: c.Rounds, RequestsPerRound: c.RequestsPerRound, IdleSeconds: c.Idle.Seconds()}
	s.Report().Growth = gr
	for _, v := range c.Variants {
		// A variant that -run filters out never calls the function: it is not in the report.
		s.Run(v.Name, func(t perf.TB) {
			dep := s.Deploy(t, v.Name, v.Apps, c.roundParams())
			tester, err := testers.NewClient(dep, v.Tester)
			if err != nil {
				s.InfraError(v.Name, err)
				return
			}
			s.WatchTester(tester) // the variant's phase logs the live QPS and errors every 10 s
			done := s.Phase(fmt.Sprintf("variant %s: %s", v.Name, v.Description), time.Duration(c.Rounds+1)*c.roundParams().Duration+c.Idle)
			defer done()
			vg, loads, err := runVariant(t, c, v, dep, tester)
			for i, l := range loads {
				s.Report().Loads = append(s.Report().Loads, perf.NamedLoad{Name: fmt.Sprintf("%s round %d", v.Name, i+1), Result: l})
			}
			if err != nil {
				t.Errorf("%s: %v", v.Name, err)
				s.Report().InfraErrors = append(s.Report().InfraErrors, v.Name+": "+err.Error())
			}
			gr.Variants = append(gr.Variants, vg)
		})
		s.Checkpoint("variant " + v.Name)
	}
	if len(gr.Variants) == 0 {
		s.T().Skipf("%s: no variant ran (-run selected none of them)", s.Scenario().Test)
	}
	return nil
}

// Finish classifies every sidecar against the threshold derived from the control variant,
// runs the detector's checks, compares with the expected verdicts, and takes the validity of
// every round's load.
func (c *growthConfig) Finish(s perf.Session, runErr error) {
	gr := s.Report().Growth
	addRunError(s.Report(), "load", runErr)
	var reference [][]growth.Point
	for _, v := range gr.Variants {
		if v.Control {
			for _, sc := range v.Sidecars {
				reference = append(reference, sc.LoadPoints())
			}
		}
	}
	s.Report().Validity, s.Report().Warnings = growthValidity(namedResults(s.Report().Loads, ""))
	if len(s.Report().Loads) == 0 {
		s.Report().Validity = perf.Validity{Reasons: []string{"no round of load completed"}}
	}
	d, err := growthThreshold(c.env, c.control(), reference)
	if err != nil { // validated in Configure; only a changed environment gets here
		s.InfraError("growth threshold", err)
		return
	}
	gr.Threshold = &d
	gr.ThresholdKiBPer1000, gr.ThresholdSource = d.KiBPer1000, d.Text
	for i := range gr.Variants {
		for j := range gr.Variants[i].Sidecars {
			sc := &gr.Variants[i].Sidecars[j]
			sc.Growth = growth.Classify(sc.LoadPoints(), sc.Idle, gr.ThresholdKiBPer1000)
		}
	}
	gr.Checks = growth.RunChecks(gr)
	// A failed check of the detector itself (a control that is not flat, series that contradict
	// RSS) means the memory readings cannot tell growth from noise: the run is invalid, not a
	// finding about daprd.
	for _, ch := range gr.Checks {
		if !ch.Pass {
			s.Report().Validity.Valid = false
			s.Report().Validity.Reasons = append(s.Report().Validity.Reasons, "memory-growth detector: "+ch.String())
		}
	}
	if c.ExpectedVerdicts != "" {
		e := growth.Compare(gr, c.table, s.Report().Environment.DaprVersion, s.Report().RunID)
		e.Table = c.ExpectedVerdicts
		gr.Expectations = &e
	}
	if len(s.Report().InfraErrors) > 0 {
		s.Report().Incomplete = true
		s.Report().IncompleteReason = fmt.Sprintf("%d infrastructure error(s): %s", len(s.Report().InfraErrors), s.Report().InfraErrors[0])
	}
}

// growthThreshold is growth.DeriveThreshold with env's DAPR_PERF_GROWTH_THRESHOLD_KIB when it
// is set; a bad value is an error naming it.
func growthThreshold(env perf.Env, control string, reference [][]growth.Point) (growth.ThresholdDerivation, error) {
	set := 0.0
	if v := env.GrowthThreshold; v != nil {
		if math.IsInf(*v, 0) {
			return growth.ThresholdDerivation{}, fmt.Errorf("perf: %s=%v: must be a number > 0 (KiB of RSS per 1,000 requests)", perf.EnvGrowthThreshold, *v)
		}
		set = *v
	}
	return growth.DeriveThreshold(control, reference, set, perf.EnvGrowthThreshold), nil
}

// withEnv returns the scenario with its defaults and env overrides applied, or an error naming
// each bad variable.
func (g GrowthPlan) withEnv(env perf.Env, test string) (GrowthPlan, error) {
	if g.Rounds == 0 {
		g.Rounds = 3
	}
	if g.RequestsPerRound == 0 {
		g.RequestsPerRound = 3000
	}
	if g.Idle == 0 {
		g.Idle = 30 * time.Second
	}
	perf.SetIf(&g.Rounds, env.GrowthRounds)
	perf.SetIf(&g.RequestsPerRound, env.GrowthRequests)
	perf.SetIf(&g.Idle, env.GrowthIdle)
	var errs []error
	if g.Connections < 1 || g.QPS < 1 {
		errs = append(errs, fmt.Errorf("growth scenario %s: QPS and Connections must be >= 1", test))
	} else if g.RequestsPerRound%g.Connections != 0 {
		errs = append(errs, fmt.Errorf("requests per round (%s) = %d: must be a multiple of the %d connections", perf.EnvGrowthRequests, g.RequestsPerRound, g.Connections))
	}
	if len(g.Variants) == 0 {
		errs = append(errs, fmt.Errorf("growth scenario %s: no variants", test))
	}
	names := map[string]bool{}
	controls := 0
	for _, v := range g.Variants {
		if v.Name == "" || names[v.Name] {
			errs = append(errs, fmt.Errorf("growth scenario %s: variant name %q: must be set and unique", test, v.Name))
		}
		names[v.Name] = true
		if v.Control {
			controls++
		}
	}
	if controls > 1 {
		errs = append(errs, fmt.Errorf("growth scenario %s: %d variants have Control set: at most one may", test, controls))
	}
	if err := errors.Join(errs...); err != nil {
		return GrowthPlan{}, fmt.Errorf("perf: %s: %w", test, err)
	}
	return g, nil
}

// control returns the name of g's control variant, or "".
func (g GrowthPlan) control() string {
	for _, v := range g.Variants {
		if v.Control {
			return v.Name
		}
	}
	return ""
}

// roundParams is the load of one round: exactly M requests, HTTP through the tester's sidecar.
func (g GrowthPlan) roundParams() perf.Params {
	p := perf.DefaultParams()
	p.QPS, p.Connections = g.QPS, g.Connections
	p.Duration = time.Duration(g.RequestsPerRound) * time.Second / time.Duration(g.QPS)
	return p
}

// runVariant loads one variant's deployment and reads its sidecars; the deployment is torn
// down when the subtest t ends.
func runVariant(t perf.TB, g *growthConfig, v perf.GrowthVariant, dep perf.Deployment, tester testers.Client) (out growth.Variant, loads []perf.Result, err error) {
	t.Helper()
	out = growth.Variant{Name: v.Name, Description: v.Description, Control: v.Control, UniquePath: v.UniquePath}

	sc := perf.Scenario{Transport: perf.HTTP, Tester: v.Tester}
	p, err := routed(dep, sc, v.Route, g.roundParams())
	if err != nil {
		return out, loads, err
	}
	// Warm up with one round of the fixed method: the first round after start-up steps RSS
	// up by several MiB (connection pools, buffers, heap target), which is not growth.
	if _, err := testers.RunLoad(t.Context(), tester, p); err != nil {
		return out, loads, fmt.Errorf("warmup: %w", err)
	}
	p.UniquePath = v.UniquePath

	roles := map[string]string{perf.SidecarName(v.Tester): perf.RoleCallerSidecar, perf.SidecarName(v.Route.To): perf.RoleCalleeSidecar}
	apps := []string{v.Tester, v.Route.To} // the app of each of out.Sidecars
	for _, app := range apps {
		out.Sidecars = append(out.Sidecars, growth.Sidecar{Process: perf.SidecarName(app), Role: roles[perf.SidecarName(app)]})
	}
	start := time.Now()
	var requests int64
	// read takes a reading of both sidecars: RSS first; then, when scrape is set, heap in use
	// and /metrics series. The reading after the last round skips the scrape, so that the idle
	// window's RSS is not inflated by it; the final reading after the idle window scrapes
	// (no request ran meanwhile, so its series are the last round's).
	rss := newRSSReader(dep, []string{out.Sidecars[0].Process, out.Sidecars[1].Process}, apps)
	out.RSSSource = rss.source
	read := func(label string, scrape bool) error {
		usage, err := rss.read(t.Context(), true)
		if err != nil {
			return err
		}
		for i := range out.Sidecars {
			s := &out.Sidecars[i]
			r := growth.Reading{Label: label, Requests: requests, Seconds: time.Since(start).Seconds(),
				RSSBytes: usage[s.Process], Series: -1}
			if scrape {
				if r.HeapInUseBytes, r.Families, err = scrapeSidecar(t.Context(), dep, apps[i]); err != nil {
					return err
				}
				if r.Families != nil {
					r.Series = growth.TotalSeries(r.Families)
				}
			}
			s.Readings = append(s.Readings, r)
		}
		return nil
	}
	// A first scrape allocates (pprof's heap text, the /metrics encoder) and the Go runtime keeps
	// that memory a while: take it before reading 0, so that it is not read as the first
	// round's growth.
	for _, app := range apps {
		if _, _, err := scrapeSidecar(t.Context(), dep, app); err != nil {
			return out, loads, err
		}
	}
	// The heap profiles the growth sites start from, before reading 0 for the same reason.
	heaps := readHeaps(t, dep, apps, false)
	if err := read("0", true); err != nil {
		return out, loads, err
	}
	for k := 1; k <= g.Rounds; k++ {
		res, err := testers.RunLoad(t.Context(), tester, p)
		if err != nil {
			return out, loads, fmt.Errorf("round %d: %w", k, err)
		}
		requests += res.Requests
		out.Errors += res.Errors()
		loads = append(loads, res)
		if err := read(fmt.Sprint(requests), k < g.Rounds); err != nil {
			return out, loads, fmt.Errorf("round %d: %w", k, err)
		}
	}
	if err := idle(t.Context(), rss, g.Idle, start, requests, out.Sidecars); err != nil {
		return out, loads, err
	}
	if err := read("idle", true); err != nil {
		return out, loads, err
	}
	// The last readings are taken: a collection now changes none, and leaves in use only what
	// is live, not the last scrape's encoding.
	heapSites(t, out.Sidecars, heaps, readHeaps(t, dep, apps, true))
	for i := range out.Sidecars {
		out.Sidecars[i].DeriveSeries()
	}
	if out.Errors > 0 {
		return out, loads, fmt.Errorf("%d requests failed", out.Errors)
	}
	return out, loads, nil
}

// freshWait bounds usageAfter's wait for a sample: the metrics API (kubernetes) samples each
// pod every 15 s or so (metrics-server's default resolution), and may miss one.
const freshWait = 60 * time.Second

// usageAfter reads dep's usage until every process of procs has a reading taken at or after
// after (perf.Usage.SampledAt; a zero one is taken at the call), polling every second: a
// reading after a round must show the memory after it, not a sample from within or before it.
// A process with no reading at all is waited for too: the metrics API has none for a pod
// until its first sample, some seconds after the pod started. It is an error naming the
// process when no such reading comes within freshWait.
func usageAfter(ctx context.Context, dep perf.Deployment, after time.Time, procs []string) (map[string]perf.Usage, error) {
	deadline := time.Now().Add(freshWait)
	for {
		usage, err := dep.Usage(ctx)
		if err != nil {
			return nil, err
		}
		stale := ""
		for _, p := range procs {
			u, ok := usage[p]
			switch {
			case !ok:
				stale = p + " (none yet)"
			case !u.SampledAt.IsZero() && u.SampledAt.Before(after):
				stale = fmt.Sprintf("%s (its last at %s)", p, u.SampledAt.UTC().Format(time.RFC3339))
			}
		}
		if stale == "" {
			return usage, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("memory of %s: no reading taken after %s within %v", stale, after.UTC().Format(time.RFC3339), freshWait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// idle waits out the idle window, reading only RSS (no heap or series scrape) idleReadings
// times. From the platform's usage its readings take the latest sample, fresh or not: the
// reading after the window waits for a fresh one. From daprd's /metrics it takes none: each
// such reading is a scrape, whose encoding allocates in proportion to the series (about
// 100 MiB at 9,000 distinct method names), so the window would show the readings' own memory
// as growth when idle; the idle classification is then not made (growth.Classify without idle
// points).
func idle(ctx context.Context, rss rssReader, window time.Duration, start time.Time, requests int64, sidecars []growth.Sidecar) error {
	if rss.daprd {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(window):
			return nil
		}
	}
	step := window / idleReadings
	for range idleReadings {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(step):
		}
		usage, err := rss.read(ctx, false)
		if err != nil {
			return err
		}
		for i := range sidecars {
			sidecars[i].Idle = append(sidecars[i].Idle, growth.Point{Requests: requests,
				Seconds: time.Since(start).Seconds(), RSSBytes: usage[sidecars[i].Process]})
		}
	}
	return nil
}

// growthSites is how many allocation sites a growth reading keeps per sidecar.
const growthSites = 8

// daprdCode are the function-name prefixes of daprd's own code (HeapSite.Via).
var daprdCode = []string{"github.com/dapr/"}

// readHeaps reads the heap profile of each app's sidecar that serves pprof (nil for the
// others, and for one that fails, which t's log says: a heap profile adds to the finding, the
// readings do not need it), after a garbage collection with gc (pprof.Heap).
func readHeaps(t perf.TB, dep perf.Deployment, apps []string, gc bool) []*profile.Profile {
	out := make([]*profile.Profile, len(apps))
	for i, app := range apps {
		u, err := dep.Endpoint(app, perf.SidecarProfile)
		if err != nil {
			continue
		}
		if out[i], err = pprof.Heap(t.Context(), u, gc); err != nil {
			t.Logf("growth: heap profile of %s's sidecar: %v", app, err)
		}
	}
	return out
}

// heapSites fills each sidecar's heap growth and its sites from its heap profiles at the
// first reading (start) and the last (end).
func heapSites(t perf.TB, sidecars []growth.Sidecar, start, end []*profile.Profile) {
	for i := range sidecars {
		if start[i] == nil || end[i] == nil {
			continue
		}
		sites, net, err := pprof.InUseGrowth(start[i], end[i], growthSites, daprdCode...)
		if err != nil {
			t.Logf("growth: heap sites of %s: %v", sidecars[i].Process, err)
			continue
		}
		sidecars[i].HeapGrowthBytes = net
		for _, s := range sites {
			sidecars[i].HeapSites = append(sidecars[i].HeapSites, growth.HeapSite{Function: s.Function, Via: s.Via, Bytes: s.Bytes})
		}
	}
}

// scrapeSidecar reads app's sidecar's Go heap in use (bytes; 0 when profiling is off) and the
// series count of each metric family on its /metrics (nil when the endpoint is off).
func scrapeSidecar(ctx context.Context, dep perf.Deployment, app string) (heap uint64, families map[string]int, err error) {
	if u, err := dep.Endpoint(app, perf.SidecarProfile); err == nil {
		if heap, err = growth.HeapInUse(ctx, u); err != nil {
			return 0, nil, err
		}
	}
	if u, err := dep.Endpoint(app, perf.SidecarMetrics); err == nil {
		if families, err = growth.ScrapeFamilySeries(ctx, u); err != nil {
			return 0, nil, err
		}
	}
	return heap, families, nil
}

// growthValidity is the validity of a growth run's loads: each round must have sent its
// requests and reached report.MinValidQPSRatio of its rate, judged as an overhead run's validity judges
// it (report.MissedRate, Result.KeptQPSRatio: against the schedule's plan, the last request's own time allowed for;
// a 2 s round of 1,000 requests whose last call took 68 ms shows 0.967 by ActualQPS alone:
// TestGrowthValidityAllowsTheLastRequest). Unlike an overhead run, requests sent late
// do not make it invalid: its figures are RSS and series per request, which lateness does not
// bias (coordinated omission is about latency), so lateness over report.MaxValidBehindFraction is a
// warning naming the round.
func growthValidity(phases []report.NamedResult) (perf.Validity, []string) {
	v := perf.Validity{Valid: true}
	var warnings []string
	for _, ph := range phases {
		res := ph.Res
		if r, missed := report.MissedRate(ph.Name, res); missed {
			v.Reasons = append(v.Reasons, r)
		}
		if b := res.Schedule.BehindFraction(); b > report.MaxValidBehindFraction {
			warnings = append(warnings, fmt.Sprintf("%s: %.2f %% of %d requests went out late (%d late, %d skipped); memory per request is unaffected, latency was not measured here",
				ph.Name, 100*b, res.Schedule.Scheduled, res.Schedule.Late, res.Schedule.Skipped))
		}
	}
	v.Valid = len(v.Reasons) == 0
	return v, warnings
}
