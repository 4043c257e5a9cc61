package local

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// ErrBackendMissing is wrapped by the error of Platform.StartE when a backend's binary is not
// installed; the error names the Debian package to install.
var ErrBackendMissing = errors.New("backend binary not found")

// maxBackendProcs is the most processes the backends of one deployment run: one each, plus
// RabbitMQ's epmd.
const maxBackendProcs = 5

// backendStopGrace is how long a backend gets after its stop signal before SIGKILL: RabbitMQ
// needs about 2.5 s to stop in order on a busy 2-core machine.
const backendStopGrace = 15 * time.Second

// backendKind is what the platform knows of running one perf.Backend.
type backendKind struct {
	proc string // process name in Exits and Usage
	pkg  string // the Debian package that provides the binaries (what to install when missing)
	bins []binary
	// find, when set, finds the binaries instead of bins (a backend whose folder carries its
	// version) and returns the package that installed them.
	find  func(b perf.Backend) (map[string]string, string, error)
	ports int // how many ports it listens on; the first is the one components use
	// launch starts the backend's processes, in b.dir, on b.ports.
	launch func(ctx context.Context, d *Deployment, b *backendServer) error
	// ping asks the running backend, over its own protocol, whether it answers, and returns the
	// version it reports.
	ping func(ctx context.Context, b *backendServer) (string, error)
	// metadata is the spec.metadata that points a component at b.
	metadata func(b *backendServer) map[string]string
}

// binary is one program of a backend: the first of candidates that exists (a path, or a name
// looked up on PATH).
type binary struct {
	name       string
	candidates []string
}

// backendKinds is every backend the local platform can start.
var backendKinds = map[perf.Backend]*backendKind{
	perf.BackendRedis:      redisKind,
	perf.BackendPostgreSQL: postgresKind,
	perf.BackendRabbitMQ:   rabbitmqKind,
	perf.BackendMQTT:       mqttKind,
}

// backendServer is one backend started for a deployment.
type backendServer struct {
	backend perf.Backend
	kind    *backendKind
	bins    map[string]string // binary name -> path
	pkg     string            // the Debian package the binaries came from
	ports   []int
	dir     string // private data directory
	procs   []*process
	main    *process // the process whose exit means the backend is gone

	started time.Time
	ready   time.Duration // start to first successful ping
	version string
}

// addr is the host:port components reach b on.
func (b *backendServer) addr() string { return "127.0.0.1:" + strconv.Itoa(b.ports[0]) }

// lookPath finds a program on PATH; tests replace it.
var lookPath = exec.LookPath

// findBinaries resolves every binary of k, or returns an error wrapping ErrBackendMissing
// that names the Debian package to install.
func findBinaries(b perf.Backend, k *backendKind) (map[string]string, error) {
	paths, _, err := findBackend(b, k)
	return paths, err
}

// findBackend is findBinaries that also returns the Debian package the binaries came from.
func findBackend(b perf.Backend, k *backendKind) (map[string]string, string, error) {
	if k.find != nil {
		return k.find(b)
	}
	paths := map[string]string{}
	for _, bin := range k.bins {
		for _, c := range bin.candidates {
			if p, err := lookPath(c); err == nil {
				paths[bin.name] = p
				break
			}
		}
		if paths[bin.name] == "" {
			return nil, "", fmt.Errorf("%w: %s needs %s (looked for %s): install the Debian package %s (apt-get install %s, or make test-deps)",
				ErrBackendMissing, b, bin.name, strings.Join(bin.candidates, ", "), k.pkg, k.pkg)
		}
	}
	return paths, k.pkg, nil
}

// validateComponents checks the components of every sidecar of apps before anything starts:
// each sidecar's list (perf.ValidateComponents); one definition per component name across the
// deployment, since all daprd share one resources folder; and backend process names that no
// app process uses.
func validateComponents(apps []perf.App) error {
	defs := map[string]perf.Component{}
	owner := map[string]string{}
	procs := map[string]bool{}
	for _, a := range apps {
		procs[a.Name] = true
		for _, b := range a.Backends {
			if _, ok := backendKinds[b]; !ok {
				return fmt.Errorf("app %s: Backends: the local platform cannot start a %q backend (want %s, %s, %s or %s)",
					a.Name, b, perf.BackendRedis, perf.BackendPostgreSQL, perf.BackendRabbitMQ, perf.BackendMQTT)
			}
		}
		if a.Sidecar == nil {
			continue
		}
		procs[perf.SidecarName(a.Name)] = true
		if err := perf.ValidateComponents(a.Sidecar.Components); err != nil {
			return fmt.Errorf("app %s: %w", a.Name, err)
		}
		for _, c := range a.Sidecar.Components {
			if prev, ok := defs[c.Name]; ok && !sameComponent(prev, c) {
				return fmt.Errorf("app %s: component %s (%s) is defined differently by app %s (%s): one name, one definition per deployment",
					a.Name, c.Name, c.Type, owner[c.Name], prev.Type)
			}
			defs[c.Name], owner[c.Name] = c, a.Name
			if b := c.Backend(); b != perf.NoBackend {
				if _, ok := backendKinds[b]; !ok {
					return fmt.Errorf("app %s: component %s: the local platform cannot start a %s backend (%s and %s are for %s=kubernetes only: no registry here serves a real broker)",
						a.Name, c.Name, b, perf.BackendKafka, perf.BackendPulsar, "DAPR_PERF_PLATFORM")
				}
			}
		}
	}
	for _, b := range neededBackends(apps) {
		for _, name := range backendKinds[b].procNames() {
			if procs[name] {
				return fmt.Errorf("app name %s: it is also the process name of the %s backend this deployment starts", name, b)
			}
		}
	}
	var cp []string
	for _, g := range perf.PlacementGroups(apps) {
		if err := perf.ValidAppName(g); err != nil {
			return fmt.Errorf("sidecar placement group %q (Sidecar.Placement): must be a lowercase RFC 1123 label, like an app name", g)
		}
		cp = append(cp, perf.PlacementProcess(g))
	}
	if perf.NeedsScheduler(apps) {
		cp = append(cp, string(perf.ControlScheduler))
	}
	cp = append(cp, string(perf.ControlSentry)) // when mTLS is on
	for _, name := range cp {
		if procs[name] {
			return fmt.Errorf("app name %s: it is also the process name of the actor control plane this deployment starts", name)
		}
	}
	return nil
}

// procNames are the process names k's backend uses.
func (k *backendKind) procNames() []string {
	if k == rabbitmqKind {
		return []string{k.proc, epmdProc}
	}
	return []string{k.proc}
}

func sameComponent(a, b perf.Component) bool {
	return a.Type == b.Type && a.SpecVersion() == b.SpecVersion() && fmt.Sprint(a.Metadata) == fmt.Sprint(b.Metadata)
}

// neededBackends is every backend the sidecars of apps need, in the order first needed.
// The backends apps themselves ask for (perf.App.Backends) come after the components'.
func neededBackends(apps []perf.App) []perf.Backend {
	var all []perf.Component
	for _, a := range apps {
		if a.Sidecar != nil {
			all = append(all, a.Sidecar.Components...)
		}
	}
	bs := perf.Backends(all)
	for _, a := range apps {
		for _, b := range a.Backends {
			if !slices.Contains(bs, b) {
				bs = append(bs, b)
			}
		}
	}
	return bs
}

// planBackends finds each needed backend's binaries and takes its ports from ps; nothing runs
// yet. A missing binary is an error naming the package.
func (d *Deployment) planBackends(ps *ports, apps []perf.App) error {
	for _, be := range neededBackends(apps) {
		k := backendKinds[be]
		bins, pkg, err := findBackend(be, k)
		if err != nil {
			return err
		}
		b := &backendServer{backend: be, kind: k, bins: bins, pkg: pkg, dir: filepath.Join(d.backendsDir(), string(be))}
		for range k.ports {
			port, err := ps.next()
			if err != nil {
				return fmt.Errorf("ports of %s: %w", k.proc, err)
			}
			b.ports = append(b.ports, port)
		}
		d.backends = append(d.backends, b)
	}
	return nil
}

// backendsDir holds each backend's private data directory.
func (d *Deployment) backendsDir() string { return runFile(d.dir, "backends") }

// startBackends starts every planned backend and returns once each answers its protocol ping;
// ready bounds that wait. A port already in use is an error naming the backend and the port.
//
// Unlike apps and sidecars, which get SIGTERM when run (the test's context) ends, before the
// cleanups, the backends outlive run: the deployment's cleanup (stopAll) stops them after every
// daprd has exited, since a daprd closing its components must still reach them (daprd 1.17.5
// exits 1 when its RabbitMQ connection is gone at shutdown). The signal handler and Pdeathsig
// cover them as they cover every child.
func (d *Deployment) startBackends(run, ready context.Context) error {
	if len(d.backends) == 0 {
		return nil
	}
	run = context.WithoutCancel(run)
	if err := os.Mkdir(d.backendsDir(), 0o755); err != nil {
		return fmt.Errorf("backends folder: %w", err)
	}
	// Sentry first, alone: placement and scheduler read the root certificate it writes.
	if b := d.backendNamed(string(perf.ControlSentry)); b != nil {
		if err := d.startBackend(run, b); err != nil {
			return err
		}
		if err := waitReady(ready, []readiness{{proc: b.main, check: b.readyCheck()}}, d.exitCh); err != nil {
			return err
		}
		if err := d.readTrustAnchors(); err != nil {
			return err
		}
	}
	// RabbitMQ first: it is the slowest to come up (about 5 s), and the others start meanwhile.
	order := slices.DeleteFunc(slices.Clone(d.backends), func(b *backendServer) bool { return b.backend == perf.ControlSentry })
	slices.SortStableFunc(order, func(a, b *backendServer) int {
		return boolInt(b.backend == perf.BackendRabbitMQ) - boolInt(a.backend == perf.BackendRabbitMQ)
	})
	// Each backend's ping starts as soon as it is launched, so its time to ready is its own.
	ctx, cancel := context.WithCancel(ready)
	defer cancel() // stops the other polls once one fails
	results := make(chan error, len(order))
	for _, b := range order {
		if err := d.startBackend(run, b); err != nil {
			return err
		}
		r := readiness{proc: b.main, check: b.readyCheck()}
		go func() { results <- poll(ctx, r) }()
	}
	for range order {
		select {
		case err := <-results:
			if err != nil {
				return err
			}
		case p := <-d.exitCh:
			return exitedDuringStart(p)
		}
	}
	return nil
}

// startBackend launches b in its data directory, once its ports are free; it does not wait.
func (d *Deployment) startBackend(run context.Context, b *backendServer) error {
	if err := portsFree(b); err != nil {
		return err
	}
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return fmt.Errorf("%s: data dir: %w", b.kind.proc, err)
	}
	b.started = time.Now()
	if err := b.kind.launch(run, d, b); err != nil {
		return fmt.Errorf("%s: %w", b.kind.proc, err)
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readyCheck is b's health check: its protocol ping, which records the version and the time
// to ready when it first passes.
func (b *backendServer) readyCheck() check {
	return func(ctx context.Context) error {
		v, err := b.kind.ping(ctx, b)
		if err != nil {
			return err
		}
		b.version, b.ready = v, time.Since(b.started)
		return nil
	}
}

// portsFree checks that nothing listens on b's ports yet, so that a port in use is named
// rather than reported as the backend's failure to start.
func portsFree(b *backendServer) error {
	for _, port := range b.ports {
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			return fmt.Errorf("%s: port 127.0.0.1:%d is in use: %w", b.kind.proc, port, err)
		}
		_ = ln.Close()
	}
	return nil
}

// startBackendProc starts one process of b, logging to <run dir>/<name>.log.
func (d *Deployment) startBackendProc(ctx context.Context, b *backendServer, name, bin string, args, env []string, spec procSpec) (*process, error) {
	if spec.grace == 0 {
		spec.grace = backendStopGrace
	}
	p, err := startProcessWith(ctx, name, runFile(d.dir, name+".log"), bin, args, env, spec, d.notifyExit)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.procs = append(d.procs, p)
	d.mu.Unlock()
	b.procs = append(b.procs, p)
	return p, nil
}

// Backends describes each backend the deployment started, in the order the components first
// needed them: its process, the version it reported, its address and its time to ready.
// runner.Run records them in the report's environment.
func (d *Deployment) Backends() []perf.BackendInfo {
	var out []perf.BackendInfo
	for _, b := range d.backends {
		out = append(out, perf.BackendInfo{
			Backend:      b.backend,
			Process:      b.kind.proc,
			Version:      b.version,
			Package:      cmp.Or(b.pkg, b.kind.pkg),
			Address:      b.addr(),
			ReadySeconds: b.ready.Seconds(),
		})
	}
	return out
}

var _ perf.BackendLister = (*Deployment)(nil)

// isBackend reports whether p is a process of one of d's backends.
func (d *Deployment) isBackend(p *process) bool {
	for _, b := range d.backends {
		if slices.Contains(b.procs, p) {
			return true
		}
	}
	return false
}

// backendEnv is os.Environ without the variables whose names start with one of prefixes, then
// extra: a backend reads only the settings the platform gives it.
func backendEnv(prefixes []string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}
