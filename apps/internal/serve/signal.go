package serve

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// SignalContext returns a copy of parent that is canceled on the first
// SIGTERM or SIGINT. Call it before announcing readiness, so a signal sent
// right after the announcement stops the app gracefully instead of killing
// it. stop restores the default signal behaviour.
func SignalContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	return signal.NotifyContext(parent, syscall.SIGTERM, os.Interrupt)
}
