package perf

import (
	"errors"
	"fmt"
	"time"
)

// Setup is a load a run sends once before its first phase, through the tester, to put the
// deployment in the state its phases need: e.g. a state.save through daprd that seeds the
// key a state.get scenario then reads in both of its phases (through daprd, and straight
// from the store, where it reads the row daprd wrote).
//
//	perf.Setup{Name: "seed", Route: perf.Route{To: "tester", ThroughSidecar: true,
//		Operation: perf.Operation{Kind: perf.OpStateSave, Store: "statestore", Key: "abc123"}},
//		Options: []perf.Option{perf.WithQPS(10), perf.WithConnections(1), perf.WithDuration(time.Second), perf.WithPayloadSize(1024)}}
type Setup struct {
	// Name says what it is for, in the log and in errors ("seed abc123").
	Name string
	// Route is where it goes, as a phase's Route (routed over the scenario's transport).
	Route Route
	// Options build its Params (defaults, then Options; no env override applies: the setup
	// is not a measured phase). Its QPS, connections and duration must fit in the tester's
	// limits, which the scenario's own loads set (TesterLimitsFor).
	Options []Option
}

// setupParams are su's Params: defaults, then su.Options, validated.
func (su Setup) setupParams() (Params, error) {
	p := build(su.Options)
	if err := p.Validate(); err != nil {
		return Params{}, fmt.Errorf("setup %q: %w", su.Name, err)
	}
	return p, nil
}

// validateSetup checks every Setup's name and Params before anything starts.
func (sc Scenario) validateSetup() error {
	var errs []error
	for i, su := range sc.Setup {
		if su.Name == "" {
			errs = append(errs, fmt.Errorf("setup[%d]: Name must say what it is for", i))
		}
		if _, err := su.setupParams(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// runSetup sends each of sc.Setup through dep's tester, in order. A setup that cannot be
// routed, that the tester refuses, or that has any failed request (Result.Errors) or none at
// all is an error naming it, and the run stops before its first phase.
func runSetup(s *session, dep Deployment) error {
	if len(s.sc.Setup) == 0 {
		return nil
	}
	tester, err := NewTesterClient(dep, s.sc.Tester)
	if err != nil {
		return err
	}
	for _, su := range s.sc.Setup {
		p, err := su.setupParams()
		if err != nil {
			return err
		}
		if p, err = routed(dep, s.sc, su.Route, p); err != nil {
			return fmt.Errorf("setup %q: %w", su.Name, err)
		}
		start := time.Now()
		res, err := RunLoad(s.t.Context(), tester, p)
		if err != nil {
			return fmt.Errorf("setup %q: %w", su.Name, err)
		}
		if res.Requests == 0 || res.Errors() > 0 {
			return fmt.Errorf("setup %q: %d of %d requests failed (codes %v)", su.Name, res.Errors(), res.Requests, res.RetCodes)
		}
		s.t.Logf("setup %s: %d requests (%s %s), all succeeded, in %v", su.Name, res.Requests, p.Operation.Kind, p.Operation.Key, time.Since(start).Round(time.Millisecond))
	}
	return nil
}
