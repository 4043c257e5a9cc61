// Command workflowapp is the workflow worker (package workflowapp) on 127.0.0.1.
//
//	workflowapp [-port 0] [-host 127.0.0.1] [-dapr-grpc 127.0.0.1:$DAPR_GRPC_PORT]
//	            [-dapr-http http://127.0.0.1:$DAPR_HTTP_PORT] [-state-store statestore]
//	            [-wait-delay 0s] [-state-sleep 0s] [-cleanup]
//
// The local platform sets DAPR_GRPC_PORT and DAPR_HTTP_PORT for an app with a sidecar. The
// worker connects to daprd's gRPC API in the background, retrying every 200 ms (daprd starts
// after its app). Once it listens it prints "listening on 127.0.0.1:<port>". SIGTERM or SIGINT
// shut it down (5 s at most) and it exits 0; bad flags exit 2 naming the flag.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/daprperf/daprperf/apps/internal/serve"
	"github.com/daprperf/daprperf/apps/workflowapp"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// fromEnv is "<prefix><$name>", or "" when $name is unset.
func fromEnv(prefix, name string) string {
	if v := os.Getenv(name); v != "" {
		return prefix + v
	}
	return ""
}

func run(args []string, stdout, stderr io.Writer) int {
	c := serve.NewCommand("workflowapp", stderr)
	fs := c.FlagSet
	grpcAddr := fs.String("dapr-grpc", fromEnv("127.0.0.1:", "DAPR_GRPC_PORT"), "daprd's gRPC API, `host:port` (default from DAPR_GRPC_PORT)")
	httpAddr := fs.String("dapr-http", fromEnv("http://127.0.0.1:", "DAPR_HTTP_PORT"), "daprd's HTTP API base `URL`, for state_wf (default from DAPR_HTTP_PORT)")
	store := fs.String("state-store", "statestore", "state store component `name` of state_wf")
	waitDelay := fs.Duration("wait-delay", 0, "sleep between scheduling and waiting, a Go `duration` (Dapr's app: 500ms)")
	stateSleep := fs.Duration("state-sleep", 0, "sleep at the end of each state activity, a Go `duration` (Dapr's app: 1s)")
	cleanup := fs.Bool("cleanup", false, "after completion get, terminate, purge and get the instance again (Dapr's app does)")
	if code, ok := c.Parse(args); !ok {
		return code
	}
	usage := c.Usage
	switch {
	case *grpcAddr == "":
		return usage("-dapr-grpc: empty and DAPR_GRPC_PORT unset: need daprd's gRPC address")
	case *waitDelay < 0 || *stateSleep < 0:
		return usage("-wait-delay %v, -state-sleep %v: must be >= 0", *waitDelay, *stateSleep)
	}
	// passthrough: a loopback host:port, no resolver, no DNS.
	conn, err := grpc.NewClient("passthrough:///"+*grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return usage("-dapr-grpc %q: %v", *grpcAddr, err)
	}
	defer func() { _ = conn.Close() }()
	app, err := workflowapp.New(workflowapp.Options{Conn: conn, DaprHTTP: *httpAddr, StateStore: *store,
		WaitDelay: *waitDelay, StateSleep: *stateSleep, Cleanup: *cleanup})
	if err != nil {
		return usage("%v", err)
	}
	ctx, stop := serve.SignalContext(context.Background())
	defer stop()
	if err := app.Start(ctx, 200*time.Millisecond); err != nil {
		_, _ = fmt.Fprintf(stderr, "workflowapp: %v\n", err)
		return serve.ExitError
	}
	return serve.ListenAndRun(ctx, "workflowapp", c.Host, c.Port, stdout, stderr, func(ctx context.Context, ln net.Listener) error {
		return serve.HTTP(ctx, ln, app.Handler())
	})
}
