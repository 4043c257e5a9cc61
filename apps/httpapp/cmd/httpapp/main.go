// Command httpapp is the HTTP test app (package httpapp) on 127.0.0.1.
//
//	httpapp [-port 0] [-host 127.0.0.1] [-fail-fraction 0] [-delay 0s]
//
// Once it listens it prints one line, "listening on 127.0.0.1:<port>", to
// stdout. SIGTERM or SIGINT shut it down gracefully (5 s at most) and it
// exits 0; bad flags exit 2 with a message naming the flag.
package main

import (
	"context"
	"net"
	"os"

	"github.com/daprperf/daprperf/apps/httpapp"
	"github.com/daprperf/daprperf/apps/internal/faults"
	"github.com/daprperf/daprperf/apps/internal/serve"
)

func main() {
	os.Exit(serve.Main("httpapp", os.Args[1:], os.Stdout, os.Stderr,
		func(ctx context.Context, ln net.Listener, o faults.Options) error {
			return serve.HTTP(ctx, ln, httpapp.NewHandler(o))
		}))
}
