package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// Platform runs apps and daprd sidecars as child processes on 127.0.0.1. It implements
// perf.Platform; make one with New.
type Platform struct {
	daprd     string        // path of the daprd binary
	version   string        // what `daprd --version` printed
	b         *build        // the second daprd build of an A/B run; nil without one
	root      string        // repository root: the apps are built from here
	alloc     PortAllocator // where every port comes from
	runParent string        // run directories are created here; "" is os.TempDir()
	mtls      bool          // a sentry and mTLS in every deployment with a sidecar (sentry.go)
	// abDelay is DAPR_PERF_AB_DELAY: build B's sidecars reached through delayProxy with it, A's
	// through one without (abdelay.go); nil without.
	abDelay *time.Duration
}

var _ perf.Platform = (*Platform)(nil)

// Option configures New.
type Option func(*options)

type options struct {
	daprd     string
	daprdB    string // "" means DAPR_PERF_DAPRD_B decides
	noB       bool
	alloc     PortAllocator
	runParent string
	mtls      *bool // nil: DAPR_PERF_MTLS decides
	env       perf.Env
}

// WithEnv is the run's environment (perf.RunConfig.Env), which New reads DAPR_PERF_DAPRD,
// DAPR_VERSION, DAPR_PERF_DAPRD_B and DAPR_PERF_MTLS from; without it New reads no variable and
// takes the defaults (the built daprd of the Makefile's version, no build B, mTLS on).
func WithEnv(env perf.Env) Option { return func(o *options) { o.env = env } }

// WithDaprd runs the daprd binary at path instead of the one Daprd finds.
func WithDaprd(path string) Option { return func(o *options) { o.daprd = path } }

// WithDaprdB runs a second daprd build, the binary at path, beside every sidecar (an A/B run;
// see SideB), instead of the one DAPR_PERF_DAPRD_B names.
func WithDaprdB(path string) Option { return func(o *options) { o.daprdB = path } }

// WithoutDaprdB runs no second build, whatever DAPR_PERF_DAPRD_B says.
func WithoutDaprdB() Option { return func(o *options) { o.noB = true } }

// WithPortAllocator takes every port from alloc instead of FreePort. For each app, in the
// order given to Start, it is asked for the app's port and then, when the app has a
// sidecar, for daprd's HTTP, gRPC, internal gRPC, metrics and profile ports; then (after the
// build-B sidecars' ports of an A/B run) for the ports of each backend the components need, in
// the order first needed: redis 1, postgresql 1, rabbitmq 3 (AMQP, distribution, epmd), mqtt
// 1; then, with mTLS on, 3 for sentry (gRPC, health, metrics); then 4 for each placement
// (gRPC, health, metrics, raft; placement groups sorted by name)
// and 5 for a scheduler (gRPC, health, metrics, etcd client, etcd peer). A port already handed
// out in the same deployment is asked for again.
func WithPortAllocator(alloc PortAllocator) Option { return func(o *options) { o.alloc = alloc } }

// WithMTLS turns sentry and mTLS on or off, whatever DAPR_PERF_MTLS says.
func WithMTLS(on bool) Option { return func(o *options) { o.mtls = &on } }

// WithRunDirParent creates each deployment's run directory (logs, configuration) in dir
// instead of os.TempDir().
func WithRunDirParent(dir string) Option { return func(o *options) { o.runParent = dir } }

// New returns the local platform, with sentry and mTLS unless DAPR_PERF_MTLS=off (or
// WithMTLS). It fails when no daprd can be found (see Daprd), when
// the one named is missing or not executable, when it cannot tell its version, or when
// the working directory is not inside the daprperf repository (the apps are built there).
// With DAPR_PERF_DAPRD_B set (or WithDaprdB) it also runs that second build beside every
// sidecar (see DaprdB); a B that cannot be found or run is an error naming the variable.
func New(opts ...Option) (*Platform, error) {
	o := options{alloc: FreePort}
	for _, opt := range opts {
		opt(&o)
	}
	daprd := o.daprd
	if daprd != "" {
		if err := checkExecutable(daprd); err != nil {
			return nil, fmt.Errorf("local: WithDaprd(%s): %w", daprd, err)
		}
	} else {
		var err error
		if daprd, err = Daprd(o.env); err != nil {
			return nil, fmt.Errorf("local: %w", err)
		}
	}
	version, err := daprdVersion(context.Background(), daprd)
	if err != nil {
		return nil, fmt.Errorf("local: daprd version: %w", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	root, err := perf.RepoRootFrom(wd)
	if err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	if o.alloc == nil {
		o.alloc = FreePort
	}
	p := &Platform{daprd: daprd, version: version, root: root, alloc: o.alloc, runParent: o.runParent}
	if o.mtls != nil {
		p.mtls = *o.mtls
	} else {
		p.mtls = perf.MTLSFromEnv(o.env)
	}
	if !o.noB {
		if p.b, err = buildB(o.env, o.daprdB, root); err != nil {
			return nil, fmt.Errorf("local: %w", err)
		}
	}
	// A plan that runs one build (WithoutDaprdB) has no build B to slow.
	if p.abDelay = o.env.ABDelay; o.noB {
		p.abDelay = nil
	} else if p.abDelay != nil && p.b == nil {
		return nil, fmt.Errorf("local: %s=%v: a slowdown of build B needs an A/B run: set %s too", perf.EnvABDelay, *p.abDelay, EnvDaprdB)
	}
	return p, nil
}

// Name is "local".
func (p *Platform) Name() string { return "local" }

// DaprVersion is what the daprd binary reports as its version ("1.17.5").
func (p *Platform) DaprVersion() string { return p.version }

// DaprdB is the path and version of the second build an A/B run runs beside every sidecar;
// ok is false without one.
func (p *Platform) DaprdB() (path, version string, ok bool) {
	if p.b == nil {
		return "", "", false
	}
	return p.b.path, p.b.version, true
}

// Start is StartE that fails t (t.Fatalf) instead of returning an error.
func (p *Platform) Start(ctx context.Context, t perf.TB, apps ...perf.App) perf.Deployment {
	t.Helper()
	d, err := p.StartE(ctx, t, apps...)
	if err != nil {
		t.Fatalf("local: %v", err)
	}
	return d
}

// StartE starts the backends the sidecars' Components need (Redis, PostgreSQL, RabbitMQ,
// Mosquitto; each answering its protocol ping first), then the apps, then, once every app
// answers its health check, the daprd of each app that has a Sidecar (when several have a
// PostgreSQL component, one of those first: migratesFirst), and returns once every daprd
// answers /v1.0/healthz with 204. ctx bounds the
// app builds and that wait, not the processes' life: they run until t ends, when t.Cleanup
// stops them and removes the run directory (kept, and logged, when t failed). On error
// whatever was started is stopped at once; the error names the process, the last health
// error or the exit status, and the log.
func (p *Platform) StartE(ctx context.Context, t perf.TB, apps ...perf.App) (*Deployment, error) {
	t.Helper()
	if err := validate(apps); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	if err := validateComponents(apps); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	dir, err := os.MkdirTemp(p.runParent, "daprperf-local-*")
	if err != nil {
		return nil, fmt.Errorf("start: run dir: %w", err)
	}
	d := newDeployment(dir, build{path: p.daprd, version: p.version}, p.b, len(apps)*3+maxBackendProcs+len(perf.PlacementGroups(apps))+2)
	d.mtls, d.abDelay = p.mtls, p.abDelay
	d.logs.dir = perf.LogsDir(ctx)
	trackRunDir(d.logs, perf.InterruptHook(ctx))
	t.Cleanup(func() { d.close(t) }) // registered as soon as there is something to clean up

	if err := d.plan(p.alloc, apps); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	if err := d.startDelayProxies(); err != nil {
		return nil, stopAfter(fmt.Errorf("start: %w", err), d)
	}
	bins, err := p.buildApps(ctx, apps)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	if err := d.startBackends(t.Context(), ctx); err != nil {
		return nil, stopAfter(fmt.Errorf("start: %w", err), d)
	}
	if err := d.launchApps(t.Context(), bins); err != nil {
		return nil, stopAfter(fmt.Errorf("start: %w", err), d)
	}
	if err := waitReady(ctx, d.appReadiness(), d.exitCh); err != nil {
		return nil, stopAfter(fmt.Errorf("start: %w", err), d)
	}
	if err := d.startSidecars(t.Context(), ctx); err != nil {
		return nil, stopAfter(fmt.Errorf("start: %w", err), d)
	}
	return d, nil
}

// buildApps builds the binary of each kind apps use; the result maps kind to path.
func (p *Platform) buildApps(ctx context.Context, apps []perf.App) (map[perf.AppKind]string, error) {
	bins := map[perf.AppKind]string{}
	for _, a := range apps {
		if _, ok := bins[a.Kind]; ok {
			continue
		}
		bin, err := appBinary(ctx, p.root, a.Kind)
		if err != nil {
			return nil, err
		}
		bins[a.Kind] = bin
	}
	return bins, nil
}

// stopAfter stops d's processes at once, after err stopped the start, and adds any
// teardown error to err.
func stopAfter(err error, d *Deployment) error {
	if serr := d.stopAll(); serr != nil {
		return fmt.Errorf("%w\nthen, stopping the rest: %w", err, serr)
	}
	return err
}

// runFile is the path of a file in the run directory.
func runFile(dir, name string) string { return filepath.Join(dir, name) }
