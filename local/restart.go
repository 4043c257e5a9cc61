package local

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// restartTimeout bounds a backend's restart: its stop (backendStopGrace at most) and its start
// until it answers its protocol ping again (RabbitMQ: about 5 s).
const restartTimeout = 60 * time.Second

// RestartBackend stops the deployment's backend b in order (its stop signal, SIGKILL after its
// grace) and starts it again on the same ports with the same data directory, then returns once
// it answers its protocol ping, with how long it was down (from the stop signal to the first
// answer). The stop is a requested one, so Exits does not report it; the daprd sidecars see
// their broker or store go away and come back. For Redis, started without persistence, the
// restart loses whatever it held (streams, consumer groups). It is an error naming b when the
// deployment did not start b.
func (d *Deployment) RestartBackend(ctx context.Context, b perf.Backend) (time.Duration, error) {
	var bs *backendServer
	for _, s := range d.backends {
		if s.backend == b {
			bs = s
		}
	}
	if bs == nil {
		return 0, fmt.Errorf("restart backend %s: the deployment did not start one (its backends: %v)", b, d.Backends())
	}
	ctx, cancel := context.WithTimeout(ctx, restartTimeout)
	defer cancel()
	start := time.Now()
	old := bs.procs
	var errs []error
	for i := len(old) - 1; i >= 0; i-- { // RabbitMQ's epmd last
		errs = append(errs, old[i].stop(old[i].grace))
	}
	if err := errors.Join(errs...); err != nil {
		return time.Since(start), fmt.Errorf("restart backend %s: stop: %w", b, err)
	}
	d.mu.Lock() // the stopped processes leave the deployment: PID and Kill name the new ones
	d.procs = slices.DeleteFunc(d.procs, func(p *process) bool { return slices.Contains(old, p) })
	d.mu.Unlock()
	bs.procs, bs.main = nil, nil
	bs.started = time.Now()
	// The processes outlive ctx, as the deployment's other backends do (startBackends).
	if err := bs.kind.launch(context.WithoutCancel(ctx), d, bs); err != nil {
		return time.Since(start), fmt.Errorf("restart backend %s: %w", b, err)
	}
	version := bs.version
	if err := poll(ctx, readiness{proc: bs.main, check: bs.readyCheck()}); err != nil {
		return time.Since(start), fmt.Errorf("restart backend %s: %w", b, err)
	}
	if bs.version != version {
		return time.Since(start), fmt.Errorf("restart backend %s: version %q after the restart, %q before", b, bs.version, version)
	}
	return time.Since(start), nil
}

var _ perf.BackendRestarter = (*Deployment)(nil)
