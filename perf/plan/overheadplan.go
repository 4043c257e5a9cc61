package plan

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// OverheadPlan is the sidecar-overhead plan: rounds of a baseline phase
// (tester -> app, Scenario.Baseline) and a main phase (tester -> its daprd -> the app's daprd ->
// app, Scenario.Main), interleaved B M B M ..., with one warmup through the sidecars before the
// first main phase, its results discarded; then an idle window with resources sampled and no
// load. When the platform runs a second daprd build beside the first (SideB), each round also
// has a main phase through build B's sidecars, A and B alternating first (ab.go). The
// preflight (EnvPreflight) may lower the main phase's QPS first. The sidecar overhead is main
// minus baseline per round and percentile (report.ComputeOverheads).
type OverheadPlan struct{}

// Kind is KindOverhead.
func (OverheadPlan) Kind() string { return perf.KindOverhead }

// Ladder is the loads the preflight picks the main load from (perf.Laddered): none when no
// preflight is wanted (EnvPreflight, or DAPR_PERF_QPS set).
func (OverheadPlan) Ladder(sc perf.Scenario, cfg perf.RunConfig) []int {
	if !preflightWanted(cfg) {
		return nil
	}
	return ladderFrom(cfg.Main.QPS, sc.Ladder)
}

// Configure resolves the loads, the rounds, the idle window and the preflight from cfg.Env; the
// plan keeps no state of its own, so it is its own run.
func (op OverheadPlan) Configure(sc perf.Scenario, cfg *perf.RunConfig) (perf.PlanRun, error) {
	var errs problems
	add := errs.add
	loadParams(sc, cfg, add)
	cfg.Rounds = perf.RepeatsFromEnv(cfg.Env)
	var err error
	cfg.ABMaxRounds, err = perf.ABMaxRoundsFromEnv(cfg.Env, cfg.Rounds, report.DefaultABMaxRounds)
	add(err)
	cfg.ABSetAside = perf.ABSetAsideFromEnv(cfg.Env, cfg.ABMaxRounds)
	cfg.ABGated = report.ABGatedFigures()
	if g := cfg.Env.ABGate; g != nil {
		cfg.ABGated = report.ABGatedFiguresOf(*g)
	}
	var note string
	cfg.Idle, note = sc.IdleWindowFromEnv(cfg.Env)
	if note != "" {
		cfg.Notes = append(cfg.Notes, note)
	}
	cfg.PreflightLadder = preflightFromEnv(cfg.Env)
	if cfg.PreflightLadder && sc.RateIsMeasured {
		cfg.PreflightLadder = false
		cfg.Notes = append(cfg.Notes, fmt.Sprintf("%s=ladder not applied: the rate this scenario reaches at %d QPS is what it measures", perf.EnvPreflight, cfg.Main.QPS))
	}
	add(sc.ValidateSetup())
	for i, r := range []perf.Route{sc.Baseline, sc.Main} {
		if r.Protocol != "" && r.Protocol != perf.HTTP && r.Protocol != perf.GRPC {
			add(fmt.Errorf("overhead plan: %s.Protocol = %q: %q, %q or empty (the scenario's Transport)", [2]string{"Baseline", "Main"}[i], r.Protocol, perf.HTTP, perf.GRPC))
		}
	}
	if sc.Tester == "" || sc.Main.To == "" || sc.Baseline.To == "" {
		add(fmt.Errorf("overhead plan: Tester, Baseline.To and Main.To must name apps (got %q, %q, %q)", sc.Tester, sc.Baseline.To, sc.Main.To))
	}
	return op, errors.Join(errs...)
}

// Steps are the preflight at its longest, then per round the baseline, the warmup (first round
// only) and the main phase, then the idle window.
func (OverheadPlan) Steps(sc perf.Scenario, cfg perf.RunConfig) []perf.Step {
	var out []perf.Step
	if preflightWanted(cfg) {
		n := len(ladderFrom(cfg.Main.QPS, sc.Ladder))
		if sc.PreflightBaseline {
			n *= 2
		}
		step := preflightStepLength(n, cfg.Main.Duration)
		out = append(out, perf.Step{Name: fmt.Sprintf("preflight (up to %d loads of %v: %s QPS)", n, step, joinInts(ladderFrom(cfg.Main.QPS, sc.Ladder))), Duration: time.Duration(n) * step})
	}
	for i := range cfg.Rounds {
		out = append(out, perf.Step{Name: fmt.Sprintf("round %d/%d baseline, %d QPS x %v", i+1, cfg.Rounds, cfg.Main.QPS, cfg.Main.Duration), Duration: cfg.Main.Duration})
		if i == 0 {
			out = append(out, perf.Step{Name: fmt.Sprintf("warmup, %d QPS x %v", cfg.Warmup.QPS, cfg.Warmup.Duration), Duration: cfg.Warmup.Duration})
		}
		out = append(out, perf.Step{Name: fmt.Sprintf("round %d/%d main, %d QPS x %v", i+1, cfg.Rounds, cfg.Main.QPS, cfg.Main.Duration), Duration: cfg.Main.Duration})
	}
	if cfg.Idle > 0 {
		out = append(out, perf.Step{Name: fmt.Sprintf("idle window %v", cfg.Idle), Duration: cfg.Idle})
	}
	return out
}

func (OverheadPlan) Run(s perf.Session) error {
	t, sc, cfg, rep := s.T(), s.Scenario(), s.Config(), s.Report()
	dep := s.Deploy(t, "", sc.Apps, cfg.Main, cfg.Warmup) // the baseline is cfg.Main too
	// The setup goes first: the preflight loads the main route, which may need what it sets up.
	if err := runSetup(s, dep); err != nil {
		return err
	}
	pf, err := applyPreflight(t.Context(), t, dep, sc, cfg, s)
	if err != nil {
		s.InfraError("preflight", err)
	}
	rep.Preflight = pf
	rep.Params = cfg.Main // the preflight may have lowered its QPS
	sides := []*side{{name: "A", dep: dep}}
	if b, ok := perf.SideB(dep); ok {
		rule := report.ABRule(cfg.Rounds, cfg.ABMaxRounds)
		rep.AB = &perf.ABReport{A: buildOf(dep), B: buildOf(b), Rule: &rule}
		t.Logf("A/B run: A is daprd %s (%s), B is daprd %s (%s)", rep.AB.A.Version, report.OrUnknown(rep.AB.A.Daprd), rep.AB.B.Version, report.OrUnknown(rep.AB.B.Daprd))
		sides = append(sides, &side{name: "B", dep: b})
	}
	if err := runOverheadRounds(s, dep, sides); err != nil {
		return err
	}
	if cfg.Idle > 0 {
		done := s.Phase("idle window: sampling resources with no load", cfg.Idle)
		rep.Idle = sampleIdle(s, dep, cfg.Idle)
		done()
	}
	return nil
}

// side is one daprd build's main phase of an overhead round: its deployment and routes, and
// whether it has had its warmup.
type side struct {
	name         string // "A", or "B" in an A/B run
	dep          perf.Deployment
	main, warmup perf.Params
	warm         bool
}

// runOverheadRounds runs cfg.Rounds rounds: the baseline through dep's apps, then each side's
// main phase (A B in odd rounds, B A in even ones), each side's first main phase preceded by
// its warmup; an A/B run then adds rounds while a gated figure is undecided (extendAB), and
// sets aside a round in which a measured phase fell behind or missed its rate, then runs it
// again, up to cfg.ABSetAside times (s.Report().AB.SetAside). After each phase it records what
// is complete in s.Report() (Rounds, PartialRound, and build B's in s.Report().AB) and
// checkpoints. It stops at the first load that fails.
func runOverheadRounds(s perf.Session, dep perf.Deployment, sides []*side) error {
	sc, cfg, rep := s.Scenario(), s.Config(), s.Report()
	tester, err := startTester(s, dep)
	if err != nil {
		return err
	}
	baseline, err := routed(dep, sc, sc.Baseline, cfg.Main)
	if err != nil {
		return err
	}
	ab := len(sides) > 1
	buildName := func(sd *side) string {
		if !ab {
			return ""
		}
		return perf.OfBuild + sd.name
	}
	for _, sd := range sides {
		if sd.main, err = routed(sd.dep, sc, sc.Main, cfg.Main); err != nil {
			return fmt.Errorf("main%s: %w", buildName(sd), err)
		}
		if sd.warmup, err = routed(sd.dep, sc, sc.Main, cfg.Warmup); err != nil {
			return fmt.Errorf("warmup%s: %w", buildName(sd), err)
		}
	}
	// asideIf sets attempt, a round of an A/B run, aside when res, the phase of it just
	// measured, fell behind its schedule or missed its rate and the run may set aside one more
	// round (cfg.ABSetAside): it records the attempt in rep.AB.SetAside, drops the partial
	// round and checkpoints, and the caller runs the round again.
	asideIf := func(attempt *perf.SetAsideRound, phase string, res *perf.Result) bool {
		if !ab || len(rep.AB.SetAside) >= cfg.ABSetAside {
			return false
		}
		reasons := report.PhaseInvalidReasons(fmt.Sprintf("round %d %s", attempt.Round, phase), res)
		if len(reasons) == 0 {
			return false
		}
		attempt.Phase, attempt.Reasons = phase, reasons
		rep.AB.SetAside = append(rep.AB.SetAside, *attempt)
		rep.PartialRound, rep.AB.PartialRound = nil, nil
		s.T().Logf("round %d set aside (%d of at most %d), to run again: %s", attempt.Round, len(rep.AB.SetAside), cfg.ABSetAside, strings.Join(reasons, "; "))
		s.Checkpoint(fmt.Sprintf("round %d set aside", attempt.Round))
		return true
	}
	// roundOnce runs round i once; aside is true when asideIf set it aside.
	roundOnce := func(i int, again bool) (aside bool, err error) {
		of := fmt.Sprintf("%d/%d", i+1, cfg.Rounds)
		if i >= cfg.Rounds {
			of = fmt.Sprintf("%d (added, at most %d)", i+1, cfg.ABMaxRounds)
		}
		if again {
			of += " (again)"
		}
		order := sides
		if ab && i%2 == 1 {
			order = []*side{sides[1], sides[0]}
		}
		attempt := perf.SetAsideRound{Round: i + 1}
		if ab {
			attempt.Order = order[0].name + order[1].name
		}
		b, err := runPhase(s, tester, perf.Step{Name: fmt.Sprintf("round %s: baseline, %d QPS to %s", of, baseline.QPS, baseline.Target), Duration: baseline.Duration}, baseline)
		if err != nil {
			return false, fmt.Errorf("round %d baseline: %w", i+1, err)
		}
		attempt.Baseline = &b
		if asideIf(&attempt, perf.SetAsideBaseline, &b) {
			return true, nil
		}
		rep.PartialRound = &perf.Round{Baseline: b}
		if ab {
			rep.AB.PartialRound = &perf.Round{Baseline: b}
		}
		s.Checkpoint(fmt.Sprintf("round %d baseline", i+1))
		got := map[string]perf.Round{}
		for _, sd := range order {
			if !sd.warm {
				if _, err := runPhase(s, tester, perf.Step{Name: fmt.Sprintf("warmup%s (discarded), %d QPS to %s", buildName(sd), sd.warmup.QPS, sd.warmup.Target), Duration: sd.warmup.Duration}, sd.warmup); err != nil {
					return false, fmt.Errorf("warmup%s: %w", buildName(sd), err)
				}
				sd.warm = true
			}
			phase := perf.Step{Name: fmt.Sprintf("round %s: main%s, %d QPS to %s", of, buildName(sd), sd.main.QPS, sd.main.Target), Duration: sd.main.Duration}
			m, series, err := measure(s, sd.dep, tester, phase, sd.main, sc.Roles(), fmt.Sprintf("round %d%s", i+1, buildName(sd)))
			if err != nil {
				return false, fmt.Errorf("round %d main%s: %w", i+1, buildName(sd), err)
			}
			which := perf.SetAsideMainA
			if sd.name == "A" {
				attempt.A = &m
			} else {
				attempt.B, which = &m, perf.SetAsideMainB
			}
			if asideIf(&attempt, which, &m) {
				return true, nil
			}
			r := perf.Round{Baseline: b, Main: m, Resources: series}
			got[sd.name] = r
			if sd.name == "A" {
				rep.PartialRound = &r
			} else {
				rep.AB.PartialRound = &r
			}
			if ab {
				s.Checkpoint(fmt.Sprintf("round %d main%s", i+1, buildName(sd)))
			}
		}
		rep.Rounds = append(rep.Rounds, got["A"])
		rep.PartialRound = nil
		if ab {
			rep.AB.Rounds = append(rep.AB.Rounds, got["B"])
			rep.AB.Order = append(rep.AB.Order, attempt.Order)
			rep.AB.PartialRound = nil
			s.Checkpoint(fmt.Sprintf("round %d", i+1))
		} else {
			s.Checkpoint(fmt.Sprintf("round %d main", i+1))
		}
		return false, nil
	}
	// runRound runs round i until it is not set aside: each setting aside uses one of the
	// run's cfg.ABSetAside, so the loop ends.
	runRound := func(i int) error {
		for again := false; ; again = true {
			if aside, err := roundOnce(i, again); err != nil || !aside {
				return err
			}
		}
	}
	if ab {
		defer func() {
			if st := rep.AB.Stop; st != nil {
				st.SetAside, st.SetAsideLimit = len(rep.AB.SetAside), cfg.ABSetAside
			}
		}()
	}
	for i := range cfg.Rounds {
		if err := runRound(i); err != nil {
			if ab {
				rep.AB.Stop = &perf.ABStop{Planned: cfg.Rounds, MaxRounds: cfg.ABMaxRounds, Ran: len(rep.AB.Rounds), Gated: cfg.ABGated, Reason: perf.ABStopFailed}
			}
			return err
		}
	}
	if !ab {
		return nil
	}
	return extendAB(rep, cfg.Rounds, cfg.ABMaxRounds, cfg.ABGated, runRound, s.T().Logf)
}

// extendAB decides an A/B run's rounds: after the planned rounds, and after each pair added
// since, it judges rep's A and B rounds (report.PairedDifferences by rep.AB.Rule); while a
// figure of gated (RunConfig.ABGated) is undecided and fewer than maxRounds have run, it runs the
// next two rounds through runRound (round index from 0; runRound appends to rep.Rounds and
// rep.AB.Rounds and keeps the A B / B A alternation by index), or the one the budget leaves.
// It records how and why the rounds stopped in rep.AB.Stop, and returns runRound's first error.
func extendAB(rep *perf.Report, planned, maxRounds int, gated []string, runRound func(i int) error, logf func(format string, args ...any)) error {
	rule := report.ABRule(planned, maxRounds)
	if rep.AB.Rule != nil {
		rule = *rep.AB.Rule
	}
	stop := &perf.ABStop{Planned: planned, MaxRounds: maxRounds, Gated: gated}
	rep.AB.Stop = stop
	for {
		stop.Ran = min(len(rep.Rounds), len(rep.AB.Rounds))
		stop.Undecided = report.Undecided(report.PairedDifferences(rep.Rounds, rep.AB.Rounds, rule), stop.Gated)
		switch {
		case len(stop.Undecided) == 0:
			stop.Reason = perf.ABStopDecided
			return nil
		case stop.Ran >= maxRounds:
			stop.Reason = perf.ABStopBudget
			return nil
		}
		add := min(2, maxRounds-stop.Ran)
		logf("A/B: %s undecided after %d rounds: %d more (at most %d in all)", strings.Join(stop.Undecided, ", "), stop.Ran, add, maxRounds)
		for j := range add {
			if err := runRound(stop.Ran + j); err != nil {
				stop.Ran = min(len(rep.Rounds), len(rep.AB.Rounds))
				stop.Reason = perf.ABStopFailed
				return err
			}
		}
	}
}

// Finish marks how complete the run is (markEnd), then derives the overhead on service and
// response time, the validity of every measured phase, the warnings and the resource summaries,
// then build B's (ab.go).
func (OverheadPlan) Finish(s perf.Session, runErr error) {
	r := s.Report()
	markEnd(r, s.Config().Rounds, runErr)
	report.DeriveOverhead(r)
	report.FinishAB(r.AB, r, s.Config().Thresholds)
}

// markEnd sets the run's incomplete flag and infrastructure errors from how its rounds ended:
// a load error (the tester or the platform failed) and fewer rounds than asked for.
func markEnd(rep *perf.Report, want int, loadErr error) {
	addRunError(rep, "load", loadErr)
	if len(rep.Rounds) < want {
		rep.Incomplete = true
		rep.IncompleteReason = fmt.Sprintf("%d of %d rounds completed", len(rep.Rounds), want)
		if rep.PartialRound != nil {
			rep.IncompleteReason += ", and the baseline of the next"
		}
		if loadErr != nil {
			rep.IncompleteReason += ": " + loadErr.Error()
		}
	}
	if rep.Incomplete || len(rep.InfraErrors) > 0 {
		rep.Pass = false
	}
}
