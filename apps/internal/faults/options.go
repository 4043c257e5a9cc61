// Package faults holds the knobs the test apps share: a fixed delay added
// before every answer, a fraction of answers turned into failures, a
// fraction of answers given a longer fixed delay, and one stall that holds
// every answer for a while.
//
// Fractions are deterministic, not random: with a fraction f, request n
// (counted from 1) is chosen when floor(n*f) > floor((n-1)*f), so after n
// requests exactly floor(n*f) were. With f = 0.1 that is request 10, 20,
// 30, ... : one of every ten.
//
//	in := faults.New(faults.Options{FailFraction: 0.1, Delay: time.Millisecond})
//	req := in.Next()                      // count the request first
//	if err := req.Wait(ctx); err != nil { // then its delay, canceled with ctx
//		return err
//	}
//	if req.Fail { ... answer with an error ... }
package faults

import (
	"errors"
	"fmt"
	"time"
)

// Options configure the faults a test app injects. The zero value injects
// none: every request succeeds at once.
type Options struct {
	// FailFraction is the fraction of requests answered with a failure, in
	// [0, 1]: 0 never fails, 0.1 fails exactly 1 of every 10, 1 always fails.
	FailFraction float64 `json:"failFraction"`
	// Delay is a fixed wait added before every answer, failures included
	// (>= 0; 0 means none). It calibrates what the load generator measures.
	Delay time.Duration `json:"delay"`
	// SlowFraction is the fraction of requests, in [0, 1], that wait SlowDelay
	// instead of Delay (chosen like failures, independently of them).
	SlowFraction float64       `json:"slowFraction,omitempty"`
	SlowDelay    time.Duration `json:"slowDelay,omitempty"`
	// StallAt is the number (from 1) of the request that starts the stall: from
	// its arrival, every answer, of requests in flight or arriving, is held
	// until Stall has passed. 0 means no stall.
	StallAt uint64        `json:"stallAt,omitempty"`
	Stall   time.Duration `json:"stall,omitempty"`
}

// Validate reports every field out of its range; errors name the field.
func (o Options) Validate() error {
	var errs []error
	if err := CheckFailFraction(o.FailFraction); err != nil {
		errs = append(errs, fmt.Errorf("invalid FailFraction %v: %w", o.FailFraction, err))
	}
	if err := CheckDelay(o.Delay); err != nil {
		errs = append(errs, fmt.Errorf("invalid Delay %v: %w", o.Delay, err))
	}
	if err := CheckFailFraction(o.SlowFraction); err != nil {
		errs = append(errs, fmt.Errorf("invalid SlowFraction %v: %w", o.SlowFraction, err))
	}
	if err := CheckDelay(o.SlowDelay); err != nil {
		errs = append(errs, fmt.Errorf("invalid SlowDelay %v: %w", o.SlowDelay, err))
	}
	if err := CheckDelay(o.Stall); err != nil {
		errs = append(errs, fmt.Errorf("invalid Stall %v: %w", o.Stall, err))
	}
	return errors.Join(errs...)
}

// CheckFailFraction returns an error, without the field name, when f is not
// in [0, 1] (NaN included). Command lines use it to validate their flag.
func CheckFailFraction(f float64) error {
	if !(f >= 0 && f <= 1) {
		return errors.New("must be in [0, 1]")
	}
	return nil
}

// CheckDelay returns an error, without the field name, when d is negative.
func CheckDelay(d time.Duration) error {
	if d < 0 {
		return errors.New("must be >= 0")
	}
	return nil
}
