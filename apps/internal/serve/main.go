package serve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"

	"github.com/daprperf/daprperf/apps/internal/faults"
)

// Exit codes returned by Main.
const (
	ExitOK    = 0 // stopped by a signal and shut down cleanly
	ExitError = 1 // could not listen, or the server failed
	ExitUsage = 2 // bad flags
)

// RunFunc serves on ln with the faults o until ctx is canceled (by SIGTERM
// or SIGINT), then shuts down; serve.HTTP and serve.GRPC do both.
type RunFunc func(ctx context.Context, ln net.Listener, o faults.Options) error

// Main is the whole of a test app's main: it parses args with
// ParseAppFlags, listens on -host (default Host), writes the Announce line to stdout,
// and runs run until SIGTERM or SIGINT. It returns the exit code: ExitOK
// after a clean stop, ExitUsage for bad flags (the message names the flag),
// ExitError otherwise. Errors go to stderr prefixed with name.
func Main(name string, args []string, stdout, stderr io.Writer, run RunFunc) int {
	f, err := ParseAppFlags(name, args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		return ExitUsage
	}
	ctx, stop := SignalContext(context.Background()) // before Announce: see SignalContext
	defer stop()
	return ListenAndRun(ctx, name, f.Host, f.Port, stdout, stderr, func(ctx context.Context, ln net.Listener) error {
		return run(ctx, ln, f.Faults)
	})
}

// ListenAndRun is the end of every app's main once its flags are parsed: it listens on
// host:port (port 0: a free one), writes the Announce line to stdout and runs run on the
// listener until ctx is done (run must close ln when it returns; serve.HTTP and serve.GRPC
// do). It returns ExitOK when run returns nil, else ExitError with the error on stderr
// prefixed with name (a listen, announce or serve failure).
func ListenAndRun(ctx context.Context, name, host string, port int, stdout, stderr io.Writer, run func(context.Context, net.Listener) error) int {
	ln, err := ListenOn(host, port)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitError
	}
	if err := Announce(stdout, ln); err != nil {
		_ = ln.Close()
		_, _ = fmt.Fprintf(stderr, "%s: announce: %v\n", name, err)
		return ExitError
	}
	if err := run(ctx, ln); err != nil {
		_, _ = fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitError
	}
	return ExitOK
}
