package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/daprperf/daprperf/internal/startorder"
	"github.com/daprperf/daprperf/perf"
)

// Deployment is a set of apps and sidecars started by Platform.StartE. It implements
// perf.Deployment, and adds Kill and PID for tests of the platform itself.
type Deployment struct {
	dir    string // run directory: logs, configurations, the components (resources/)
	a      build  // the daprd build of every sidecar
	b      *build // the second build of an A/B run, beside every sidecar; nil without
	apps   []*deployedApp
	exitCh chan *process // unexpected exits, for waitReady; buffered for every process
	// The stores and brokers the sidecars' components need (backends.go), in the order first
	// needed; extraDirs are data directories outside dir, removed with it.
	backends  []*backendServer
	extraDirs []string
	// mtls runs a sentry and gives every daprd, placement and scheduler its certificates
	// (sentry.go); trustAnchors is sentry's root certificate, PEM, once sentry is ready.
	mtls         bool
	trustAnchors string
	// abDelay and proxies: every sidecar's HTTP and gRPC port reached through a delayProxy,
	// build B's delayed by abDelay (abdelay.go); nil and empty without DAPR_PERF_AB_DELAY.
	abDelay *time.Duration
	abHeld  time.Duration // what a hold of abDelay lasts here (measureHold); 0 without
	proxies map[proxyKey]*delayProxy
	// logs are where close keeps the logs when the test failed (perf.LogsDir; "": none), shared
	// with the signal handler so that they are kept once.
	logs *runLogs

	mu    sync.Mutex
	procs []*process // in start order
}

var _ perf.Deployment = (*Deployment)(nil)

// deployedApp is one app with its ports, its process and its daprd's.
type deployedApp struct {
	app     perf.App
	port    int           // the app's own port
	sidecar *sidecarPorts // nil without a sidecar
	config  string        // path of the daprd's Configuration
	token   string        // a tester's per-run token (perf.NewTesterToken); "" for the others
	proc    *process
	daprd   *process
	// The build-B sidecar of an A/B run, with its own ports and Configuration.
	sidecarB *sidecarPorts
	configB  string
	daprdB   *process
}

// build is one daprd binary and the version it reports.
type build struct{ path, version string }

func newDeployment(dir string, a build, b *build, maxProcs int) *Deployment {
	return &Deployment{dir: dir, a: a, b: b, exitCh: make(chan *process, maxProcs), logs: &runLogs{runDir: dir}}
}

// plan allocates every port and writes each sidecar's Configuration; nothing runs yet.
func (d *Deployment) plan(alloc PortAllocator, apps []perf.App) error {
	ps := newPorts(alloc)
	internal := map[string]int{} // app id -> its daprd's internal gRPC port
	for _, a := range apps {
		da := &deployedApp{app: a}
		if a.Kind == perf.Tester {
			da.token = perf.NewTesterToken()
		}
		port, err := ps.next()
		if err != nil {
			return fmt.Errorf("ports of %s: %w", a.Name, err)
		}
		da.port = port
		if a.Sidecar != nil {
			sp, err := allocSidecarPorts(ps)
			if err != nil {
				return fmt.Errorf("ports of %s: %w", perf.SidecarName(a.Name), err)
			}
			da.sidecar = &sp
			internal[a.Name] = sp.InternalGRPC
		}
		d.apps = append(d.apps, da)
	}
	internalB := map[string]int{} // build B's sidecars resolve each other, never A's
	if d.b != nil {
		for _, da := range d.apps {
			if da.sidecar == nil {
				continue
			}
			sp, err := allocSidecarPorts(ps)
			if err != nil {
				return fmt.Errorf("ports of %s: %w", sidecarNameB(da.app.Name), err)
			}
			da.sidecarB = &sp
			internalB[da.app.Name] = sp.InternalGRPC
		}
	}
	if err := os.Mkdir(d.resourcesDir(), 0o755); err != nil {
		return fmt.Errorf("resources folder: %w", err)
	}
	if err := d.planBackends(ps, apps); err != nil {
		return err
	}
	if err := d.planSentry(ps, apps); err != nil {
		return err
	}
	if err := d.planControlPlane(ps, apps); err != nil {
		return err
	}
	if err := d.writeComponents(apps); err != nil {
		return err
	}
	for _, da := range d.apps {
		if da.sidecar == nil {
			continue
		}
		cfg, err := sidecarConfig(da.app.Name, internal, da.app.Sidecar.Config)
		if err != nil {
			return err
		}
		da.config = runFile(d.dir, da.app.Name+"-config.yaml")
		if err := os.WriteFile(da.config, cfg, 0o644); err != nil {
			return fmt.Errorf("config of %s: %w", da.app.Name, err)
		}
		if da.sidecarB == nil {
			continue
		}
		if cfg, err = sidecarConfig(da.app.Name, internalB, da.app.Sidecar.Config); err != nil {
			return err
		}
		da.configB = runFile(d.dir, da.app.Name+"-config-b.yaml")
		if err := os.WriteFile(da.configB, cfg, 0o644); err != nil {
			return fmt.Errorf("config of %s: %w", sidecarNameB(da.app.Name), err)
		}
	}
	return nil
}

// resourcesDir is the folder given to every daprd as --resources-path: the components of
// the sidecars (components.go), and nothing else, so none loads the components of ~/.dapr.
func (d *Deployment) resourcesDir() string { return runFile(d.dir, "resources") }

// launchApps starts every app, for as long as ctx (the test's) lasts.
func (d *Deployment) launchApps(ctx context.Context, bins map[perf.AppKind]string) error {
	var backends []string // a direct-to-store phase loads them (testerAllowList)
	for _, b := range d.backends {
		if !b.controlPlane() {
			backends = append(backends, b.addr())
		}
	}
	for _, da := range d.apps {
		args, env := launchArgs(da, d.apps, append(d.proxyAddrs(da.app.Name), backends...)...)
		env = append(env, d.appEnv(da)...)
		p, err := d.start(ctx, da.app.Name, bins[da.app.Kind], args, env, appStopGrace)
		if err != nil {
			return err
		}
		da.proc = p
	}
	return nil
}

// sidecarSlot is one daprd of an app: build A's, or build B's in an A/B run.
type sidecarSlot struct {
	da     *deployedApp
	name   string
	ports  *sidecarPorts
	config string
	bin    string
	proc   **process // where the started process goes: &da.daprd or &da.daprdB
}

// sidecarSlots lists every daprd to start, build A's then build B's, each in app order.
func (d *Deployment) sidecarSlots() []sidecarSlot {
	var out []sidecarSlot
	for _, da := range d.apps {
		if da.sidecar != nil {
			out = append(out, sidecarSlot{da, perf.SidecarName(da.app.Name), da.sidecar, da.config, d.a.path, &da.daprd})
		}
	}
	for _, da := range d.apps {
		if da.sidecarB != nil {
			out = append(out, sidecarSlot{da, sidecarNameB(da.app.Name), da.sidecarB, da.configB, d.b.path, &da.daprdB})
		}
	}
	return out
}

// launchSidecars starts the daprd of slots not started yet, for as long as ctx lasts. Call it
// once every app answers its health check: daprd (v1.17.5, pkg/runtime/runtime.go) opens its
// gRPC channel to the app before it waits for the app's port, and a first dial that is refused
// leaves that channel in gRPC's reconnect backoff (about 1 s), so calls through a daprd that
// started before its gRPC app fail with "connection refused" after /v1.0/healthz says ready.
func (d *Deployment) launchSidecars(ctx context.Context, slots []sidecarSlot) error {
	for _, sl := range slots {
		if *sl.proc != nil {
			continue
		}
		args := daprdArgs(sl.da.app, sl.da.port, *sl.ports, sl.config, d.resourcesDir())
		args = append(args, d.controlPlaneArgs(sl.da.app)...)
		args = append(args, d.sentryArgs()...)
		p, err := d.start(ctx, sl.name, sl.bin, args, d.sidecarEnv(), daprdStopGrace(args))
		if err != nil {
			return err
		}
		*sl.proc = p
	}
	return nil
}

// migratesFirst is the index in slots of the daprd that starts, and answers its health check,
// before any other (startorder.MigratesFirst: the first on PostgreSQL, when several are); -1
// for none.
func migratesFirst(slots []sidecarSlot) int {
	return startorder.MigratesFirst(slots, func(sl sidecarSlot) bool {
		return slices.Contains(perf.Backends(sl.da.app.Sidecar.Components), perf.BackendPostgreSQL)
	})
}

// startSidecars launches every daprd and waits (within ctx) until each answers its health
// check; the one migratesFirst names goes first, alone.
func (d *Deployment) startSidecars(run, ctx context.Context) error {
	slots := d.sidecarSlots()
	if first := migratesFirst(slots); first >= 0 {
		if err := d.launchSidecars(run, slots[first:first+1]); err != nil {
			return err
		}
		if err := waitReady(ctx, d.sidecarReadiness(), d.exitCh); err != nil {
			return err
		}
	}
	if err := d.launchSidecars(run, slots); err != nil {
		return err
	}
	notYet := slices.DeleteFunc(d.sidecarReadiness(), func(r readiness) bool { return !r.proc.ready.IsZero() })
	return waitReady(ctx, notYet, d.exitCh)
}

// start starts one process, logging to <run dir>/<name>.log, and adds it to d; grace is how
// long its stop waits after SIGTERM before SIGKILL (stopgrace.go).
func (d *Deployment) start(ctx context.Context, name, bin string, args, env []string, grace time.Duration) (*process, error) {
	p, err := startProcessWith(ctx, name, runFile(d.dir, name+".log"), bin, args, env, procSpec{grace: grace}, d.notifyExit)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.procs = append(d.procs, p)
	d.mu.Unlock()
	return p, nil
}

// notifyExit passes an unexpected exit to waitReady; the channel has room for every process.
func (d *Deployment) notifyExit(p *process) {
	select {
	case d.exitCh <- p:
	default:
	}
}

// appReadiness lists the health check of every app.
func (d *Deployment) appReadiness() []readiness {
	var rs []readiness
	for _, da := range d.apps {
		rs = append(rs, readiness{proc: da.proc, check: appCheck(da.app, da.port)})
	}
	return rs
}

// sidecarReadiness lists the health check of every daprd.
func (d *Deployment) sidecarReadiness() []readiness {
	var rs []readiness
	for _, da := range d.apps {
		if da.daprd != nil {
			rs = append(rs, readiness{proc: da.daprd, check: sidecarCheck(*da.sidecar)})
		}
		if da.daprdB != nil {
			rs = append(rs, readiness{proc: da.daprdB, check: sidecarCheck(*da.sidecarB)})
		}
	}
	return rs
}

// processes returns a copy of the started processes, in start order.
func (d *Deployment) processes() []*process {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.procs)
}

// process returns the process called name, or nil.
func (d *Deployment) process(name string) *process {
	for _, p := range d.processes() {
		if p.name == name {
			return p
		}
	}
	return nil
}

// stopAll stops every app and sidecar at once (SIGTERM; SIGKILL after each one's grace:
// appStopGrace, daprdStopGrace) and waits for
// all, then the backends the same way (each with its own stop signal and grace): a daprd
// closing its components must still find their stores and brokers.
func (d *Deployment) stopAll() error {
	var apps, backends []*process
	for _, p := range d.processes() {
		if d.isBackend(p) {
			backends = append(backends, p)
		} else {
			apps = append(apps, p)
		}
	}
	return errors.Join(stopAt(apps), stopAt(backends))
}

// stopAt stops procs at once and waits for all.
func stopAt(procs []*process) error {
	errs := make([]error, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Go(func() { errs[i] = p.stop(p.grace) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// close is the deployment's t.Cleanup: it stops every process, and when t failed keeps the
// processes' logs in the folder the runner gave Start (perf.LogsDir; keepLogs) or, given none,
// writes the end of each log into t's output; then it removes the run directory, also when t
// failed.
func (d *Deployment) close(t perf.TB) {
	d.closeDelayProxies()
	if err := d.stopAll(); err != nil {
		t.Errorf("local: teardown: %v", err)
	}
	// The backends' data folders outside the run directory go in any case: the backends' logs
	// are in the run directory, and nothing else would ever remove them.
	for _, dir := range d.extraDirs {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("local: remove backend data dir: %v", err)
		}
		forgetDataDir(dir)
	}
	switch {
	case !t.Failed():
		d.logs.leave()
	case d.logs.dir == "":
		d.logTails(t)
	default:
		d.logs.keep(func(err error) { // unless the signal handler did
			if err != nil {
				t.Errorf("local: %v", err)
			} else {
				t.Logf("local: the processes' logs kept in %s", d.logs.dir)
			}
		})
	}
	if err := os.RemoveAll(d.dir); err != nil {
		t.Errorf("local: remove run dir: %v", err)
	}
	forgetRunDir(d.dir)
}

// RunDir is the deployment's run directory: <process>.log, <app>-config.yaml, resources/.
func (d *Deployment) RunDir() string { return d.dir }

// DaprVersion is the version daprd reports ("1.17.5").
func (d *Deployment) DaprVersion() string { return d.a.version }

// DaprdPath is the daprd binary every sidecar runs.
func (d *Deployment) DaprdPath() string { return d.a.path }

// Processes lists the process names, for each app (in Start's order) its name and, when it
// has a sidecar, perf.SidecarName(app); then Dapr's control plane's, when it runs one
// ("sentry", "placement", "placement-<group>", "scheduler"; role perf.RoleControlPlane).
func (d *Deployment) Processes() []string {
	var names []string
	for _, da := range d.apps {
		names = append(names, da.app.Name)
		if da.sidecar != nil {
			names = append(names, perf.SidecarName(da.app.Name))
		}
	}
	for _, b := range d.backends {
		if b.controlPlane() {
			names = append(names, b.kind.proc)
		}
	}
	return names
}

// Endpoint returns the address of app's endpoint e: base URLs ("http://127.0.0.1:3500") for
// HTTP endpoints, host:port for gRPC ones. It is an error when app is unknown, serves no
// such endpoint (AppHTTP of grpcapp, AppGRPC of httpapp), has no sidecar, or has metrics
// disabled (SidecarMetrics) or profiling off (SidecarProfile).
func (d *Deployment) Endpoint(app string, e perf.Endpoint) (string, error) {
	return d.endpoint(app, e, false)
}

// endpoint is Endpoint of build A's sidecars, or of build B's when b is set.
func (d *Deployment) endpoint(app string, e perf.Endpoint, b bool) (string, error) {
	i := slices.IndexFunc(d.apps, func(da *deployedApp) bool { return da.app.Name == app })
	if i < 0 {
		return "", fmt.Errorf("endpoint %s of %s: no such app", e, app)
	}
	da := d.apps[i]
	httpURL := func(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) }
	grpcAddr := func(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }
	switch e {
	case perf.AppHTTP, perf.AppControl, perf.AppGRPC:
		proto := da.app.Kind.Protocol()
		if (e != perf.AppGRPC) != (proto == perf.HTTP) {
			return "", fmt.Errorf("endpoint %s of %s: a %s app serves %s only", e, app, da.app.Kind, proto)
		}
		if e != perf.AppGRPC { // the test process and the load reach the app alike on loopback
			return httpURL(da.port), nil
		}
		return grpcAddr(da.port), nil
	case perf.SidecarHTTP, perf.SidecarGRPC, perf.SidecarMetrics, perf.SidecarProfile:
	default:
		return "", fmt.Errorf("endpoint %s of %s: unknown endpoint", e, app)
	}
	sp := da.sidecar
	if b {
		sp = da.sidecarB
	}
	if sp == nil {
		return "", fmt.Errorf("endpoint %s of %s: the app has no sidecar", e, app)
	}
	switch e {
	case perf.SidecarHTTP:
		if px := d.proxies[proxyKey{app, e, b}]; px != nil {
			return httpURL(px.port()), nil
		}
		return httpURL(sp.HTTP), nil
	case perf.SidecarGRPC:
		if px := d.proxies[proxyKey{app, e, b}]; px != nil {
			return grpcAddr(px.port()), nil
		}
		return grpcAddr(sp.GRPC), nil
	case perf.SidecarMetrics:
		if da.app.Sidecar.DisableMetrics {
			return "", fmt.Errorf("endpoint %s of %s: metrics are disabled", e, app)
		}
		return httpURL(sp.Metrics), nil
	default: // perf.SidecarProfile
		if !da.app.Sidecar.Profiling {
			return "", fmt.Errorf("endpoint %s of %s: profiling is off", e, app)
		}
		return httpURL(sp.Profile), nil
	}
}

// TesterToken is the token the tester app was started with (env perf.EnvTesterToken), new for
// every deployment. It is an error when app is not a tester of d.
func (d *Deployment) TesterToken(app string) (string, error) {
	i := slices.IndexFunc(d.apps, func(da *deployedApp) bool { return da.app.Name == app })
	if i < 0 || d.apps[i].app.Kind != perf.Tester {
		return "", fmt.Errorf("tester token of %s: no tester app of that name (have %v)", app, d.Processes())
	}
	return d.apps[i].token, nil
}

// Exits lists the processes that ended without being asked to (including those ended by
// Kill), in the order they ended. Restarts is always 0: nothing is restarted.
func (d *Deployment) Exits(ctx context.Context) ([]perf.Exit, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("exits: %w", err)
	}
	var exits []perf.Exit
	for _, p := range d.processes() {
		if p.exited() && p.exit != nil {
			exits = append(exits, *p.exit)
		}
	}
	slices.SortFunc(exits, func(a, b perf.Exit) int { return a.At.Compare(b.At) })
	return exits, nil
}

// PID is the process ID of the named process, or 0 when there is no such process.
func (d *Deployment) PID(process string) int {
	if p := d.process(process); p != nil {
		return p.pid
	}
	return 0
}

// Kill sends SIGKILL to the named process and returns once it has been reaped; Exits then
// reports it ("signal SIGKILL"). It is for tests of unexpected exits.
func (d *Deployment) Kill(process string) error {
	p := d.process(process)
	if p == nil {
		return fmt.Errorf("kill %s: no such process (have %v)", process, d.Processes())
	}
	if p.exited() {
		return fmt.Errorf("kill %s (pid %d): already exited", process, p.pid)
	}
	if err := p.kill(); err != nil {
		return fmt.Errorf("kill %s (pid %d): %w", process, p.pid, err)
	}
	return nil
}
