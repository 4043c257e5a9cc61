// Command jobapp is the jobs scenario's app (package jobapp) on 127.0.0.1.
//
//	jobapp [-port 0] [-host 127.0.0.1]
//
// It schedules jobs through the daprd whose HTTP port is in $DAPR_HTTP_PORT (the local
// platform sets it for an app with a sidecar) and counts the triggers daprd delivers. Once it
// listens it prints "listening on 127.0.0.1:<port>". SIGTERM or SIGINT shut it down (5 s at
// most) and it exits 0; bad flags exit 2 naming the flag.
package main

import (
	"context"
	"io"
	"net"
	"os"
	"strconv"

	"github.com/daprperf/daprperf/apps/internal/serve"
	"github.com/daprperf/daprperf/apps/jobapp"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	c := serve.NewCommand("jobapp", stderr)
	if code, ok := c.Parse(args); !ok {
		return code
	}
	var o jobapp.Options
	if p := os.Getenv("DAPR_HTTP_PORT"); p != "" {
		if _, err := strconv.Atoi(p); err != nil {
			return c.Usage("DAPR_HTTP_PORT %q: want a port number", p)
		}
		o.DaprHTTP = "http://127.0.0.1:" + p
	}
	ctx, stop := serve.SignalContext(context.Background())
	defer stop()
	return serve.ListenAndRun(ctx, "jobapp", c.Host, c.Port, stdout, stderr, func(ctx context.Context, ln net.Listener) error {
		return serve.HTTP(ctx, ln, jobapp.NewHandler(o))
	})
}
