package plan

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/testers"
)

// Preflight bounds. Each step is a short fixed-rate load through the sidecars (the main route);
// all steps together take at most preflightBudget. A step keeps its load when it reaches the
// validity bound on the rate (report.MinValidQPSRatio: a short step's rate reads slightly low, as its
// last answers count in its duration) and falls behind on at most half the share validity
// allows (report.MaxValidBehindFraction / 2: a 60 s main phase has more time to fall behind than a few
// seconds), with no failed request.
const (
	preflightBudget    = 30 * time.Second
	preflightMaxStep   = 6 * time.Second
	preflightMaxBehind = report.MaxValidBehindFraction / 2
)

// preflightFromEnv reports whether env's EnvPreflight is ladder.
func preflightFromEnv(env perf.Env) bool { return perf.Val(env.Preflight) == "ladder" }

// ladderFrom is the ladder from qps down: qps itself, then every rung of rungs below it
// (QPSLadder when rungs is nil: Scenario.Ladder). A scenario's own ladder whose first rung is
// at or below qps is used as it is, so it may leave qps out (Scenario.LadderNote says why).
func ladderFrom(qps int, rungs []int) []int {
	if rungs == nil {
		rungs = perf.QPSLadder
	} else if len(rungs) > 0 && rungs[0] <= qps {
		return slices.Clone(rungs)
	}
	out := []int{qps}
	for _, q := range rungs {
		if q < qps {
			out = append(out, q)
		}
	}
	return out
}

// joinInts is xs as "1, 2, 3".
func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// preflightStepLength is the length of each of n preflight loads: preflightMaxStep, less when n of
// them would exceed preflightBudget, and never longer than the main phase itself.
func preflightStepLength(n int, main time.Duration) time.Duration {
	return min(preflightMaxStep, preflightBudget/time.Duration(max(n, 1)), main)
}

// preflightWanted reports whether Run runs the preflight with cfg: EnvPreflight is ladder, the
// main phase is fixed-rate (no max rate, no executor of the driver), and DAPR_PERF_QPS does not
// name the load.
func preflightWanted(cfg perf.RunConfig) bool {
	set := cfg.Env.QPS != nil
	// A closed loop of the driver has no rate to step down (its ladder would be "1 QPS").
	return cfg.PreflightLadder && !cfg.Main.MaxRate && !cfg.Main.HasExecutor() && !set
}

// stepKept reports whether a preflight load kept its schedule: at most preflightMaxBehind of
// it late or skipped, no error, and its rate within report.MinValidQPSRatio of the plan once the last
// request's own time is allowed for (Result.KeptQPSRatio). A step is a few seconds, and
// fortio's achieved rate counts the last call's service time in its elapsed time: 5 % of a
// 3 s step for a 150 ms request (100 single publishes), which says nothing about keeping the
// schedule.
func stepKept(r perf.Result) bool {
	return r.KeptQPSRatio() >= report.MinValidQPSRatio && r.Schedule.BehindFraction() <= preflightMaxBehind && r.Errors() == 0
}

// preflightNote is the sentence every report prints about the preflight.
func preflightNote(pf perf.Preflight, cpus int) string {
	ladder := make([]string, len(pf.Ladder))
	for i, q := range pf.Ladder {
		ladder[i] = strconv.Itoa(q)
	}
	requested := fmt.Sprintf("the requested %d QPS", pf.RequestedQPS)
	if pf.RequestedQPS == perf.QPSLadder[0] {
		requested = fmt.Sprintf("Dapr's %d QPS", pf.RequestedQPS)
	}
	step := 0.0
	if len(pf.Steps) > 0 {
		step = pf.Steps[0].Seconds
	}
	kept := false
	for _, s := range pf.Steps {
		kept = kept || s.Kept
	}
	switch {
	case kept && len(pf.Ladder) > 0 && pf.Ladder[0] < pf.RequestedQPS:
		why := pf.LadderNote
		if why == "" {
			why = "the scenario's own ladder"
		}
		return fmt.Sprintf("preflight: the ladder starts below %s (%s); ran at %d QPS, the highest of the ladder %s that a %.0f s load through the sidecars kept on schedule on this machine's %s",
			requested, why, pf.ChosenQPS, strings.Join(ladder, ", "), step, cpuCount(cpus))
	case pf.ChosenQPS == pf.RequestedQPS && kept:
		return fmt.Sprintf("preflight: this machine (%s) kept %s on schedule in %.0f s through the sidecars; ran at %d QPS",
			cpuCount(cpus), requested, step, pf.ChosenQPS)
	case kept:
		return fmt.Sprintf("preflight: %s needs more than this machine's %s; ran at %d QPS, the highest of the ladder %s that a %.0f s load through the sidecars kept on schedule",
			strings.ToUpper(requested[:1])+requested[1:], cpuCount(cpus), pf.ChosenQPS, strings.Join(ladder, ", "), step)
	default:
		return fmt.Sprintf("preflight: no load of the ladder %s kept its schedule on this machine's %s; ran at the lowest, %d QPS (expect an invalid run)",
			strings.Join(ladder, ", "), cpuCount(cpus), pf.ChosenQPS)
	}
}

// cpuCount is "1 CPU" or "n CPUs".
func cpuCount(n int) string {
	if n == 1 {
		return "1 CPU"
	}
	return strconv.Itoa(n) + " CPUs"
}

// applyPreflight runs the preflight when EnvPreflight is ladder and DAPR_PERF_QPS is not set
// (a load the user asked for is kept strictly), and lowers cfg.Main.QPS to the load it chose.
// Each step is a short load from the tester through its sidecar to the app's (preflightStepLength
// long, all together within preflightBudget); it stops at the first step that
// kept its schedule. It returns nil when no preflight ran.
func applyPreflight(ctx context.Context, t perf.TB, dep perf.Deployment, sc perf.Scenario, cfg *perf.RunConfig, sess perf.Session) (*perf.Preflight, error) {
	t.Helper()
	if cfg.Stepped != nil { // an earlier attempt was invalid at the load chosen: no new steps
		pf := *cfg.Stepped
		t.Log(pf.Note)
		return &pf, nil
	}
	if !preflightWanted(*cfg) {
		switch {
		case cfg.PreflightLadder && cfg.Main.HasExecutor():
			t.Logf("preflight: skipped, the driver's %s executor has no rate to step down", cfg.Main.Executor.Kind)
		case cfg.PreflightLadder:
			t.Logf("preflight: skipped, %s=%d is kept strictly", perf.EnvQPS, cfg.Main.QPS)
		}
		return nil, nil
	}
	tester, err := testers.NewGroup(dep, sc.TesterNames())
	if err != nil {
		return nil, err
	}
	pf := &perf.Preflight{RequestedQPS: cfg.Main.QPS, Ladder: ladderFrom(cfg.Main.QPS, sc.Ladder)}
	if pf.Ladder[0] < pf.RequestedQPS {
		pf.LadderNote = sc.LadderNote
	}
	routes := []perf.Route{sc.Main}
	if sc.PreflightBaseline {
		routes = append(routes, sc.Baseline)
	}
	step := preflightStepLength(len(pf.Ladder)*len(routes), cfg.Main.Duration)
	for _, q := range pf.Ladder {
		// The step of a rung is its worst route: the lowest QPS, the most behind, every error.
		var s perf.PreflightStep
		for i, route := range routes {
			p := cfg.Main
			p.QPS, p.Duration = q, step
			p, err := routed(dep, sc, route, p)
			if err != nil {
				return nil, err
			}
			done := sess.Phase(fmt.Sprintf("preflight %d QPS", q), step)
			r, err := testers.RunLoad(ctx, tester, p)
			done()
			if err != nil {
				return nil, fmt.Errorf("preflight at %d QPS: %w", q, err)
			}
			if i == 0 {
				s = perf.PreflightStep{QPS: q, Seconds: step.Seconds(), ActualQPS: r.ActualQPS, Behind: r.Schedule.BehindFraction(), Errors: r.Errors(), Kept: stepKept(r)}
				continue
			}
			s.ActualQPS = min(s.ActualQPS, r.ActualQPS)
			s.Behind = max(s.Behind, r.Schedule.BehindFraction())
			s.Errors += r.Errors()
			s.Kept = s.Kept && stepKept(r)
		}
		pf.Steps = append(pf.Steps, s)
		verdict := "kept"
		if !s.Kept {
			verdict = "not kept"
		}
		t.Logf("preflight: %d QPS for %v: achieved %.1f QPS, %.2f %% behind schedule, %d errors: %s",
			q, step, s.ActualQPS, 100*s.Behind, s.Errors, verdict)
		if s.Kept {
			pf.ChosenQPS = q
			break
		}
	}
	if pf.ChosenQPS == 0 {
		pf.ChosenQPS = pf.Ladder[len(pf.Ladder)-1]
	}
	pf.Note = preflightNote(*pf, runtime.NumCPU())
	cfg.Main.QPS = pf.ChosenQPS
	t.Log(pf.Note)
	return pf, nil
}
