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
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"

	"github.com/daprperf/daprperf/apps/internal/serve"
	"github.com/daprperf/daprperf/apps/jobapp"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	var port serve.Port
	fs := flag.NewFlagSet("jobapp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var(&port, "port", "TCP `port` (0 picks a free port)")
	host := fs.String("host", serve.Host, "IP `address` to listen on")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return serve.ExitOK
		}
		return serve.ExitUsage
	}
	if fs.NArg() > 0 {
		_, _ = fmt.Fprintf(stderr, "jobapp: unexpected argument %q: flags only\n", fs.Arg(0))
		return serve.ExitUsage
	}
	if err := serve.CheckHost(*host); err != nil {
		_, _ = fmt.Fprintf(stderr, "jobapp: -host: %v\n", err)
		return serve.ExitUsage
	}
	var o jobapp.Options
	if p := os.Getenv("DAPR_HTTP_PORT"); p != "" {
		if _, err := strconv.Atoi(p); err != nil {
			_, _ = fmt.Fprintf(stderr, "jobapp: DAPR_HTTP_PORT %q: want a port number\n", p)
			return serve.ExitUsage
		}
		o.DaprHTTP = "http://127.0.0.1:" + p
	}
	ctx, stop := serve.SignalContext(context.Background())
	defer stop()
	return serve.ListenAndRun(ctx, "jobapp", *host, int(port), stdout, stderr, func(ctx context.Context, ln net.Listener) error {
		return serve.HTTP(ctx, ln, jobapp.NewHandler(o))
	})
}
