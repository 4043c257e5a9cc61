package local

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// proxyKey names one proxied sidecar port: the app, the endpoint (perf.SidecarHTTP or
// perf.SidecarGRPC) and the build (true: B).
type proxyKey struct {
	app string
	e   perf.Endpoint
	b   bool
}

// startDelayProxies puts a delayProxy in front of every sidecar's HTTP and gRPC port under
// DAPR_PERF_AB_DELAY: build B's holding what a client sends for the delay, build A's
// forwarding only, so that both pay one extra hop and build B is slower by the delay alone.
// Endpoint then names the proxies. Nothing without DAPR_PERF_AB_DELAY.
func (d *Deployment) startDelayProxies() error {
	if d.abDelay == nil {
		return nil
	}
	held, err := measureHold(*d.abDelay)
	if err != nil {
		return fmt.Errorf("%s=%v: timing the proxy's hold: %w", perf.EnvABDelay, *d.abDelay, err)
	}
	d.proxies, d.abHeld = map[proxyKey]*delayProxy{}, held
	for _, da := range d.apps {
		for _, side := range []struct {
			b     bool
			ports *sidecarPorts
			delay time.Duration
		}{{false, da.sidecar, 0}, {true, da.sidecarB, *d.abDelay}} {
			if side.ports == nil {
				continue
			}
			for e, port := range map[perf.Endpoint]int{perf.SidecarHTTP: side.ports.HTTP, perf.SidecarGRPC: side.ports.GRPC} {
				px, err := startDelayProxy("127.0.0.1:"+strconv.Itoa(port), side.delay)
				if err != nil {
					return fmt.Errorf("%s=%v: a proxy for %s's %s: %w", perf.EnvABDelay, *d.abDelay, da.app.Name, e, err)
				}
				d.proxies[proxyKey{da.app.Name, e, side.b}] = px
			}
		}
	}
	return nil
}

// proxyAddrs is the address (host:port) of every delay proxy in front of app's sidecars, both
// builds', sorted; none without DAPR_PERF_AB_DELAY. The app's tester loads them, so they are on
// its allow-list (testerAllowList).
func (d *Deployment) proxyAddrs(app string) []string {
	var out []string
	for k, px := range d.proxies {
		if k.app == app {
			out = append(out, px.addr())
		}
	}
	slices.Sort(out)
	return out
}

// closeDelayProxies closes every proxy, and with them every connection through them.
func (d *Deployment) closeDelayProxies() {
	for _, px := range d.proxies {
		_ = px.Close()
	}
}

// InjectedDelay is build B's slowdown under DAPR_PERF_AB_DELAY (perf.Slowed); 0 without.
func (s sideB) InjectedDelay() time.Duration {
	if s.d.abDelay == nil {
		return 0
	}
	return *s.d.abDelay
}

// HeldDelay is how long build B's proxies really hold for InjectedDelay (perf.Slowed; measured
// by measureHold when they started); 0 without DAPR_PERF_AB_DELAY.
func (s sideB) HeldDelay() time.Duration { return s.d.abHeld }

// holdSamples is how many waits measureHold times: an odd count, so that the median is one.
const holdSamples = 21

// measureHold times holdSamples waits of delay as delayProxy waits (holdTimer) and returns their
// median: what a hold of delay lasts on this machine before any load. A hold never ends early,
// but it ends late by the kernel's timer slack (about 0.1 ms on a KVM guest with kvm-clock;
// reports/measurements.md). It takes about holdSamples times the result.
func measureHold(delay time.Duration) (time.Duration, error) {
	if delay <= 0 {
		return 0, nil
	}
	t, err := newHoldTimer()
	if err != nil {
		return 0, err
	}
	defer t.Close()
	waits := make([]time.Duration, holdSamples)
	for i := range waits {
		start := time.Now()
		if err := t.hold(delay); err != nil {
			return 0, err
		}
		waits[i] = time.Since(start)
	}
	slices.Sort(waits)
	return waits[holdSamples/2], nil
}
