// Command grpcapp is the gRPC test app (package grpcapp) on 127.0.0.1.
//
//	grpcapp [-port 0] [-host 127.0.0.1] [-fail-fraction 0] [-delay 0s]
//
// Once it listens it prints one line, "listening on 127.0.0.1:<port>", to
// stdout. SIGTERM or SIGINT stop it gracefully (GracefulStop, then Stop
// after 5 s) and it exits 0; bad flags exit 2 with a message naming the flag.
package main

import (
	"context"
	"net"
	"os"

	"github.com/daprperf/daprperf/apps/grpcapp"
	"github.com/daprperf/daprperf/apps/internal/faults"
	"github.com/daprperf/daprperf/apps/internal/serve"
)

func main() {
	os.Exit(serve.Main("grpcapp", os.Args[1:], os.Stdout, os.Stderr,
		func(ctx context.Context, ln net.Listener, o faults.Options) error {
			return serve.GRPC(ctx, ln, grpcapp.NewServer(o))
		}))
}
