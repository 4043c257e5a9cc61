package tester

import (
	"context"
	"errors"
	"fmt"
	"time"

	"fortio.org/fortio/periodic"
	"fortio.org/log"
)

// callTimeout bounds one request of a custom runner, so a stuck call cannot hold a run.
const callTimeout = 5 * time.Second

// caller makes one request per call; each fortio thread (connection) owns one caller.
type caller interface {
	// call makes one request and returns its code (an HTTP status as text, or a gRPC status
	// name) and whether it succeeded.
	call(ctx context.Context) (code string, ok bool)
	// sockets is the number of TCP connections the caller opened so far.
	sockets() int64
	close() error
}

// connector is a caller that opens its connection before the load (gRPC): the load then starts
// on connections that are up, as a k6 script calls client.connect() before its first invoke
// (Dapr's gRPC perf tests do). A target not yet reachable, such as a Service whose rules a
// node's kube-proxy has not written yet, would otherwise fail the first requests and back the
// channel off for a second.
type connector interface {
	// awaitReady returns once the connection is up, or false when ctx ends first.
	awaitReady(ctx context.Context) bool
}

// connectTimeout bounds awaitConnected: after it the load starts anyway, and whatever the
// connections do then is measured and counted.
const connectTimeout = 5 * time.Second

// awaitConnected waits, within connectTimeout for all of them, until every caller that is a
// connector is connected; it returns how many were not.
func awaitConnected(callers []caller) int {
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	down := 0
	for _, c := range callers {
		if cc, ok := c.(connector); ok && !cc.awaitReady(ctx) {
			down++
		}
	}
	return down
}

// callerRunnable adapts a caller to fortio's periodic.Runnable and counts its codes. fortio runs
// each Runnable on one goroutine, so the map needs no lock.
type callerRunnable struct {
	c     caller
	codes map[string]int64
}

func (r *callerRunnable) Run(ctx context.Context, _ periodic.ThreadID) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	code, ok := r.c.call(ctx)
	r.codes[code]++
	return ok, code
}

// runCustom paces callers with fortio's periodic runner: one caller per connection, made by
// newCaller, all closed at the end. It returns fortio's results, the merged code counts and
// the sockets the callers opened.
func runCustom(ro periodic.RunnerOptions, connections int, newCaller func() (caller, error)) (periodic.RunnerResults, map[string]int64, int64, error) {
	// NewPeriodicRunner takes over ro and clears ro.Runners: fill the runner's own slice after.
	pr := periodic.NewPeriodicRunner(&ro)
	opts := pr.Options()
	runnables := make([]*callerRunnable, 0, connections)
	defer func() {
		for _, r := range runnables {
			_ = r.c.close()
		}
	}()
	for i := range opts.Runners {
		c, err := newCaller()
		if err != nil {
			opts.Abort()
			return periodic.RunnerResults{}, nil, 0, fmt.Errorf("tester: connection %d: %w", i, err)
		}
		r := &callerRunnable{c: c, codes: map[string]int64{}}
		runnables = append(runnables, r)
		opts.Runners[i] = r
	}
	callers := make([]caller, len(runnables))
	for i, r := range runnables {
		callers[i] = r.c
	}
	if down := awaitConnected(callers); down > 0 {
		log.Errf("tester: %d of %d connections not up after %v; the load starts anyway", down, len(callers), connectTimeout)
	}
	res := pr.Run()
	codes := map[string]int64{}
	var sockets int64
	for _, r := range runnables {
		for code, n := range r.codes {
			codes[code] += n
		}
		sockets += r.c.sockets()
	}
	if res.Error {
		return res, codes, sockets, errors.New("tester: fortio: " + res.Message)
	}
	return res, codes, sockets, nil
}
