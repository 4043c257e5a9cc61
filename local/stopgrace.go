package local

import (
	"strconv"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// How long the platform waits after SIGTERM before it sends SIGKILL, per kind of process. A
// process that exits within its grace, however long it took, is a clean stop; one still running
// at the end of it is killed by PID and the teardown error names it (process.stop).
const (
	// stopMargin is added to what a process says it may take: its exit after its own bound
	// (closing sockets, flushing its log) on 2 cores shared with the rest of the teardown.
	stopMargin = 5 * time.Second
	// appStopGrace is an app's: perf.AppShutdownTimeout (what apps/internal/serve gives
	// in-flight requests) plus stopMargin.
	appStopGrace = perf.AppShutdownTimeout + stopMargin

	// daprdDefaultShutdown is daprd's --dapr-graceful-shutdown-seconds when not given (dapr
	// v1.17.5 pkg/runtime/config.go DefaultGracefulShutdownDuration; a negative value means it
	// too). 0 makes daprd wait without bound; the platform then waits daprdMaxShutdown.
	daprdDefaultShutdown = 5 * time.Second
	daprdMaxShutdown     = 60 * time.Second
	// actorHaltAllowance is added for a daprd with an actor runtime (--placement-host-address).
	// On SIGTERM its placement client first deactivates every active actor (table.HaltAll, one
	// goroutine and one DELETE to the app each, under a 5 s context it does not keep to), and
	// only then does daprd's own graceful-shutdown timer start (dapr/kit RunnerCloserManager
	// times the closers, not the runners). With daprd 1.17.5 on 2 cores, 80,000 active actors
	// take 11.2 s from SIGTERM to exit 0, so 30 s covers them more than twice over (Dapr's
	// reminder load: 4.94 s; reports/measurements.md, "Actor reminders and scale").
	actorHaltAllowance = 30 * time.Second
)

// daprdStopGrace is the grace of a daprd run with args (its whole command line, last flag
// winning as in daprd's flag parsing): its --dapr-block-shutdown-duration (0 when not given),
// plus actorHaltAllowance when it has an actor runtime, plus its graceful-shutdown window
// (--dapr-graceful-shutdown-seconds, daprdDefaultShutdown when absent, negative or unreadable;
// daprdMaxShutdown for 0, daprd's "no bound"), plus stopMargin. Dapr's default actor host:
// 0 + 30 + 5 + 5 = 40 s; a daprd without actors: 10 s.
func daprdStopGrace(args []string) time.Duration {
	shutdown := daprdDefaultShutdown
	if v, ok := flagValue(args, "dapr-graceful-shutdown-seconds"); ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			shutdown = time.Duration(n) * time.Second
			if n == 0 || shutdown > daprdMaxShutdown {
				shutdown = daprdMaxShutdown
			}
		}
	}
	var block time.Duration
	if v, ok := flagValue(args, "dapr-block-shutdown-duration"); ok {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			block = min(d, daprdMaxShutdown)
		}
	}
	grace := block + shutdown + stopMargin
	if _, ok := flagValue(args, "placement-host-address"); ok {
		grace += actorHaltAllowance
	}
	return grace
}

// flagValue is the value of the last occurrence of the flag name in args, in any of Go's flag
// forms: -name v, --name v, -name=v, --name=v.
func flagValue(args []string, name string) (value string, ok bool) {
	for i := 0; i < len(args); i++ {
		a := strings.TrimPrefix(strings.TrimPrefix(args[i], "-"), "-")
		if a == args[i] {
			continue // not a flag
		}
		switch {
		case a == name && i+1 < len(args):
			value, ok = args[i+1], true
			i++
		case strings.HasPrefix(a, name+"="):
			value, ok = strings.TrimPrefix(a, name+"="), true
		}
	}
	return value, ok
}
