package perf

import (
	"time"
)

// Plan is what a scenario does with its deployments, between the configuration and the
// figures: the overhead plan (baseline and main rounds), the growth plan, and the plans of
// named loads, delivery, jobs, reminders and faults (package plan). The runner (package runner)
// configures it with everything else before any process starts, hands it a Session to start
// deployments and record phases in, then reads the exits, derives the figures and writes,
// pushes and summarises the result the same way for every plan.
//
// A Plan value is the scenario's data and is never written by a run: Configure returns a
// PlanRun that holds what one run resolved (as k6's executor config returns an executor), so
// a scenario value can run twice (the step-down ladder, a retry) or in two runs at once.
type Plan interface {
	// Kind names the plan in the result file (Report.Plan, one of the Kind* constants).
	Kind() string
	// Configure applies c.Env's overrides and validates the plan against sc, before any
	// process starts; it sets c's loads (Main, Warmup) and its plan-dependent fields, and
	// returns the run. An error names every bad field and variable (errors.Join).
	Configure(sc Scenario, c *RunConfig) (PlanRun, error)
}

// PlanRun is one run of a Plan, as its Configure resolved it.
type PlanRun interface {
	// Steps lists the run's phases and their expected durations, for the progress lines and
	// the plan-only pass.
	Steps(sc Scenario, c RunConfig) []Step
	// Run starts the deployments it needs through s and runs the phases, recording each into
	// s.Report() and checkpointing it. It returns the first error that stopped it.
	Run(s Session) error
	// Finish derives what only this plan knows (its validity, its checks, how complete it is)
	// once exits are in; runErr is what Run returned.
	Finish(s Session, runErr error)
}

// Laddered is a Plan whose load a preflight picks from a ladder (the overhead plan): when a
// full-length run at the picked load is invalid, the runner runs it again at the next rung.
type Laddered interface {
	Plan
	// Ladder is the loads (QPS, highest first) the preflight chooses from under c; none or
	// one when there is nothing to step down to.
	Ladder(sc Scenario, c RunConfig) []int
}

// UpperBounded is a Plan whose Steps are upper bounds rather than estimates (the iterations
// plan: each run ends when its iterations are done, at most at its MaxDuration).
type UpperBounded interface {
	Plan
	StepsAreUpperBounds() bool
}

// SingleBuild is a Plan that runs one daprd build only, even when an A/B run is asked for
// (DAPR_PERF_DAPRD_B): the growth plan, whose rounds read one sidecar's memory over time and
// are not interleaved between two builds. The scenarios' platform then starts build A alone.
type SingleBuild interface {
	Plan
	SingleBuild() bool
}

// RunConfig is one run's configuration as the runner resolved it and the plan completed it
// (Plan.Configure).
type RunConfig struct {
	// Env is the run's environment, read once by the runner (runner.LoadEnv) or given by its
	// caller (runner.WithEnv): every override below comes from it, and nothing reads the
	// process environment after.
	Env Env
	// Platform starts the deployments.
	Platform Platform
	// Main and Warmup are the loads of the main and warmup phases, after the env overrides
	// (Env.MainParams, Env.WarmupParams).
	Main, Warmup Params
	// Thresholds are the bounds the run is judged by, after the env overrides.
	Thresholds []Threshold
	// Rounds is the number of baseline/main rounds and Idle the idle window after them (the
	// overhead plan's; EnvRepeats, EnvIdleWindow).
	Rounds int
	Idle   time.Duration
	// ABMaxRounds is the rounds an A/B run may grow to while a gated figure is undecided
	// (EnvABMaxRounds; at least Rounds).
	ABMaxRounds int
	// ABGated are the A/B differences (Difference.Figure) whose verdicts decide when the run
	// stops adding rounds (EnvABGate; report.ABGatedFigures when unset).
	ABGated []string
	// ABSetAside is how many rounds of an A/B run may be set aside and run again because a
	// measured phase in them fell behind its schedule or missed its rate (EnvABSetAside).
	ABSetAside int
	// PreflightLadder is EnvPreflight=ladder: a preflight picks the main load from the ladder.
	PreflightLadder bool
	// Stepped is the preflight of an earlier attempt whose full-length run at the load it chose
	// was invalid: this attempt runs at Main.QPS without measuring again.
	Stepped *Preflight
	// Notes are what the overrides did or did not apply, for the result's warnings.
	Notes []string
}

// Step is one phase of a run's plan and its expected length.
type Step struct {
	Name     string
	Duration time.Duration
}

// Session is one run as a plan sees it. Package runner implements it.
type Session interface {
	// T is the run's test.
	T() TB
	// Run runs f as a subtest of the run's test named name, as testing.T.Run does: f's t ends
	// (and its deployments stop) before Run returns; Run reports whether f passed.
	Run(name string, f func(t TB)) bool
	// Scenario is the scenario being run.
	Scenario() Scenario
	// Config is the run's configuration; the plan may lower Main's QPS (the preflight).
	Config() *RunConfig
	// Report is the report being filled; the result file is rewritten from it at each
	// Checkpoint.
	Report() *Report
	// Deploy starts apps for t (torn down when t ends), each tester capped at loads, stamps the
	// environment into the report and checkpoints; a platform that cannot start fails t.
	Deploy(t TB, label string, apps []App, loads ...Params) Deployment
	// Phase logs the start of a phase planned to last d and returns the function that ends it.
	Phase(name string, d time.Duration) (done func())
	// WatchTester makes long phases log the tester's live rate and errors, read from tester
	// (a testers.Client).
	WatchTester(tester LiveSource)
	// Record samples the resources of dep's processes every Scenario().ResourceInterval() until
	// the returned stop, or the end of the run's test. stop returns one Series per process, in
	// Deployment.Processes order, each with its Role from roles (process name to role), and
	// logs how many readings failed, as what's: a failed reading is skipped and sampling goes
	// on. CPU is in cores over each interval, RSS in bytes (Sample).
	Record(dep Deployment, roles map[string]string, what string) (stop func() []Series)
	// Profile reads the pprof profiles of dep's sidecars during a measured load planned to
	// last d, named what, once per run and only with DAPR_PERF_PROFILES=on (SidecarProfiles);
	// stop, called when the load ends, waits for them, writes them beside the result file and
	// adds them to the report. Otherwise stop does nothing. A profile that cannot be read is
	// an entry of SidecarProfiles.Errors, never a failure of the run.
	Profile(dep Deployment, what string, d time.Duration) (stop func())
	// Checkpoint rewrites the result file after phase.
	Checkpoint(phase string)
	// InfraError records err as an infrastructure error of the run and fails the test.
	InfraError(what string, err error)
}
