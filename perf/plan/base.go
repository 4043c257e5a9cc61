package plan

import (
	"fmt"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/testers"
)

// The bases the plans share: the steps of a run (connect to the tester, the discarded warmup,
// the measured phase), the run state of the plans of named loads (stages, iterations, faults),
// the end of the plans judged by counts (delivery, jobs, reminders), and configuration checks.

// startTester returns the client of the scenario's testers in dep (one, or a group that splits
// each load: Scenario.TesterReplicas), the first watched by the progress lines (live QPS and
// errors). Errors: a tester's endpoint or token is unknown to dep.
func startTester(s perf.Session, dep perf.Deployment) (testers.Client, error) {
	tester, err := testers.NewGroup(dep, s.Scenario().TesterNames())
	if err != nil {
		return testers.Client{}, err
	}
	s.WatchTester(tester)
	return tester, nil
}

// runWarmup runs warm on tester as the progress phase "warmup (discarded)<what>" of about d
// (0: unknown), and returns its result, which no figure uses. Errors: the load failed, wrapped
// with "warmup: ".
func runWarmup(s perf.Session, tester testers.Client, warm perf.Params, what string, d time.Duration) (perf.Result, error) {
	res, err := runPhase(s, tester, perf.Step{Name: "warmup (discarded)" + what, Duration: d}, warm)
	if err != nil {
		return perf.Result{}, fmt.Errorf("warmup: %w", err)
	}
	return res, nil
}

// deployAndWarm deploys the scenario's apps, each tester capped at the warmup and loads, connects
// to the testers and runs the warmup through the Main route, its result discarded: the start of
// the plans that run fixed-rate loads of the Main route (stages, curve, faults). Errors: the
// testers' or the warmup's.
func deployAndWarm(s perf.Session, loads ...perf.Params) (perf.Deployment, testers.Client, error) {
	t, sc, cfg := s.T(), s.Scenario(), s.Config()
	dep := s.Deploy(t, "", sc.Apps, append([]perf.Params{cfg.Warmup}, loads...)...)
	tester, err := startTester(s, dep)
	if err != nil {
		return nil, testers.Client{}, err
	}
	warm, err := routed(dep, sc, sc.Main, cfg.Warmup)
	if err != nil {
		return nil, testers.Client{}, fmt.Errorf("warmup: %w", err)
	}
	if _, err := runWarmup(s, tester, warm, fmt.Sprintf(", %d QPS to %s", warm.QPS, warm.Target), warm.Duration); err != nil {
		return nil, testers.Client{}, err
	}
	return dep, tester, nil
}

// runPhase runs p on tester as the progress phase (its line and expected length).
func runPhase(s perf.Session, tester testers.Client, phase perf.Step, p perf.Params) (perf.Result, error) {
	defer s.Phase(phase.Name, phase.Duration)()
	return testers.RunLoad(s.T().Context(), tester, p)
}

// measure runs p on tester as the progress phase, recording dep's resources meanwhile
// (Session.Record, what naming the load) and, the first time in a run, its sidecars' profiles
// (Session.Profile), and returns the load's result, the series and the load's error: the
// measured phase of every plan that samples resources during one load.
func measure(s perf.Session, dep perf.Deployment, tester testers.Client, phase perf.Step, p perf.Params, roles map[string]string, what string) (perf.Result, []perf.Series, error) {
	stop := s.Record(dep, roles, what)
	stopProfiles := s.Profile(dep, what, phase.Duration)
	res, err := runPhase(s, tester, phase, p)
	stopProfiles()
	return res, stop(), err
}

// namedLoads is the run state of the plans that run named loads one after another (stages,
// iterations, faults): each load is measured and recorded, and the report finished, the same
// way. A plan sets it afresh as its Run starts.
type namedLoads struct {
	prefix string          // before a load's name in logs, checkpoints, errors and phases: "stage ", "run " or ""
	series [][]perf.Series // each completed load's resources, in Report.Loads' order
}

// measureLoad measures p (measure) and records it as the load name in the report, then
// checkpoints. Errors: the load's, wrapped with its prefixed name.
func (l *namedLoads) measureLoad(s perf.Session, dep perf.Deployment, tester testers.Client, name string, phase perf.Step, p perf.Params, roles map[string]string) (perf.Result, error) {
	label := l.prefix + name
	res, series, err := measure(s, dep, tester, phase, p, roles, label)
	if err != nil {
		return res, fmt.Errorf("%s: %w", label, err)
	}
	s.Report().Loads = append(s.Report().Loads, perf.NamedLoad{Name: name, Result: res})
	l.series = append(l.series, series)
	s.Checkpoint(label)
	return res, nil
}

// finish takes the validity of every load, the resources over all loads and how complete the
// run is, of want loads each called noun ("no stage completed", "1 of 2 stages completed"),
// with runErr (nil for none) as an infrastructure error. noGrowth is the warning that memory
// growth is not classified, and why; "" classifies it.
func (l *namedLoads) finish(s perf.Session, want int, noun, noGrowth string, runErr error) {
	r := s.Report()
	r.Validity = report.PhaseValidity(namedResults(r.Loads, l.prefix))
	if len(r.Loads) == 0 {
		r.Validity = perf.Validity{Reasons: []string{"no " + noun + " completed"}}
	}
	var rounds []perf.Round // each load as the main phase of a round, for the resource summary
	for i, ld := range r.Loads {
		rd := perf.Round{Main: ld.Result}
		if i < len(l.series) {
			rd.Resources = l.series[i]
		}
		rounds = append(rounds, rd)
	}
	switch {
	case len(rounds) == 0:
	case noGrowth == "":
		r.Resources = report.SummariseResources(rounds, nil)
	default:
		r.Resources = report.ResourcesWithoutGrowth(rounds)
		r.Warnings = append(r.Warnings, noGrowth)
	}
	addRunError(r, "load", runErr)
	if len(r.Loads) < want {
		r.Incomplete = true
		r.IncompleteReason = fmt.Sprintf("%d of %d %ss completed", len(r.Loads), want, noun)
		if runErr != nil {
			r.IncompleteReason += ": " + runErr.Error()
		}
	}
}

// namedResults are loads for report.PhaseValidity, each named prefix + its name.
func namedResults(loads []perf.NamedLoad, prefix string) []report.NamedResult {
	var out []report.NamedResult
	for i := range loads {
		out = append(out, report.NamedResult{Name: prefix + loads[i].Name, Res: &loads[i].Result})
	}
	return out
}

// addRunError records runErr, what Run returned (nil for none), as the infrastructure error
// "<what>: <runErr>".
func addRunError(r *perf.Report, what string, runErr error) {
	if runErr != nil {
		r.InfraErrors = append(r.InfraErrors, what+": "+runErr.Error())
	}
}

// finishCounted ends the report of a plan judged by counts (delivery, jobs, reminders) once its
// validity and infrastructure errors are in: invalid and incomplete for notDone when done is
// false, else incomplete when it has infrastructure errors. It reports whether it is complete.
func finishCounted(r *perf.Report, done bool, notDone string) (complete bool) {
	switch {
	case !done:
		r.Validity = perf.Validity{Reasons: []string{notDone}}
		r.Incomplete, r.IncompleteReason = true, notDone
	case len(r.InfraErrors) > 0:
		r.Incomplete = true
		r.IncompleteReason = fmt.Sprintf("%d infrastructure error(s): %s", len(r.InfraErrors), r.InfraErrors[0])
	default:
		return true
	}
	return false
}

// loadParams sets cfg's main and warmup Params from sc's options (Env.MainParams, which
// applies Dapr's env overrides, and Env.WarmupParams), passing each error to add.
func loadParams(sc perf.Scenario, cfg *perf.RunConfig, add func(error)) {
	var err error
	cfg.Main, err = cfg.Env.MainParams(sc.MainOptions...)
	add(err)
	cfg.Warmup, err = cfg.Env.WarmupParams(sc.WarmupOptions...)
	add(err)
}

// problems collects a run's configuration errors, so that one error names every bad field
// and variable at once (errors.Join of them).
type problems []error

// add keeps err when it is not nil.
func (ps *problems) add(err error) {
	if err != nil {
		*ps = append(*ps, err)
	}
}

// validateNamed checks list, a plan's named loads (as "stage plan: Stages", each a noun), passing
// each error to add: at least one load, and names (name of each) matching perf.StageName and
// distinct.
func validateNamed[T any](list, noun string, loads []T, name func(T) string, add func(error)) {
	if len(loads) == 0 {
		add(fmt.Errorf("%s is empty: list at least one %s", list, noun))
	}
	seen := map[string]bool{}
	for i, ld := range loads {
		switch n := name(ld); {
		case !perf.StageName.MatchString(n):
			add(fmt.Errorf("%s[%d] (%q).Name = %q: must be lowercase letters, digits, '-' and '_', at most 63, matching %s", list, i, n, n, perf.StageName))
		case seen[n]:
			add(fmt.Errorf("%s[%d] (%q).Name = %q: must be distinct: used twice", list, i, n, n))
		default:
			seen[n] = true
		}
	}
}

// fieldCheck is one bound on a field of a plan's named load: the field's name and value, whether
// the bound holds, and what the field accepts (for the error).
type fieldCheck struct {
	field   string
	value   any
	ok      bool
	accepts string
}

// checkFields checks load i of list (as "stage plan: Stages"), named name, against checks in
// order. It passes add one error for the first that fails, naming the list, the index, the
// load, the field, its value and what it accepts, and reports whether every check held (a
// load's later bounds may assume the earlier ones).
func checkFields(list string, i int, name string, add func(error), checks ...fieldCheck) bool {
	for _, c := range checks {
		if !c.ok {
			add(fmt.Errorf("%s[%d] (%q).%s = %v: must be %s", list, i, name, c.field, c.value, c.accepts))
			return false
		}
	}
	return true
}
