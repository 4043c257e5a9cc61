package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/daprperf/daprperf/perf"
)

// Deployment is a set of apps started by Platform.StartE in the namespace Namespace. It
// implements perf.Deployment.
type Deployment struct {
	p    *Platform
	ns   string
	apps []AppDescription

	mu       sync.Mutex
	version  string
	mtls     *bool               // the daprd container's --enable-mtls, once read (readVersion)
	forwards map[string]*forward // app -> its port-forward, made on first use
	tokens   map[string]string   // tester app -> its per-run token, as in its Secret
	cpu      cpuIntegrator
	closed   bool
	backends []perf.BackendInfo // from the environment, for the report (no credential)
	logsDir  string             // where a failed test's logs go (perf.LogsDir); "": none kept
}

var _ perf.Deployment = (*Deployment)(nil)

func newDeployment(p *Platform, ns string, apps []AppDescription) *Deployment {
	return &Deployment{p: p, ns: ns, apps: apps, forwards: map[string]*forward{}, tokens: map[string]string{}, cpu: cpuIntegrator{}}
}

// Namespace is the run's namespace, daprperf-<random>.
func (d *Deployment) Namespace() string { return d.ns }

// DaprVersion is the tag of the injected daprd image ("1.17.5"), or "" when no pod has a
// daprd container (no app has a sidecar, or the cluster has no Dapr injector).
func (d *Deployment) DaprVersion() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.version
}

// Processes lists each app's name and, for each app with a sidecar, "<app>-daprd".
func (d *Deployment) Processes() []string {
	var ps []string
	for _, a := range d.apps {
		ps = append(ps, a.Name)
		if a.DaprEnabled {
			ps = append(ps, perf.SidecarName(a.Name))
		}
	}
	return ps
}

// app returns the description of the app named name.
func (d *Deployment) app(name string) (AppDescription, error) {
	for _, a := range d.apps {
		if a.Name == name {
			return a, nil
		}
	}
	return AppDescription{}, fmt.Errorf("no app %q in namespace %s", name, d.ns)
}

// setToken records the token of tester app, once its Secret exists.
func (d *Deployment) setToken(app, token string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.tokens[app] = token
}

// TesterToken is the per-run token of tester app, the one its Secret holds. It is an error
// when app is not a tester of d, or its Secret was not created.
func (d *Deployment) TesterToken(app string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if token, ok := d.tokens[app]; ok {
		return token, nil
	}
	return "", fmt.Errorf("tester token of %s: no tester of that name with a token Secret in namespace %s", app, d.ns)
}

// close stops every port-forward, deletes the testers' token Secrets and BackendSecret (a token
// or a password must not outlive its run, even in a namespace stuck terminating), then deletes the namespace and waits until
// it is gone (bounded by the platform's delete timeout). It runs once; later calls return nil.
func (d *Deployment) close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	fws := d.forwards
	d.forwards = nil
	d.mu.Unlock()
	for _, f := range fws {
		f.Close()
	}
	var errs []error
	// The test's context has ended when cleanups run; teardown has bounds of its own.
	errs = append(errs, deleteTokenSecrets(context.Background(), d.p.cs, d.ns, d.apps, d.p.deleteTimeout))
	if len(d.backends) > 0 { // the backends' credentials go with the tokens
		ctx, cancel := context.WithTimeout(context.Background(), d.p.deleteTimeout)
		errs = append(errs, deleteBackendSecret(ctx, d.p.cs, d.ns))
		cancel()
	}
	errs = append(errs, deleteNamespace(context.Background(), d.p.cs, d.ns, d.p.deleteTimeout))
	return errors.Join(errs...)
}

// Backends lists the backends the deployment's components use, as the environment gave them:
// each address and the variable it came from (BackendInfo.From), never a credential. The
// platform does not reach them itself, so Version is "". runner.Run records them in the report's
// environment.
func (d *Deployment) Backends() []perf.BackendInfo { return d.backends }

var _ perf.BackendLister = (*Deployment)(nil)
