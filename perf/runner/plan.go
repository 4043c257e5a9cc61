package runner

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// runnable is a Plan this runner can run: each plan of this package. Run validates it with
// everything else before any process starts, hands it a session to start deployments and
// record phases in, then reads the exits, derives the figures and writes, pushes and
// summarises the result the same way for every plan.
type runnable interface {
	perf.Plan
	// configure applies the plan's env overrides and validates it against sc, before any
	// process starts; it may set cfg's plan-dependent fields.
	configure(sc perf.Scenario, cfg *runConfig) error
	// steps lists the plan's phases and their expected durations, for the progress lines.
	steps(sc perf.Scenario, cfg runConfig) []planPhase
	// run starts the deployments it needs through s and runs the phases, recording each into
	// s.rep and checkpointing it. It returns the first error that stopped it.
	run(s *session) error
	// finish derives what only this plan knows (its validity, its checks, how complete it is)
	// once exits are in; runErr is what run returned.
	finish(s *session, runErr error)
}

// scenarioPlan returns the scenario's plan: sc.Plan, or the overhead plan of its routes. A
// Plan that is not one of this package's fails its configuration (foreignPlan).
func scenarioPlan(sc perf.Scenario) runnable {
	if sc.Plan == nil {
		return OverheadPlan{}
	}
	if p, ok := sc.Plan.(runnable); ok {
		return p
	}
	return foreignPlan{sc.Plan}
}

// foreignPlan is a Plan of another package: its configuration fails, naming it.
type foreignPlan struct{ perf.Plan }

func (p foreignPlan) configure(perf.Scenario, *runConfig) error {
	return fmt.Errorf("plan %T (kind %q) is not a plan of package runner", p.Plan, p.Kind())
}
func (foreignPlan) steps(perf.Scenario, runConfig) []planPhase { return nil }
func (foreignPlan) run(*session) error                         { return nil }
func (foreignPlan) finish(*session, error)                     {}

// session is one run as a plan sees it: the test, the configuration, the report being filled
// and its result file, the progress log, and the deployments started so far.
type session struct {
	t    *testing.T
	sc   perf.Scenario
	cfg  *runConfig
	rep  *perf.Report
	rf   *runFile
	prog *progress

	mu   sync.Mutex
	deps []*deployed
}

// deployed is one deployment the session started; label prefixes its processes in exits ("" for
// a scenario's only deployment).
type deployed struct {
	dep   perf.Deployment
	label string
	read  bool
}

// deploy starts apps for t (the platform tears them down when t ends), with each tester capped
// at loads (withTesterLimits), stamps the daprd version into the report and checkpoints. The
// deployment's exits are read before its teardown (a cleanup registered after the platform's
// runs first), or when the runner asks for them after the plan, whichever comes first. A
// platform that cannot start fails t (Platform.Start).
func (s *session) deploy(t *testing.T, label string, apps []perf.App, loads ...perf.Params) perf.Deployment {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	dep := s.cfg.platform.Start(ctx, t, withTesterLimits(apps, loads...)...)
	cancel()
	d := &deployed{dep: dep, label: label}
	s.mu.Lock()
	s.deps = append(s.deps, d)
	s.mu.Unlock()
	t.Cleanup(func() { s.readExits(d) })
	if s.rep.Environment.DaprVersion == "" {
		s.rep.Environment.DaprVersion = dep.DaprVersion()
	}
	for _, b := range perf.BackendsOf(dep) { // a growth plan's variants start the same ones again
		if !slices.ContainsFunc(s.rep.Environment.Backends, func(o perf.BackendInfo) bool { return o.Backend == b.Backend && o.Version == b.Version }) {
			s.rep.Environment.Backends = append(s.rep.Environment.Backends, b)
		}
	}
	s.checkpoint("platform start" + labelSuffix(label))
	return dep
}

func labelSuffix(label string) string {
	if label == "" {
		return ""
	}
	return " (" + label + ")"
}

// exitsTimeout bounds reading one deployment's exits.
const exitsTimeout = 30 * time.Second

// readExits records d's unexpected exits and restarts once; a failed read is an
// infrastructure error.
func (s *session) readExits(d *deployed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.read {
		return
	}
	d.read = true
	// Not t.Context(): it is canceled before the cleanups that may call this run.
	ctx, cancel := context.WithTimeout(context.Background(), exitsTimeout)
	defer cancel()
	exits, err := d.dep.Exits(ctx)
	if err != nil {
		s.t.Errorf("%s/%s: read exits%s: %v", s.sc.Test, s.sc.Transport, labelSuffix(d.label), err)
		s.rep.InfraErrors = append(s.rep.InfraErrors, "read exits"+labelSuffix(d.label)+": "+err.Error())
	}
	for _, e := range exits {
		if d.label != "" {
			e.Process = d.label + "/" + e.Process
		}
		s.rep.Exits = append(s.rep.Exits, e)
	}
}

// readAllExits reads the exits of every deployment not read yet.
func (s *session) readAllExits() {
	s.mu.Lock()
	deps := append([]*deployed(nil), s.deps...)
	s.mu.Unlock()
	for _, d := range deps {
		s.readExits(d)
	}
}

// checkpoint rewrites the result file after phase; a failed write fails the test, and the run
// goes on.
func (s *session) checkpoint(phase string) {
	s.t.Helper()
	if err := s.rf.checkpoint(s.rep, phase); err != nil {
		s.t.Errorf("%v", err)
	}
}

// infraError records err as an infrastructure error of the run and fails the test.
func (s *session) infraError(what string, err error) {
	s.t.Helper()
	s.t.Errorf("%s/%s: %s: %v", s.sc.Test, s.sc.Transport, what, err)
	s.rep.InfraErrors = append(s.rep.InfraErrors, fmt.Sprintf("%s: %v", what, err))
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

// loadParams sets cfg's main and warmup Params from sc's options (NewParams, which applies
// Dapr's env overrides, and NewWarmupParams), passing each error to add.
func (cfg *runConfig) loadParams(sc perf.Scenario, add func(error)) {
	var err error
	cfg.main, err = perf.NewParams(sc.MainOptions...)
	add(err)
	cfg.warmup, err = perf.NewWarmupParams(sc.WarmupOptions...)
	add(err)
}
