package faults

import (
	"context"
	"math"
	"runtime"
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

// timerSlack is how late a Go timer may fire: when the process is otherwise idle the
// runtime's netpoller sleeps in whole milliseconds, so a 1 ms timer often fires after 1.3 to
// 2 ms. Wait sleeps on a timer until timerSlack before the deadline and yields the rest.
const timerSlack = time.Millisecond

// Wait blocks for the Delay, measured from its call, or until ctx is done; then it returns
// ctx.Err(). It returns nil at once when Delay is 0. It keeps to the Delay within tens of
// microseconds (a calibration delay of 1 ms must read as 1 ms, not as the timer's 1.4): it
// sleeps on a timer until timerSlack before the deadline, then yields (runtime.Gosched) until
// the deadline, which costs up to timerSlack of CPU per request.
func (in *Injector) Wait(ctx context.Context) error {
	if in.opts.Delay <= 0 {
		return nil
	}
	deadline := time.Now().Add(in.opts.Delay)
	if d := in.opts.Delay - timerSlack; d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	for time.Now().Before(deadline) {
		if err := ctx.Err(); err != nil {
			return err
		}
		runtime.Gosched()
	}
	return ctx.Err()
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
