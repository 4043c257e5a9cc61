// Command tester is daprperf's load generator as an HTTP service, on 127.0.0.1 by default.
//
//	tester [-port 0] [-host 127.0.0.1] [-allow host:port,...] [-max-qps N]
//	       [-max-connections N] [-max-duration D]
//
// GET / is its health check; POST /test takes perf.Params as JSON and answers the
// perf.Result as JSON; GET /progress answers the load in progress as perf.LiveProgress (see
// package tester). It loads only the targets -allow (or env
// DAPRPERF_TESTER_ALLOW) lists, within the -max-* bounds, and requires the token in env
// DAPRPERF_TESTER_TOKEN when one is set, which it must be on any -host but loopback (see
// tester.ParseFlags). Once it listens it prints one line, "listening on <host>:<port>", to
// stdout, and its configuration (never the token) to stderr. SIGTERM or SIGINT shut it down
// gracefully.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/daprperf/daprperf/apps/internal/serve"
	"github.com/daprperf/daprperf/apps/tester"
)

func main() { os.Exit(run(os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr)) }

func run(args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	f, err := tester.ParseFlags(args, lookupEnv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return serve.ExitOK
	}
	if err != nil {
		return serve.ExitUsage
	}
	h, err := tester.NewHandler(f.Config)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "tester: %v\n", err)
		return serve.ExitUsage
	}
	ctx, stop := serve.SignalContext(context.Background())
	defer stop()
	ln, err := serve.ListenOn(f.Config.Host, f.Port)
	if err == nil {
		_, _ = fmt.Fprintf(stderr, "tester: %s\n", f.Config.Describe())
		err = serve.Announce(stdout, ln)
	}
	if err == nil {
		err = serve.Server(ctx, ln, tester.NewServer(h, tester.DefaultTimeouts()))
	}
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "tester: %v\n", err)
		return serve.ExitError
	}
	return serve.ExitOK
}
