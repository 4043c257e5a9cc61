package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// ShutdownTimeout bounds a graceful shutdown: in-flight requests get this
// long to finish before the server is closed hard. It is perf.AppShutdownTimeout, which the
// platforms' stop grace is derived from.
const ShutdownTimeout = perf.AppShutdownTimeout

// readHeaderTimeout bounds how long a client may take to send its headers.
const readHeaderTimeout = 10 * time.Second

// HTTP serves h on ln until ctx is done, then shuts down gracefully within
// ShutdownTimeout (http.Server.Shutdown), closing the server hard after it.
// It returns nil after a clean shutdown, or the error that stopped it.
func HTTP(ctx context.Context, ln net.Listener, h http.Handler) error {
	return Server(ctx, ln, &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout})
}

// Server is HTTP with a server of the caller's, for its own timeouts and limits.
func Server(ctx context.Context, ln net.Listener, srv *http.Server) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc: // Serve failed before any shutdown
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		err = errors.Join(fmt.Errorf("shutdown http within %v: %w", ShutdownTimeout, err), srv.Close())
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, fmt.Errorf("serve http: %w", serr))
	}
	return err
}
