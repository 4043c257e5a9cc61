package perf

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// GrowthScenario measures sidecar memory across rounds of load and an idle window, for several
// variants of one deployment (method names, daprd flags, Configuration); see RunGrowth.
type GrowthScenario struct {
	// Test names the scenario in reports, e.g. "memory_growth".
	Test     string
	Variants []GrowthVariant
	// Rounds (K), RequestsPerRound (M) and Idle: defaults 3, 3,000 and 30 s; env
	// DAPR_PERF_GROWTH_ROUNDS, DAPR_PERF_GROWTH_REQUESTS, DAPR_PERF_GROWTH_IDLE override them.
	Rounds           int
	RequestsPerRound int
	Idle             time.Duration
	// QPS and Connections of each round's load (requests/s; M must be a multiple of
	// Connections so that each round sends exactly M requests).
	QPS, Connections int
	// ExpectedVerdicts is the path of the expected-verdicts table (ReadGrowthExpectations),
	// relative to the repo root unless absolute; "" compares with nothing.
	ExpectedVerdicts string
}

// GrowthVariant is one deployment of a GrowthScenario.
type GrowthVariant struct {
	// Name is a short label, e.g. "b-unique".
	Name string
	// Description says what differs, for the table.
	Description string
	Apps        []App
	// Tester is the load generator's app name; Route is where its load goes (through its
	// sidecar); UniquePath appends a fresh "/<uuid>" to the method of every request.
	Tester     string
	Route      Route
	UniquePath bool
	// Control marks the control variant, whose noise sets the growth threshold and which must
	// be flat (the fixed method); at most one variant.
	Control bool
}

// Env variables of the growth scenario.
const (
	EnvGrowthRounds   = "DAPR_PERF_GROWTH_ROUNDS"   // K, 2 to 20
	EnvGrowthRequests = "DAPR_PERF_GROWTH_REQUESTS" // M, 100 to 1,000,000, a multiple of the connections
	EnvGrowthIdle     = "DAPR_PERF_GROWTH_IDLE"     // a Go duration, 0s to 1h
)

// withEnv returns the scenario with its defaults and env overrides applied, or an error naming
// each bad variable.
func (g GrowthScenario) withEnv() (GrowthScenario, error) {
	if g.Rounds == 0 {
		g.Rounds = 3
	}
	if g.RequestsPerRound == 0 {
		g.RequestsPerRound = 3000
	}
	if g.Idle == 0 {
		g.Idle = 30 * time.Second
	}
	var errs []error
	intEnv := func(name string, dst *int, lo, hi int) {
		raw, ok := os.LookupEnv(name)
		if !ok {
			return
		}
		v, err := strconv.Atoi(raw)
		if err != nil || v < lo || v > hi {
			errs = append(errs, fmt.Errorf("%s=%q: must be an integer from %d to %d", name, raw, lo, hi))
			return
		}
		*dst = v
	}
	intEnv(EnvGrowthRounds, &g.Rounds, 2, 20)
	intEnv(EnvGrowthRequests, &g.RequestsPerRound, 100, 1_000_000)
	if raw, ok := os.LookupEnv(EnvGrowthIdle); ok {
		d, err := time.ParseDuration(raw)
		if err != nil || d < 0 || d > time.Hour {
			errs = append(errs, fmt.Errorf("%s=%q: must be a Go duration from 0s to 1h, such as 30s", EnvGrowthIdle, raw))
		} else {
			g.Idle = d
		}
	}
	if g.Connections < 1 || g.QPS < 1 {
		errs = append(errs, fmt.Errorf("growth scenario %s: QPS and Connections must be >= 1", g.Test))
	} else if g.RequestsPerRound%g.Connections != 0 {
		errs = append(errs, fmt.Errorf("requests per round (%s) = %d: must be a multiple of the %d connections", EnvGrowthRequests, g.RequestsPerRound, g.Connections))
	}
	if len(g.Variants) == 0 {
		errs = append(errs, fmt.Errorf("growth scenario %s: no variants", g.Test))
	}
	names := map[string]bool{}
	controls := 0
	for _, v := range g.Variants {
		if v.Name == "" || names[v.Name] {
			errs = append(errs, fmt.Errorf("growth scenario %s: variant name %q: must be set and unique", g.Test, v.Name))
		}
		names[v.Name] = true
		if v.Control {
			controls++
		}
	}
	if controls > 1 {
		errs = append(errs, fmt.Errorf("growth scenario %s: %d variants have Control set: at most one may", g.Test, controls))
	}
	if err := errors.Join(errs...); err != nil {
		return GrowthScenario{}, fmt.Errorf("perf: %s: %w", g.Test, err)
	}
	return g, nil
}

// control returns the name of g's control variant, or "".
func (g GrowthScenario) control() string {
	for _, v := range g.Variants {
		if v.Control {
			return v.Name
		}
	}
	return ""
}

// roundParams is the load of one round: exactly M requests, HTTP through the tester's sidecar.
func (g GrowthScenario) roundParams() Params {
	p := DefaultParams()
	p.QPS, p.Connections = g.QPS, g.Connections
	p.Duration = time.Duration(g.RequestsPerRound) * time.Second / time.Duration(g.QPS)
	return p
}
