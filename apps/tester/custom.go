package tester

import (
	"context"
	"errors"
	"fmt"
	"time"

	"fortio.org/fortio/periodic"
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
