// Command subscriber is the pub/sub subscriber app (package subscriber) on 127.0.0.1.
//
//	subscriber -pubsub NAME -topic TOPIC [-bulk [-bulk-max-messages 100] [-bulk-max-await 1s]] [-grpc] [-delay 0s] [-port 0] [-host 127.0.0.1]
//	subscriber -configuration-store NAME [-configuration-get-keys key1,...] [-port 0] [-host 127.0.0.1]
//
// In the configuration mode the get routes (subscriber.RouteConfigGetBaseline, ...) read
// -configuration-get-keys from the Redis at $DAPR_PERF_REDIS_ADDR (which the platforms set for an
// app with Backends [redis]) or through the daprd at $DAPR_HTTP_PORT or $DAPR_GRPC_PORT (which
// they set for an app with a sidecar); the subscription straight to the store (the baseline of
// the subscribe scenarios) listens to that Redis's keyspace notifications.
//
// With -grpc daprd delivers over gRPC (Dapr's AppCallback; run daprd with --app-protocol grpc):
// the port then serves gRPC to connections that open with HTTP/2's preface, and the HTTP
// routes (health, stats, reset) to the others (serve.Split), each through its own native server.
//
// Once it listens it prints one line, "listening on 127.0.0.1:<port>", to stdout. SIGTERM or
// SIGINT shut it down gracefully (5 s at most) and it exits 0; bad flags exit 2 with a
// message naming the flag.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/daprperf/daprperf/perf"

	"github.com/daprperf/daprperf/apps/internal/serve"
	"github.com/daprperf/daprperf/apps/subscriber"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	var o subscriber.Options
	c := serve.NewCommand("subscriber", stderr)
	fs := c.FlagSet
	fs.StringVar(&o.PubSub, "pubsub", "", "the pub/sub component `name` (required)")
	fs.StringVar(&o.Topic, "topic", "", "the `topic` (required)")
	fs.BoolVar(&o.Bulk, "bulk", false, "subscribe with Dapr's bulk subscribe")
	fs.IntVar(&o.BulkMaxMessages, "bulk-max-messages", 0, "bulk subscribe's maxMessagesCount (0: 100)")
	fs.DurationVar(&o.BulkMaxAwait, "bulk-max-await", 0, "bulk subscribe's maxAwaitDurationMs, a Go `duration` (0: 1s)")
	grpcDelivery := fs.Bool("grpc", false, "take deliveries over gRPC (Dapr's AppCallback, daprd --app-protocol grpc) on the same port as the HTTP stats")
	fs.StringVar(&o.ConfigurationStore, "configuration-store", "", "subscribe to every key of this configuration store `name` instead of a topic (the configuration mode)")
	getKeys := fs.String("configuration-get-keys", "", "comma-separated `keys` the configuration mode's get routes read")
	fs.DurationVar(&o.Delay, "delay", 0, "wait this Go `duration` in every delivery call before answering: a slow consumer (reliability tests only)")
	if code, ok := c.Parse(args); !ok {
		return code
	}
	if o.ConfigurationStore != "" {
		var keys []string
		if *getKeys != "" {
			keys = strings.Split(*getKeys, ",")
		}
		o.ConfigGet = configGetFromEnv(keys)
	}
	h, err := subscriber.NewHandler(o)
	if err != nil {
		_, _ = fmt.Fprintln(stderr, err)
		return serve.ExitUsage
	}
	defer h.Close()
	ctx, stop := serve.SignalContext(context.Background())
	defer stop()
	ln, err := serve.ListenOn(c.Host, c.Port)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "subscriber: %v\n", err)
		return serve.ExitError
	}
	if err := serve.Announce(stdout, ln); err != nil {
		_ = ln.Close()
		_, _ = fmt.Fprintf(stderr, "subscriber: announce: %v\n", err)
		return serve.ExitError
	}
	if *grpcDelivery {
		return serveBoth(ctx, ln, h, stderr)
	}
	if err := serve.HTTP(ctx, ln, h); err != nil {
		_, _ = fmt.Fprintf(stderr, "subscriber: %v\n", err)
		return serve.ExitError
	}
	return serve.ExitOK
}

// serveBoth serves h's gRPC callback and its HTTP routes on ln until ctx is done or one of
// them fails, then stops both and closes ln.
func serveBoth(ctx context.Context, ln net.Listener, h *subscriber.Handler, stderr io.Writer) int {
	defer func() { _ = ln.Close() }()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	gln, hln := serve.Split(ln)
	errs := make(chan error, 2)
	go func() { errs <- serve.GRPC(ctx, gln, h.GRPCServer()) }()
	go func() { errs <- serve.HTTP(ctx, hln, h) }()
	code := serve.ExitOK
	for range 2 {
		if err := <-errs; err != nil {
			_, _ = fmt.Fprintf(stderr, "subscriber: %v\n", err)
			code = serve.ExitError
		}
		cancel() // the first to return stops the other
	}
	return code
}

// configGetFromEnv is the get routes' configuration for keys, with the addresses the platform
// gave the app in its environment.
func configGetFromEnv(keys []string) subscriber.ConfigGetOptions {
	o := subscriber.ConfigGetOptions{Keys: keys, Redis: os.Getenv(perf.EnvBackendAddr(perf.BackendRedis))}
	if p := os.Getenv("DAPR_HTTP_PORT"); p != "" {
		o.DaprHTTP = "http://127.0.0.1:" + p
	}
	if p := os.Getenv("DAPR_GRPC_PORT"); p != "" {
		o.DaprGRPC = "127.0.0.1:" + p
	}
	return o
}
