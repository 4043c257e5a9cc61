package plan

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"

	"github.com/daprperf/daprperf/perf/driver"
)

// IterationsPlan runs a scenario's Main route as a sequence of closed-loop loads on the
// driver's shared-iterations executor (package perf/driver), one per IterationRun, each
// recorded like any phase (HDR service time, every code, resources) and stored in Report.Loads
// under the run's name. Each deployment (the first run's, and each Fresh run's) gets one
// warmup first (Scenario.WarmupOptions, which must set a driver executor), its result
// discarded. There is no baseline and so no overhead: it is the shape of Dapr's k6 workflow
// tests, whose one bound is that every request succeeded.
//
// Figures (report.deriveIterationsFigures): per run its rate (completed iterations over the run's
// elapsed time: workflows/s when one iteration is one workflow) and its service time (one
// iteration's whole duration) at p50/p90/p95/p99; the gates "errors" (every non-2xx over all
// runs) and "iterations.unfinished" (planned but not completed: dropped at MaxDuration or
// interrupted at the graceful stop, over all runs).
//
// Env overrides: with DAPR_TEST_DURATION = d set (a smoke run), each run does
// ceil(Iterations x d / MaxDuration) iterations (at least 1; VUs capped at that): the share of
// Dapr's own bound on the run that the override asks to spend; MaxDuration itself is kept.
// DAPR_PERF_QPS, DAPR_PERF_CONNECTIONS and the warmup's variables are not applied (the executor
// sets its own pace and VUs, the warmup is counted in iterations; the result's warnings say so), DAPR_PAYLOAD_SIZE is refused (the request body is the
// scenario's, MainOptions' WithPayload).
type IterationsPlan struct {
	// Runs run in order; at least one, names distinct.
	Runs []perf.IterationRun
}

// iterationsRun is one run of a IterationsPlan: each run's load after the overrides, and the runs' results as they come.
type iterationsRun struct {
	IterationsPlan

	loads []perf.Params // each run's load, set by configure
	namedLoads
}

// maxIterationsRun bounds IterationRun.MaxDuration.
const maxIterationsRun = 12 * time.Hour

// Kind is "iterations".
func (*IterationsPlan) Kind() string { return perf.KindIterations }

// ScaledIterations is how many iterations a run of iterations with bound maxDuration does under
// a DAPR_TEST_DURATION override d: ceil(iterations x d / maxDuration), at least 1, at most
// iterations.
func ScaledIterations(iterations int64, maxDuration, d time.Duration) int64 {
	if d <= 0 || maxDuration <= 0 || d >= maxDuration {
		return iterations
	}
	n := int64(math.Ceil(float64(iterations) * d.Seconds() / maxDuration.Seconds()))
	return min(max(n, 1), iterations)
}

func (ip *IterationsPlan) Configure(sc perf.Scenario, cfg *perf.RunConfig) (perf.PlanRun, error) {
	r := &iterationsRun{IterationsPlan: *ip}
	var errs problems
	add := errs.add
	env := cfg.Env
	var err error
	if env.PayloadSize != nil {
		add(fmt.Errorf("iterations plan: %s is not applied: the request body is the scenario's (unset it)", perf.EnvPayloadSize))
	}
	cfg.Main, err = cfg.Env.MainParams(sc.MainOptions...)
	add(err)
	cfg.Warmup, err = cfg.Env.WarmupParams(sc.WarmupOptions...)
	add(err)
	if err == nil && !cfg.Warmup.HasExecutor() {
		add(errors.New("iterations plan: WarmupOptions must set a driver executor (perf.WithExecutor), such as a few shared iterations"))
	}
	if sc.Tester == "" || sc.Main.To == "" {
		add(fmt.Errorf("iterations plan: Tester and Main.To must name apps (got %q, %q)", sc.Tester, sc.Main.To))
	}
	if env.QPS != nil {
		cfg.Notes = append(cfg.Notes, fmt.Sprintf("%s=%d not applied: shared iterations are a closed loop with no target rate", perf.EnvQPS, *env.QPS))
	}
	if env.WarmupQPS != nil || env.WarmupDuration != nil {
		cfg.Notes = append(cfg.Notes, fmt.Sprintf("%s and %s not applied: the warmup is %d shared iterations", perf.EnvWarmupQPS, perf.EnvWarmupDuration, cfg.Warmup.Executor.Iterations))
	}
	if env.Connections != nil {
		cfg.Notes = append(cfg.Notes, fmt.Sprintf("%s=%d not applied: each run has its own VUs", perf.EnvConnections, *env.Connections))
	}
	validateNamed("iterations plan: Runs", "run", ip.Runs, func(r perf.IterationRun) string { return r.Name }, add)
	for i, rn := range ip.Runs {
		if !checkFields("iterations plan: Runs", i, rn.Name, add,
			fieldCheck{"VUs", rn.VUs, rn.VUs >= 1 && rn.VUs <= driver.MaxVUsLimit, fmt.Sprintf("from 1 to %d", driver.MaxVUsLimit)},
			fieldCheck{"Iterations", rn.Iterations, rn.Iterations >= 1 && rn.Iterations <= driver.MaxIterations, fmt.Sprintf("from 1 to %d", driver.MaxIterations)},
			fieldCheck{"MaxDuration", rn.MaxDuration, rn.MaxDuration > 0 && rn.MaxDuration <= maxIterationsRun, fmt.Sprintf("above 0 and at most %v", maxIterationsRun)},
		) {
			continue
		}
		n := rn.Iterations
		if env.Duration != nil {
			n = ScaledIterations(n, rn.MaxDuration, *env.Duration)
		}
		p := cfg.Main
		p.Executor = driver.Executor{Kind: driver.SharedIterations, VUs: min(rn.VUs, int(n)), Iterations: n, Duration: rn.MaxDuration}
		p.Duration = rn.MaxDuration // the estimate the progress lines and the tester's limits use
		if err := p.Validate(); err != nil {
			add(fmt.Errorf("iterations plan: Runs[%d] (%q): %w", i, rn.Name, err))
			continue
		}
		r.loads = append(r.loads, p)
	}
	if env.Duration != nil && len(r.loads) == len(ip.Runs) {
		var parts []string
		for i, p := range r.loads {
			parts = append(parts, fmt.Sprintf("%s %d of %d", ip.Runs[i].Name, p.Executor.Iterations, ip.Runs[i].Iterations))
		}
		cfg.Notes = append(cfg.Notes, fmt.Sprintf("%s=%v: iterations scaled by %v / maxDuration (%s): a smoke, not Dapr's load",
			perf.EnvDuration, *env.Duration, *env.Duration, strings.Join(parts, ", ")))
	}
	return r, errors.Join(errs...)
}

// StepsAreUpperBounds is true (perf.UpperBounded): each run ends when its iterations are done,
// at most at its MaxDuration, which is what Steps lists.
func (*IterationsPlan) StepsAreUpperBounds() bool { return true }

// Steps are, per run, its warmup when it starts a deployment, then the run at its longest.
func (ip *iterationsRun) Steps(_ perf.Scenario, cfg perf.RunConfig) []perf.Step {
	var out []perf.Step
	for i, p := range ip.loads {
		if i == 0 || ip.Runs[i].Fresh {
			out = append(out, perf.Step{Name: fmt.Sprintf("warmup: %d VUs, %d iterations", cfg.Warmup.Executor.VUs, cfg.Warmup.Executor.Iterations), Duration: 0})
		}
		out = append(out, perf.Step{Name: fmt.Sprintf("run %s: %d VUs share %d iterations (at most %v)", ip.Runs[i].Name, p.Executor.VUs, p.Executor.Iterations, p.Executor.Duration), Duration: p.Executor.Duration})
	}
	return out
}

// groups splits the runs into deployments: a new one at the first run and at each Fresh run.
func (ip *iterationsRun) groups() [][]int {
	var out [][]int
	for i := range ip.loads {
		if i == 0 || ip.Runs[i].Fresh {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], i)
	}
	return out
}

func (ip *iterationsRun) Run(s perf.Session) error {
	ip.namedLoads = namedLoads{prefix: "run "}
	groups := ip.groups()
	var runErr error
	for _, g := range groups {
		name := ip.Runs[g[0]].Name
		runOne := func(t perf.TB) {
			label := "" // a scenario's only deployment is not labelled in exits
			if len(groups) > 1 {
				label = name
			}
			dep := s.Deploy(t, label, s.Scenario().Apps, append([]perf.Params{s.Config().Warmup}, ip.loads...)...)
			if err := ip.runGroup(t, s, dep, g); err != nil {
				runErr = err
				t.Errorf("%v", err)
			}
		}
		if len(groups) == 1 {
			runOne(s.T())
		} else {
			s.Run(name, runOne) // the subtest's cleanup stops this deployment before the next starts
		}
		if runErr != nil {
			break
		}
	}
	return runErr
}

// runGroup runs the warmup and then the runs idx on dep.
func (ip *iterationsRun) runGroup(t perf.TB, s perf.Session, dep perf.Deployment, idx []int) error {
	sc := s.Scenario()
	tester, err := startTester(s, dep)
	if err != nil {
		return err
	}
	warm, err := routed(dep, sc, sc.Main, s.Config().Warmup)
	if err != nil {
		return fmt.Errorf("warmup: %w", err)
	}
	wres, err := runWarmup(s, tester, warm, fmt.Sprintf(": %d VUs, %d iterations to %s", warm.Executor.VUs, warm.Executor.Iterations, warm.Target), 0)
	if err != nil {
		return err
	}
	if wres.Errors() > 0 {
		t.Logf("warmup: %d of %d requests failed (codes %v)", wres.Errors(), wres.Requests, wres.RetCodes)
	}
	for _, i := range idx {
		name := ip.Runs[i].Name
		lp, err := routed(dep, sc, sc.Main, ip.loads[i])
		if err != nil {
			return fmt.Errorf("run %s: %w", name, err)
		}
		ex := lp.Executor
		phase := perf.Step{Name: fmt.Sprintf("run %s: %d VUs share %d iterations to %s", name, ex.VUs, ex.Iterations, lp.Target), Duration: ex.Duration}
		res, err := ip.measureLoad(s, dep, tester, name, phase, lp, sc.Roles())
		if err != nil {
			return err
		}
		t.Logf("run %s: %d of %d iterations in %v: %.2f/s, p50 %v, p95 %v, p99 %v, %d failed",
			name, res.Requests, ex.Iterations, res.ActualDuration.Round(time.Millisecond), res.ActualQPS,
			pct(&res, 50), pct(&res, 95), pct(&res, 99), res.Errors())
	}
	return nil
}

// pct is p's service-time percentile of res, rounded for a log line.
func pct(res *perf.Result, p float64) time.Duration {
	v, _ := res.Percentile(p)
	return v.Round(100 * time.Microsecond)
}

// Finish takes the validity of every run (a closed loop has no rate to keep; iterations dropped
// at MaxDuration make it invalid), the resources over all runs, and how complete the run is.
func (ip *iterationsRun) Finish(s perf.Session, runErr error) {
	// The runs are closed loops of whole workflows, a few hundred each: too few requests for an
	// RSS slope per 1,000 of them to classify.
	ip.finish(s, len(ip.loads), "run", "memory growth is not classified by the iterations plan: its runs are a few hundred closed-loop iterations (peak RSS and mean CPU are over all runs)", runErr)
}
