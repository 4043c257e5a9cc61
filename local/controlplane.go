package local

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// Dapr's control plane for actors on the local platform: a placement service per placement
// group of the sidecars (perf.Sidecar.PlacementGroup) and one scheduler when a sidecar asks
// for it (perf.Sidecar.Scheduler). They run as backends of the deployment (backends.go): own
// ports on 127.0.0.1, a private data directory in the run directory (the scheduler's embedded
// etcd), readiness by their health endpoint, stopped by PID after every daprd has stopped.
//
// Their binaries are the ones beside daprd: <dir of daprd>/placement and /scheduler (`make
// control-plane` builds them into .daprd/<version>/; `dapr init --slim` puts them in
// ~/.dapr/bin beside its daprd).
//
// In 1.17.5 both bind their health endpoint on every interface, whatever
// --healthz-listen-address says: the ports come from the same allocator as every other one
// and nothing else uses them.

// Ports of a placement, in order: gRPC (daprd's --placement-host-address), health, metrics, raft.
const placementPorts = 4

// Ports of a scheduler, in order: gRPC (daprd's --scheduler-host-address), health, metrics,
// etcd client, etcd peer.
const schedulerPorts = 5

// controlPlaneBinary is the control-plane binary name beside daprd, or an error saying how
// to build it.
func controlPlaneBinary(daprd string, svc perf.Backend) (string, error) {
	p := filepath.Join(filepath.Dir(daprd), string(svc))
	if err := checkExecutable(p); err != nil {
		return "", fmt.Errorf("%w: %s: the actor control plane runs the %s beside daprd (%s): run `make control-plane`, which builds it into .daprd/<version>/: %v",
			ErrBackendMissing, svc, svc, daprd, err)
	}
	return p, nil
}

// planControlPlane plans a placement for each placement group of apps and a scheduler when a
// sidecar asks for one, taking their ports from ps; nothing runs yet.
func (d *Deployment) planControlPlane(ps *ports, apps []perf.App) error {
	var svcs []*backendServer
	for _, g := range perf.PlacementGroups(apps) {
		bin, err := controlPlaneBinary(d.a.path, perf.ControlPlacement)
		if err != nil {
			return err
		}
		svcs = append(svcs, &backendServer{backend: perf.ControlPlacement, kind: placementKind(perf.PlacementProcess(g), d.a), bins: map[string]string{"placement": bin}})
	}
	if perf.NeedsScheduler(apps) {
		bin, err := controlPlaneBinary(d.a.path, perf.ControlScheduler)
		if err != nil {
			return err
		}
		svcs = append(svcs, &backendServer{backend: perf.ControlScheduler, kind: schedulerKind(d.a), bins: map[string]string{"scheduler": bin}})
	}
	for _, b := range svcs {
		if err := d.addControlPlane(ps, b); err != nil {
			return err
		}
	}
	return nil
}

// addControlPlane gives b, a control-plane service, its data directory and its ports from ps,
// and adds it to the deployment's backends.
func (d *Deployment) addControlPlane(ps *ports, b *backendServer) error {
	b.dir = filepath.Join(d.backendsDir(), b.kind.proc)
	for range b.kind.ports {
		port, err := ps.next()
		if err != nil {
			return fmt.Errorf("ports of %s: %w", b.kind.proc, err)
		}
		b.ports = append(b.ports, port)
	}
	d.backends = append(d.backends, b)
	return nil
}

// controlPlaneArgs are the daprd flags that point a's sidecar at its placement and scheduler.
func (d *Deployment) controlPlaneArgs(a perf.App) []string {
	var args []string
	if g := a.Sidecar.PlacementGroup(); g != "" {
		if b := d.backendNamed(perf.PlacementProcess(g)); b != nil {
			args = append(args, "--placement-host-address", b.addr())
		}
	}
	if a.Sidecar.Scheduler {
		if b := d.backendNamed(string(perf.ControlScheduler)); b != nil {
			args = append(args, "--scheduler-host-address", b.addr())
		}
	}
	return args
}

// controlPlane says whether b is one of Dapr's control-plane services (sentry, placement,
// scheduler) rather than a store or broker: a tester never loads it.
func (b *backendServer) controlPlane() bool {
	return b.backend == perf.ControlPlacement || b.backend == perf.ControlScheduler || b.backend == perf.ControlSentry
}

// backendNamed is the backend whose process is called proc, or nil.
func (d *Deployment) backendNamed(proc string) *backendServer {
	i := slices.IndexFunc(d.backends, func(b *backendServer) bool { return b.kind.proc == proc })
	if i < 0 {
		return nil
	}
	return d.backends[i]
}

// schedulerCronPin is the go-etcd-cron version daprd version's scheduler requires and
// scripts/dapr-pins.sh replaces with v0.12.6, or "" when its own is built (v1.18.2 and later).
func schedulerCronPin(version string) string {
	switch {
	case strings.HasPrefix(version, "1.17."):
		return "v0.12.4"
	case version == "1.18.0" || version == "1.18.1":
		return "v0.12.5"
	}
	return ""
}

// controlPlanePackage says where a control-plane binary comes from, for the report's
// environment; the scheduler built by scripts/build-daprd.sh carries a dependency pin.
func controlPlanePackage(svc perf.Backend, a build) string {
	s := fmt.Sprintf("github.com/dapr/dapr cmd/%s, beside daprd %s (%s)", svc, a.version, filepath.Dir(a.path))
	if want := schedulerCronPin(a.version); svc == perf.ControlScheduler && want != "" && strings.Contains(a.path, ".daprd"+string(filepath.Separator)) {
		s += fmt.Sprintf("; built with github.com/diagridio/go-etcd-cron v0.12.6 instead of %s (the module proxy refuses %s): not byte-for-byte the released scheduler", want, want)
	}
	return s
}

// healthPing is the ping of a control-plane service: GET /healthz on its health port (the
// second) answering 200; the version is daprd's, the build they share.
func healthPing(version string) func(ctx context.Context, b *backendServer) (string, error) {
	return func(ctx context.Context, b *backendServer) (string, error) {
		if err := httpCheck("http://127.0.0.1:"+strconv.Itoa(b.ports[1])+"/healthz", http.StatusOK)(ctx); err != nil {
			return "", err
		}
		return version, nil
	}
}

// placementKind runs one placement as process proc: TLS from the deployment's sentry, or off
// without mTLS (controlPlaneTLSArgs), every socket but the health endpoint on 127.0.0.1, a
// one-member raft cluster on its own port.
func placementKind(proc string, a build) *backendKind {
	return &backendKind{
		proc:  proc,
		pkg:   controlPlanePackage(perf.ControlPlacement, a),
		ports: placementPorts,
		launch: func(ctx context.Context, d *Deployment, b *backendServer) error {
			itoa := strconv.Itoa
			args := append(loopbackArgs(b), "--initial-cluster", "dapr-placement-0=127.0.0.1:"+itoa(b.ports[3]))
			args = append(args, d.controlPlaneTLSArgs()...)
			p, err := d.startBackendProc(ctx, b, proc, b.bins["placement"], args, daprdEnv(), procSpec{grace: stopGrace})
			b.main = p
			return err
		},
		ping:     healthPing(a.version),
		metadata: func(*backendServer) map[string]string { return nil },
	}
}

// schedulerKind runs the scheduler: TLS as placement's, its embedded etcd on 127.0.0.1 with
// its data in the private data directory (in the run directory), its identity files there too.
func schedulerKind(a build) *backendKind {
	proc := string(perf.ControlScheduler)
	return &backendKind{
		proc:  proc,
		pkg:   controlPlanePackage(perf.ControlScheduler, a),
		ports: schedulerPorts,
		launch: func(ctx context.Context, d *Deployment, b *backendServer) error {
			itoa := strconv.Itoa
			args := append(loopbackArgs(b), "--etcd-data-dir", filepath.Join(b.dir, "etcd"),
				"--etcd-client-port", itoa(b.ports[3]),
				"--etcd-client-listen-address", "127.0.0.1",
				"--etcd-initial-cluster", "dapr-scheduler-server-0=http://127.0.0.1:"+itoa(b.ports[4]),
				"--identity-directory-write", filepath.Join(b.dir, "tls"),
			)
			args = append(args, d.controlPlaneTLSArgs()...)
			p, err := d.startBackendProc(ctx, b, proc, b.bins["scheduler"], args, daprdEnv(), procSpec{grace: backendStopGrace})
			b.main = p
			return err
		},
		ping:     healthPing(a.version),
		metadata: func(*backendServer) map[string]string { return nil },
	}
}

// appEnv is the environment an app gets beyond the test's: the host:port of each backend it
// asked for (perf.EnvBackendAddr), and for an app with a sidecar DAPR_HTTP_PORT, its daprd's
// HTTP port (the variable Dapr's SDKs read), so the actor app can register timers,
// and DAPR_GRPC_PORT, its gRPC port (the workflow app's worker).
func (d *Deployment) appEnv(da *deployedApp) []string {
	var env []string
	for _, be := range da.app.Backends {
		if b := d.backend(be); b != nil {
			env = append(env, perf.EnvBackendAddr(be)+"="+b.addr())
		}
	}
	if da.sidecar != nil {
		env = append(env, "DAPR_HTTP_PORT="+strconv.Itoa(da.sidecar.HTTP))
		// and its gRPC port, which the workflow worker (durabletask-go) connects to
		env = append(env, "DAPR_GRPC_PORT="+strconv.Itoa(da.sidecar.GRPC))
	}
	return env
}

// loopbackArgs are the flags placement and scheduler share: the API on b.ports[0], health on
// b.ports[1] and metrics on b.ports[2], each on 127.0.0.1. 1.17.5 ignores
// --healthz-listen-address and binds the health endpoint on every interface
// (docs/scenarios/actors.md).
func loopbackArgs(b *backendServer) []string {
	itoa := strconv.Itoa
	return []string{
		"--port", itoa(b.ports[0]),
		"--listen-address", "127.0.0.1",
		"--healthz-port", itoa(b.ports[1]),
		"--healthz-listen-address", "127.0.0.1",
		"--metrics-port", itoa(b.ports[2]),
		"--metrics-listen-address", "127.0.0.1",
	}
}
