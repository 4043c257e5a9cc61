package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"google.golang.org/grpc"
)

// GRPC serves s on ln until ctx is done, then stops it gracefully
// (GracefulStop) within ShutdownTimeout, and hard (Stop) after it.
// It returns nil after a clean stop, or the error that stopped it. A ctx done
// before s.Serve got to run (a SIGTERM right after the Announce line) is a
// clean stop too: s.Serve then closes ln and returns grpc.ErrServerStopped.
func GRPC(ctx context.Context, ln net.Listener, s *grpc.Server) error {
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ln) }()
	select {
	case err := <-errc: // Serve failed before any stop
		return fmt.Errorf("serve grpc: %w", err)
	case <-ctx.Done():
	}
	var err error
	if !gracefulStop(s, ShutdownTimeout) {
		err = fmt.Errorf("stop grpc: in-flight calls still running after %v, stopped hard", ShutdownTimeout)
	}
	// Serve returns nil once it served and was stopped, and ErrServerStopped when the stop
	// above ran before it; either way the stop was ours.
	if serr := <-errc; serr != nil && !errors.Is(serr, grpc.ErrServerStopped) {
		return fmt.Errorf("serve grpc: %w", serr)
	}
	return err
}

// gracefulStop runs s.GracefulStop for at most d, then s.Stop; it reports
// whether the graceful stop finished in time.
func gracefulStop(s *grpc.Server, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		s.GracefulStop()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		s.Stop() // also ends the GracefulStop above
		<-done
		return false
	}
}
