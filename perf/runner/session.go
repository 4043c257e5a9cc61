package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/testers"
)

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
	// profiled are the profiling endpoints whose profiles the run has read (Profile): each
	// sidecar once, during its first measured load.
	profiled map[string]bool
}

// T is the run's test.
func (s *session) T() perf.TB { return s.t }

// Run runs f as a subtest of the run's test (testing.T.Run).
func (s *session) Run(name string, f func(t perf.TB)) bool {
	return s.t.Run(name, func(t *testing.T) { f(t) })
}

// Scenario is the scenario being run.
func (s *session) Scenario() perf.Scenario { return s.sc }

// Config is the run's configuration as the plan sees it.
func (s *session) Config() *perf.RunConfig { return &s.cfg.RunConfig }

// Report is the report being filled.
func (s *session) Report() *perf.Report { return s.rep }

// Phase logs the start of a phase planned to last d and returns the function that ends it.
func (s *session) Phase(name string, d time.Duration) (done func()) { return s.prog.phase(name, d) }

// WatchTester makes long phases log tester's live rate and errors.
func (s *session) WatchTester(tester perf.LiveSource) { s.prog.watchTester(tester) }

// deployed is one deployment the session started; label prefixes its processes in exits ("" for
// a scenario's only deployment).
type deployed struct {
	dep   perf.Deployment
	label string
	read  bool
}

// Deploy starts apps for t (the platform tears them down when t ends), with each tester capped
// at loads (withTesterLimits), stamps the daprd version into the report and checkpoints. The
// deployment's exits are read before its teardown (a cleanup registered after the platform's
// runs first), or when the runner asks for them after the plan, whichever comes first. The
// start context tells the platform where to keep the logs of a failed test (perf.WithLogsDir)
// and what to call on a signal (perf.WithInterruptHook: the result file's interrupt). A
// platform that cannot start fails t (Platform.Start).
func (s *session) Deploy(t perf.TB, label string, apps []perf.App, loads ...perf.Params) perf.Deployment {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	ctx = perf.WithLogsDir(ctx, logsDir(s.rf.Path(), t.Name(), label))
	ctx = perf.WithInterruptHook(ctx, s.rf.interrupt)
	dep := s.cfg.Platform.Start(ctx, t, withTesterLimits(apps, loads...)...)
	cancel()
	d := &deployed{dep: dep, label: label}
	s.mu.Lock()
	s.deps = append(s.deps, d)
	s.mu.Unlock()
	t.Cleanup(func() { s.readExits(d) })
	if s.rep.Environment.DaprVersion == "" {
		s.rep.Environment.DaprVersion = dep.DaprVersion()
	}
	if p, ok := dep.(perf.DaprdPather); ok && s.rep.Environment.Daprd == nil && p.DaprdPath() != "" {
		b, err := readDaprdBuild(p.DaprdPath(), daprdModule, moduleCache())
		if err != nil {
			t.Logf("%v (left out of the result file)", err)
		} else {
			s.rep.Environment.Daprd = b
		}
	}
	for _, b := range perf.BackendsOf(dep) { // a growth plan's variants start the same ones again
		if !slices.ContainsFunc(s.rep.Environment.Backends, func(o perf.BackendInfo) bool { return o.Backend == b.Backend && o.Version == b.Version }) {
			s.rep.Environment.Backends = append(s.rep.Environment.Backends, b)
		}
	}
	if sec, ok := dep.(perf.Secured); ok && s.rep.Environment.MTLS == nil {
		on := sec.MTLS()
		s.rep.Environment.MTLS = &on
	}
	if p, ok := dep.(perf.Placed); ok {
		ctx, cancel := context.WithTimeout(t.Context(), exitsTimeout)
		nodes, err := p.Nodes(ctx)
		cancel()
		if err != nil {
			t.Logf("nodes of the deployment: %v (left out of the result file)", err)
		}
		for proc, node := range nodes {
			if s.rep.Environment.Nodes == nil {
				s.rep.Environment.Nodes = map[string]string{}
			}
			s.rep.Environment.Nodes[proc] = node
		}
	}
	s.Checkpoint("platform start" + labelSuffix(label))
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

// Checkpoint rewrites the result file after phase; a failed write fails the test, and the run
// goes on.
func (s *session) Checkpoint(phase string) {
	s.t.Helper()
	if err := s.rf.checkpoint(s.rep, phase); err != nil {
		s.t.Errorf("%v", err)
	}
}

// InfraError records err as an infrastructure error of the run and fails the test.
func (s *session) InfraError(what string, err error) {
	s.t.Helper()
	s.t.Errorf("%s/%s: %s: %v", s.sc.Test, s.sc.Transport, what, err)
	s.rep.InfraErrors = append(s.rep.InfraErrors, fmt.Sprintf("%s: %v", what, err))
}

// progressTick is how often a long phase reports that it is still going.
const progressTick = 10 * time.Second

// phaseOverhead is what each load phase costs beyond its duration (the tester's start and its
// answer), for the expected time; measured on the local platform at about 0.5 s.
const phaseOverhead = 500 * time.Millisecond

// progress logs a run's plan before it starts, then one line per phase with the elapsed time
// and the expected time left, and every progressTick of a phase that lasts at least twice as
// long, how far it is, with the tester's live QPS, requests and errors once watchTester has
// named the tester (testers.Watch). Safe to use from one goroutine; its ticker runs in its own.
type progress struct {
	t        testing.TB
	start    time.Time
	expected time.Duration   // the whole plan
	planned  time.Duration   // the phases started so far, as planned
	tester   perf.LiveSource // set by watchTester: ticks show its live figures
	mu       sync.Mutex
}

// newProgress logs the plan of sc (its steps, Plan.Steps) on the named platform and its
// expected duration, and starts the clock.
func newProgress(t testing.TB, sc perf.Scenario, plan []perf.Step, platform string) *progress {
	t.Helper()
	p := &progress{t: t, start: time.Now()}
	names := make([]string, len(plan))
	for i, ph := range plan {
		names[i] = ph.Name
		p.expected += ph.Duration + phaseOverhead
	}
	t.Logf("plan: %s/%s on %s, %d phases, expected about %v after start-up:\n  %s", sc.Test, sc.Transport,
		platform, len(plan), p.expected.Round(time.Second), strings.Join(names, "\n  "))
	return p
}

// phase logs the start of a phase planned to last d, with the elapsed time and the expected
// time left, and returns the function that ends it. A nil progress does nothing.
func (p *progress) phase(name string, d time.Duration) (done func()) {
	if p == nil {
		return func() {}
	}
	p.t.Helper()
	p.mu.Lock()
	elapsed := time.Since(p.start)
	left := max(0, p.expected-p.planned)
	p.planned += d + phaseOverhead
	tester := p.tester
	p.mu.Unlock()
	p.t.Logf("[%v elapsed, about %v left] %s (%v)", elapsed.Round(time.Second), left.Round(time.Second), name, d)
	if d >= 2*progressTick && tester != nil {
		return testers.Watch(tester, progressTick, func(since time.Duration, lp perf.LiveProgress, err error) {
			p.t.Log(liveLine(name, since, d, lp, err))
		})
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	if d >= 2*progressTick {
		began := time.Now()
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(progressTick)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					p.t.Logf("  %s: %v of %v", name, time.Since(began).Round(time.Second), d)
				}
			}
		}()
	}
	var once sync.Once
	return func() {
		once.Do(func() { close(stop); wg.Wait() })
	}
}

// liveLine is one progress line of a phase: its name, how far it is, and the tester's live
// reading or why there is none.
func liveLine(name string, since, d time.Duration, lp perf.LiveProgress, err error) string {
	live := lp.String()
	if err != nil {
		live = "live figures unavailable: " + err.Error()
	}
	return fmt.Sprintf("  %s: %v of %v; %s", name, since.Round(time.Second), d, live)
}

// watchTester makes every phase of p that lasts at least twice progressTick log, every
// progressTick, the tester's live QPS, requests and errors (testers.Watch) instead of its elapsed
// time alone. A nil progress ignores it.
func (p *progress) watchTester(tester perf.LiveSource) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.tester = tester
	p.mu.Unlock()
}
