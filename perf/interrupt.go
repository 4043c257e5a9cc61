package perf

import (
	"context"
	"os"
)

// interruptKey is the context key of WithInterruptHook.
type interruptKey struct{}

// WithInterruptHook returns ctx carrying fn, for Platform.Start: while the deployment started
// with ctx runs, the platform's signal handler calls fn with the signal (SIGINT, SIGTERM) before
// it stops the deployment's processes. The runner passes the rewriting of its result file,
// marked interrupted with the phases completed so far, so that a run cut short by a signal keeps
// what it measured. fn may be called more than once (once per deployment of the run).
func WithInterruptHook(ctx context.Context, fn func(os.Signal)) context.Context {
	return context.WithValue(ctx, interruptKey{}, fn)
}

// InterruptHook is the function WithInterruptHook put in ctx, or nil when none was given. A
// platform without a signal handler of its own (kube) has no use for it: the test binary dies
// of the signal, and the result file keeps its last checkpoint, marked incomplete.
func InterruptHook(ctx context.Context) func(os.Signal) {
	fn, _ := ctx.Value(interruptKey{}).(func(os.Signal))
	return fn
}
