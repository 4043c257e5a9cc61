package perf

import (
	"errors"
	"fmt"
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

// SetupParams returns su's Params: defaults, then su.Options, validated.
func (su Setup) SetupParams() (Params, error) {
	p := build(su.Options)
	if err := p.Validate(); err != nil {
		return Params{}, fmt.Errorf("setup %q: %w", su.Name, err)
	}
	return p, nil
}

// ValidateSetup checks every Setup's name and Params before anything starts.
func (sc Scenario) ValidateSetup() error {
	var errs []error
	for i, su := range sc.Setup {
		if su.Name == "" {
			errs = append(errs, fmt.Errorf("setup[%d]: Name must say what it is for", i))
		}
		if _, err := su.SetupParams(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
