package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"

	"github.com/daprperf/daprperf/perf/driver"
)

// FaultPlan is Dapr's actor_double_activation schedule: closed-loop load on the Main route
// (one actor id) in two phases, "base" and then "faults", and for the faults phase a fault
// window opened on one actor host replica (apps/actorapp POST /faults: a fixed delay before
// every actor method call and a fraction of them answered 500 by the host), which the host
// closes by itself after Window. Dapr injects the same with xk6-disruptor on a Kubernetes pod;
// here daprperf injects it in the host app, so every injected 500 is counted where it is made.
//
// The fault goes to the replica that hosts the actor: after the warmup (Scenario.WarmupOptions,
// a fixed-rate load on the Main route that activates it) the plan reads every host's /stats and
// picks the one with the actor active. A fault on a replica that hosts nothing would change
// nothing (daprd calls only the host of an id).
//
// Figures (report.DeriveFigures, for the fault kind): "errors" (every non-2xx answer and socket error of both phases),
// "errors.injected" (the 500s the hosts injected), "errors.other" (errors that are not injected
// 500s: every non-500 error, plus the 500s beyond the injected count), "faults.calls" (method
// calls the window saw), and "base.p95", "faults.p95" (service time, seconds).
//
// Env overrides: DAPR_TEST_DURATION shortens each phase's schedule to at most that long (its
// stages scaled in proportion, the window at most the faults phase's schedule), which keeps a
// smoke run short; DAPR_PERF_QPS and DAPR_PERF_CONNECTIONS are not applied (closed loops, the
// VUs are the schedule's) and the result says so.
type FaultPlan struct {
	// Hosts are the actor host apps (Kind ActorApp) the actor id may be placed on; at least one.
	Hosts []string
	// Base and Faults are the two phases' executors (closed loop: ramping or constant VUs).
	Base, Faults driver.Executor
	// Delay is waited before every method call of the faulted host during the window (>= 0);
	// FailFraction of those calls are answered 500 ([0, 1]); Window is how long the fault lasts
	// from the faults phase's start (> 0, at most the faults phase's schedule after overrides).
	Delay        time.Duration
	FailFraction float64
	Window       time.Duration
}

// faultRun is one run of a FaultPlan: the two phases' loads and the fault window after the overrides, and the phases' results as they come.
type faultRun struct {
	FaultPlan

	base, faults perf.Params // set by Configure
	window       time.Duration
	namedLoads
}

// Phase names of a fault plan's loads (Report.Loads).
const (
	FaultPhaseBase   = "base"
	FaultPhaseFaults = "faults"
)

// Kind is "faults".
func (*FaultPlan) Kind() string { return perf.KindFaults }

func (fp *FaultPlan) Configure(sc perf.Scenario, cfg *perf.RunConfig) (perf.PlanRun, error) {
	r := &faultRun{FaultPlan: *fp}
	var errs problems
	add := errs.add
	env := cfg.Env
	var err error
	cfg.Warmup, err = cfg.Env.WarmupParams(sc.WarmupOptions...)
	add(err)
	if cfg.Warmup.HasExecutor() {
		add(errors.New("fault plan: WarmupOptions: the warmup is a fixed-rate load (it activates the actor): no executor"))
	}
	if sc.Tester == "" || sc.Main.To == "" {
		add(fmt.Errorf("fault plan: Tester and Main.To must name apps (got %q, %q)", sc.Tester, sc.Main.To))
	}
	if len(fp.Hosts) == 0 {
		add(errors.New("fault plan: Hosts is empty: name the actor host apps"))
	}
	for _, h := range fp.Hosts {
		if !slices.ContainsFunc(sc.Apps, func(a perf.App) bool { return a.Name == h && a.Kind == perf.ActorApp }) {
			add(fmt.Errorf("fault plan: Hosts: %q is not an app of kind %s in the scenario", h, perf.ActorApp))
		}
	}
	if fp.Delay < 0 {
		add(fmt.Errorf("fault plan: Delay = %v: must be >= 0", fp.Delay))
	}
	if !(fp.FailFraction >= 0 && fp.FailFraction <= 1) {
		add(fmt.Errorf("fault plan: FailFraction = %v: must be in [0, 1]", fp.FailFraction))
	}
	phase := func(name string, ex driver.Executor) perf.Params {
		if !ex.ClosedLoop() {
			add(fmt.Errorf("fault plan: %s: executor kind %q: must be a closed loop (%s, %s)", name, ex.Kind, driver.RampingVUs, driver.ConstantVUs))
			return perf.Params{}
		}
		if env.Duration != nil {
			ex = capSchedule(ex, *env.Duration)
		}
		p, err := cfg.Env.MainParams(append(slices.Clone(sc.MainOptions), perf.WithExecutor(ex))...)
		if err != nil {
			add(fmt.Errorf("fault plan: %s: %w", name, err))
		}
		p.Duration = max(ex.ScheduleDuration(), perf.MinDuration)
		return p
	}
	r.base = phase(FaultPhaseBase, fp.Base)
	r.faults = phase(FaultPhaseFaults, fp.Faults)
	r.window = fp.Window
	if r.faults.HasExecutor() {
		r.window = min(fp.Window, r.faults.Executor.ScheduleDuration())
	}
	if r.window <= 0 {
		add(fmt.Errorf("fault plan: Window = %v: must be > 0", fp.Window))
	}
	cfg.Main = r.base
	return r, errors.Join(errs...)
}

// capSchedule scales ex's schedule down to at most d (stages in proportion, whole
// milliseconds, each at least 1 ms); a schedule within d is returned as it is.
func capSchedule(ex driver.Executor, d time.Duration) driver.Executor {
	total := ex.ScheduleDuration()
	if total <= d || total <= 0 {
		return ex
	}
	f := float64(d) / float64(total)
	scale := func(x time.Duration) time.Duration {
		return max(time.Duration(math.Floor(float64(x)*f/1e6))*time.Millisecond, time.Millisecond)
	}
	ex.Stages = slices.Clone(ex.Stages)
	for i := range ex.Stages {
		ex.Stages[i].Duration = scale(ex.Stages[i].Duration)
	}
	if ex.Kind == driver.ConstantVUs {
		ex.Duration = scale(ex.Duration)
	}
	return ex
}

// Steps are the warmup, the base phase, the faults phase.
func (fp *faultRun) Steps(_ perf.Scenario, cfg perf.RunConfig) []perf.Step {
	return []perf.Step{
		{Name: fmt.Sprintf("warmup, %d QPS x %v (activates the actor)", cfg.Warmup.QPS, cfg.Warmup.Duration), Duration: cfg.Warmup.Duration},
		{Name: fmt.Sprintf("base: %s, up to %d VUs over %v", fp.base.Executor.Kind, fp.base.Executor.PeakVUs(), fp.base.Executor.ScheduleDuration()), Duration: fp.base.RunDuration()},
		{Name: fmt.Sprintf("faults: %s, up to %d VUs over %v; %v delay and %.0f %% 500s on the actor's host for %v", fp.faults.Executor.Kind, fp.faults.Executor.PeakVUs(),
			fp.faults.Executor.ScheduleDuration(), fp.Delay, 100*fp.FailFraction, fp.window), Duration: fp.faults.RunDuration()},
	}
}

func (fp *faultRun) Run(s perf.Session) error {
	t, sc, rep := s.T(), s.Scenario(), s.Report()
	dep, tester, err := deployAndWarm(s, fp.base, fp.faults)
	if err != nil {
		return err
	}
	ctx := t.Context()
	target, err := fp.activeHost(ctx, dep)
	if err != nil {
		return err
	}
	rep.Faults = &perf.FaultReport{Target: target, Delay: fp.Delay, FailFraction: fp.FailFraction, Window: fp.window,
		Note: fmt.Sprintf("opened on %s (the host of the actor after the warmup) as the faults phase started, closed by the host after %v", target, fp.window)}
	roles := fp.roles(sc, target)
	fp.namedLoads = namedLoads{}
	for _, ph := range []struct {
		name string
		p    perf.Params
	}{{FaultPhaseBase, fp.base}, {FaultPhaseFaults, fp.faults}} {
		lp, err := routed(dep, sc, sc.Main, ph.p)
		if err != nil {
			return fmt.Errorf("%s: %w", ph.name, err)
		}
		if ph.name == FaultPhaseFaults {
			if err := openFaults(ctx, dep, target, fp.Delay, fp.FailFraction, fp.window); err != nil {
				return fmt.Errorf("faults: %w", err)
			}
		}
		phase := perf.Step{Name: fmt.Sprintf("%s: %s up to %d VUs over %v to %s", ph.name, lp.Executor.Kind, lp.Executor.PeakVUs(), lp.Executor.ScheduleDuration(), lp.Target), Duration: lp.RunDuration()}
		if _, err := fp.measureLoad(s, dep, tester, ph.name, phase, lp, roles); err != nil {
			return err
		}
	}
	return nil
}

// roles are sc's process roles (every host replica is an app, its daprd a callee sidecar:
// Scenario.Roles), checked to name the actor's host, whichever of Hosts it is, as the app.
func (fp *FaultPlan) roles(sc perf.Scenario, target string) map[string]string {
	roles := sc.Roles()
	roles[target] = perf.RoleApp // already so when target is a replica of Main.To
	roles[perf.SidecarName(target)] = perf.RoleCalleeSidecar
	return roles
}

// activeHost is the host in fp.Hosts with an active actor: the one the warmup's calls placed it
// on. None is an error; several (a double activation already) picks the first.
func (fp *FaultPlan) activeHost(ctx context.Context, dep perf.Deployment) (string, error) {
	var active, seen []string
	for _, h := range fp.Hosts {
		host, err := actorHostOf(dep, h)
		if err != nil {
			return "", fmt.Errorf("find the actor's host: %w", err)
		}
		st, err := host.stats(ctx, 0)
		if err != nil {
			return "", fmt.Errorf("find the actor's host: %w", err)
		}
		seen = append(seen, fmt.Sprintf("%s: %d active", h, st.Active))
		if st.Active > 0 {
			active = append(active, h)
		}
	}
	if len(active) == 0 {
		return "", fmt.Errorf("find the actor's host: no host has an active actor after the warmup (%s)", strings.Join(seen, ", "))
	}
	return active[0], nil
}

// faultTimeout bounds opening a fault window.
const faultTimeout = 10 * time.Second

// openFaults opens the fault window on app's own HTTP port (POST /faults).
func openFaults(ctx context.Context, dep perf.Deployment, app string, delay time.Duration, fail float64, window time.Duration) error {
	base, err := dep.Endpoint(app, perf.AppControl)
	if err != nil {
		return err
	}
	body, err := json.Marshal(map[string]any{"delay": delay, "failFraction": fail, "window": window})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, faultTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/faults", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s/faults: %w", base, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return fmt.Errorf("POST %s/faults: %s: %s", base, resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}

// Finish takes the validity of both phases, the resources over both, and how complete the run
// is; it states that the main-phase load overrides do not apply.
func (fp *faultRun) Finish(s perf.Session, runErr error) {
	fp.finish(s, 2, "phase", "", runErr)
	r := s.Report()
	if env := s.Config().Env; env.QPS != nil || env.Connections != nil {
		r.Warnings = append(r.Warnings, "fault plan: DAPR_PERF_QPS and DAPR_PERF_CONNECTIONS are not applied: both phases are closed loops whose VUs are the schedule's")
	}
	for i := range r.Loads {
		if ex := r.Loads[i].Executor; ex != nil && ex.Interrupted > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: %d iterations still running at the graceful stop were interrupted (not recorded, as k6)", r.Loads[i].Name, ex.Interrupted))
		}
	}
}
