package faults

import (
	"context"
	"math"
	"sync/atomic"
	"time"
)

// Injector applies Options to a stream of requests. It is safe for
// concurrent use; requests are numbered in the order Next is called.
type Injector struct {
	opts Options
	n    atomic.Uint64 // requests counted so far
}

// New returns an Injector for o. It panics if o is invalid: call
// o.Validate first where o comes from outside the program.
func New(o Options) *Injector {
	if err := o.Validate(); err != nil {
		panic("faults: " + err.Error())
	}
	return &Injector{opts: o}
}

// Options returns the options the Injector was made with.
func (in *Injector) Options() Options { return in.opts }

// Next counts one request and reports whether it must fail: request n
// (from 1) fails when floor(n*f) > floor((n-1)*f), f being FailFraction.
func (in *Injector) Next() bool {
	n := in.n.Add(1)
	return shouldFail(n, in.opts.FailFraction)
}

// Count returns how many requests Next has counted.
func (in *Injector) Count() uint64 { return in.n.Load() }

// Wait blocks for the Delay, or until ctx is done; then it returns ctx.Err().
// It returns nil at once when Delay is 0.
func (in *Injector) Wait(ctx context.Context) error {
	if in.opts.Delay <= 0 {
		return nil
	}
	t := time.NewTimer(in.opts.Delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// shouldFail is the deterministic decision for request n (from 1). The
// floors telescope: over requests 1..n exactly floor(n*f) fail.
func shouldFail(n uint64, f float64) bool {
	switch {
	case f <= 0:
		return false
	case f >= 1:
		return true
	}
	return math.Floor(float64(n)*f) > math.Floor(float64(n-1)*f)
}
