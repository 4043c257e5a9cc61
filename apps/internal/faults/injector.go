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
	opts       Options
	n          atomic.Uint64 // requests counted so far
	stallUntil atomic.Int64  // Unix nanoseconds until which every answer is held; 0 before the stall
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

// Request is the fate of one request: whether it fails, and how long it waits.
type Request struct {
	// Fail: answer with a failure.
	Fail    bool
	delay   time.Duration
	in      *Injector
	arrived time.Time
}

// Next counts one request and decides its fate: request n (from 1) fails when
// floor(n*f) > floor((n-1)*f), f being FailFraction, and is slow by the same
// rule with SlowFraction. Request StallAt starts the stall.
func (in *Injector) Next() Request {
	n := in.n.Add(1)
	now := time.Now()
	r := Request{Fail: shouldFail(n, in.opts.FailFraction), delay: in.opts.Delay, in: in, arrived: now}
	if shouldFail(n, in.opts.SlowFraction) {
		r.delay = in.opts.SlowDelay
	}
	if in.opts.StallAt > 0 && n == in.opts.StallAt {
		in.stallUntil.Store(now.Add(in.opts.Stall).UnixNano())
	}
	return r
}

// Count returns how many requests Next has counted.
func (in *Injector) Count() uint64 { return in.n.Load() }

// timerSlack is how late a Go timer may fire: when the process is otherwise idle the
// runtime's netpoller sleeps in whole milliseconds, so a 1 ms timer often fires after 1.3 to
// 2 ms. Wait sleeps on a timer until timerSlack before the deadline and yields the rest.
const timerSlack = time.Millisecond

// Wait blocks for the request's delay, measured from its arrival (Next), and then for as long
// as the stall holds answers; or until ctx is done. It returns ctx.Err(), so nil at once when
// there is nothing to wait for. It keeps to the delay within tens of microseconds (a
// calibration delay of 1 ms must read as 1 ms, not as the timer's 1.4): it sleeps on a timer
// until timerSlack before the deadline, then yields (runtime.Gosched) until the deadline,
// which costs up to timerSlack of CPU per request.
func (r Request) Wait(ctx context.Context) error {
	if r.in == nil {
		return ctx.Err()
	}
	if err := waitUntil(ctx, r.arrived.Add(r.delay)); err != nil {
		return err
	}
	if until := r.in.stallUntil.Load(); until != 0 {
		if err := waitUntil(ctx, time.Unix(0, until)); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// waitUntil sleeps until deadline (see Request.Wait) or until ctx is done.
func waitUntil(ctx context.Context, deadline time.Time) error {
	if d := time.Until(deadline) - timerSlack; d > 0 {
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
	return nil
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
