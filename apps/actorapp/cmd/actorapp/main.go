// Command actorapp is the actor host (package actorapp) on 127.0.0.1.
//
//	actorapp [-port 0] [-host 127.0.0.1] [-types PerfTestActor] [-idle-timeout 1h]
//	         [-timer-due 0s] [-timer-period 0s] [-redis host:port] [-name actorapp] [-fail-fraction 0]
//
// -redis (default $DAPR_PERF_REDIS_ADDR, which the local platform sets for an app with
// Backends [redis]) is the Redis that holds the activation locks every host shares; without it
// the lock is in-process and sees no double activation. -timer-due needs the daprd HTTP port in
// $DAPR_HTTP_PORT, through which reminder registrations (POST /v1.0/actors/.../reminders/...)
// also go. Once it listens it prints "listening on 127.0.0.1:<port>". SIGTERM or SIGINT
// shut it down (5 s at most) and it exits 0; bad flags exit 2 naming the flag.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/daprperf/daprperf/apps/actorapp"
	"github.com/daprperf/daprperf/apps/internal/faults"
	"github.com/daprperf/daprperf/apps/internal/serve"
	"github.com/daprperf/daprperf/perf"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	c := serve.NewCommand("actorapp", stderr)
	fs := c.FlagSet
	types := fs.String("types", actorapp.DefaultType, "comma-separated actor `types` this host serves")
	idle := fs.Duration("idle-timeout", time.Hour, "Dapr's actorIdleTimeout, a Go `duration` (> 0)")
	timerDue := fs.Duration("timer-due", 0, "register a one-shot timer due after this `duration` at every activation (0: none)")
	timerPeriod := fs.Duration("timer-period", 0, "make that timer fire again every `duration` (0: one-shot)")
	redisAddr := fs.String("redis", os.Getenv(perf.EnvBackendAddr(perf.BackendRedis)), "`host:port` of the Redis holding the activation locks; empty: in-process lock")
	name := fs.String("name", "actorapp", "this host's `name` in the lock (the PID is added)")
	fail := fs.Float64("fail-fraction", 0, "`fraction` in [0, 1] of actor method calls answered 500 by the host on its own, outside any fault window (a test's failing host)")
	if code, ok := c.Parse(args); !ok {
		return code
	}
	usage := c.Usage
	switch {
	case *idle <= 0:
		return usage("-idle-timeout %v: must be > 0", *idle)
	case *timerDue < 0:
		return usage("-timer-due %v: must be >= 0", *timerDue)
	case *timerPeriod < 0 || (*timerPeriod > 0 && *timerDue == 0):
		return usage("-timer-period %v: must be >= 0, and needs -timer-due", *timerPeriod)
	case faults.CheckFailFraction(*fail) != nil:
		return usage("-fail-fraction %v: %v", *fail, faults.CheckFailFraction(*fail))
	}
	o := actorapp.Options{IdleTimeout: *idle, TimerDue: *timerDue, TimerPeriod: *timerPeriod, Host: *name + "-" + strconv.Itoa(os.Getpid()), FailFraction: *fail}
	for t := range strings.SplitSeq(*types, ",") {
		if t = strings.TrimSpace(t); t != "" {
			o.Types = append(o.Types, t)
		}
	}
	if len(o.Types) == 0 {
		return usage("-types %q: name at least one actor type", *types)
	}
	if p := os.Getenv("DAPR_HTTP_PORT"); p != "" {
		if _, err := strconv.Atoi(p); err == nil {
			o.DaprHTTP = "http://127.0.0.1:" + p // timers and reminder registrations go through it
		}
	}
	if *timerDue > 0 && o.DaprHTTP == "" {
		return usage("-timer-due needs DAPR_HTTP_PORT, the daprd HTTP port (got %q)", os.Getenv("DAPR_HTTP_PORT"))
	}
	ctx, stop := serve.SignalContext(context.Background())
	defer stop()
	if *redisAddr != "" {
		l := actorapp.NewRedisLock(*redisAddr)
		defer func() { _ = l.Close() }()
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := l.Ping(pctx)
		cancel()
		if err != nil {
			_, _ = fmt.Fprintf(stderr, "actorapp: -redis: %v\n", err)
			return serve.ExitError
		}
		o.Lock = l
	}
	return serve.ListenAndRun(ctx, "actorapp", c.Host, c.Port, stdout, stderr, func(ctx context.Context, ln net.Listener) error {
		return serve.HTTP(ctx, ln, actorapp.NewHandler(o))
	})
}
