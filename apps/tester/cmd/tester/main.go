// Command tester is daprperf's load generator as an HTTP service on 127.0.0.1.
//
//	tester [-port 0] [-host 127.0.0.1]
//
// GET / is its health check; POST /test takes perf.Params as JSON and answers the
// perf.Result as JSON (see package tester). Once it listens it prints one line,
// "listening on 127.0.0.1:<port>", to stdout. SIGTERM or SIGINT shut it down gracefully.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/daprperf/daprperf/apps/internal/serve"
	"github.com/daprperf/daprperf/apps/tester"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	var port int
	fs := flag.NewFlagSet("tester", flag.ContinueOnError)
	fs.Var((*serve.Port)(&port), "port", "TCP `port` on "+serve.Host+" (0 picks a free port)")
	host := fs.String("host", serve.Host, "IP `address` to listen on; 0.0.0.0 serves every interface (in a pod)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return serve.ExitOK
		}
		return serve.ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "tester: unexpected argument %q: tester takes flags only\n", fs.Arg(0))
		return serve.ExitUsage
	}
	ctx, stop := serve.SignalContext(context.Background())
	defer stop()
	ln, err := serve.ListenOn(*host, port)
	if err == nil {
		err = serve.Announce(os.Stdout, ln)
	}
	if err == nil {
		err = serve.HTTP(ctx, ln, tester.NewHandler())
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "tester: %v\n", err)
		return serve.ExitError
	}
	return serve.ExitOK
}
