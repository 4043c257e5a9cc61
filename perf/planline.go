package perf

import (
	"encoding/json"
	"fmt"
)

// EnvPlanOnly turns on the plan-only dry run: "1" or "true" makes Run print the scenario's
// plan and return before anything starts (make perf-plan; cmd/perfsuite runs such a pass
// before every make perf). "0", "false" or unset run normally; any other value is an error
// naming the variable.
const EnvPlanOnly = "DAPR_PERF_PLAN_ONLY"

// PlanLinePrefix starts the one line a plan-only run prints per scenario, followed by the
// JSON of a PlanLine: cmd/perfsuite finds the lines by it in the test binaries' output.
const PlanLinePrefix = "daprperf-plan "

// PlanLine is a scenario's plan as the plan-only dry run prints it (PlanLinePrefix + JSON):
// what it would run and how long that is expected to take. Durations are in seconds.
type PlanLine struct {
	// Package is the test package, relative to the repository root ("tests/jobs"); Test the
	// go test name (t.Name(), with its subtests).
	Package string `json:"package"`
	Test    string `json:"test"`
	// Scenario and Transport name the result folder (Scenario.Test, Scenario.Transport).
	Scenario  string `json:"scenario"`
	Transport string `json:"transport"`
	// Plan is the plan's kind (Report.Plan); Platform where it would run.
	Plan     string `json:"plan"`
	Platform string `json:"platform"`
	// QPS, Connections and DurationSeconds are the main phase's load after the env overrides
	// (QPS 0 for a max-rate or closed-loop load); WarmupQPS and WarmupSeconds the warmup's.
	QPS             int     `json:"qps"`
	Connections     int     `json:"connections"`
	DurationSeconds float64 `json:"durationSeconds"`
	WarmupQPS       int     `json:"warmupQPS"`
	WarmupSeconds   float64 `json:"warmupSeconds"`
	// Phases are the plan's steps as the run's progress lines name them (Plan.Steps), each
	// with its planned length.
	Phases []PlanLinePhase `json:"phases"`
	// PhaseOverheadSeconds is what each phase is expected to cost beyond its length
	// (runner.phaseOverhead: the tester's start and answer, measured at about 0.5 s).
	PhaseOverheadSeconds float64 `json:"phaseOverheadSeconds"`
	// ExpectedSeconds = sum over Phases of (Seconds + PhaseOverheadSeconds): the same
	// expected time the run's own plan line logs ("expected about ..."). The platform's
	// start-up (about 1 s a deployment with the binaries built) and the go test binary's
	// build are not in it.
	ExpectedSeconds float64 `json:"expectedSeconds"`
	// UpToSeconds is the part of ExpectedSeconds that is an upper bound rather than an
	// expectation: closed-loop runs that end when their iterations are done, planned at
	// their maxDuration (IterationsPlan). 0 for plans of fixed-length phases.
	UpToSeconds float64 `json:"upToSeconds,omitempty"`
	// Warnings are what the plan pass has to say before any load: each DAPR_PERF_* variable
	// that is set but that daprperf does not read (UnknownEnv), with the nearest name.
	Warnings []string `json:"warnings,omitempty"`
}

// PlanLinePhase is one step of a PlanLine.
type PlanLinePhase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	// UpTo is set when Seconds is the phase's bound, not its expected length.
	UpTo bool `json:"upTo,omitempty"`
}

// UpperBounded reports whether the scenario's steps are upper bounds rather than expected
// lengths (perf.UpperBounded: a closed loop that ends when its iterations are done, planned at
// its maxDuration), as its phases say (PlanLinePhase.UpTo).
func (l PlanLine) UpperBounded() bool {
	for _, p := range l.Phases {
		if p.UpTo {
			return true
		}
	}
	return false
}

// String is the line as printed: PlanLinePrefix and the JSON.
func (l PlanLine) String() string {
	b, err := json.Marshal(l)
	if err != nil { // a PlanLine has no values json cannot encode
		panic(fmt.Sprintf("perf: plan line: %v", err))
	}
	return PlanLinePrefix + string(b)
}
