package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// Dapr's sentry on the local platform, as Dapr's perf suite runs: mTLS on (perf.EnvMTLS, on
// unless "off"). One sentry per deployment, started before every other backend, issues the
// certificates of every daprd and of placement and scheduler. A first sentry, in its standalone
// mode, finds its credentials folder empty, generates a root and an issuer (Ed25519) and writes
// them there (pkg/sentry/server/ca, v1.17.5), and is stopped; the deployment's sentry then
// starts on those credentials (writeSentryCredentials says why). The platform reads the root,
// ca.crt, and hands it to each daprd as DAPR_TRUST_ANCHORS and to placement and scheduler as
// --trust-anchors-file.
// The trust domain is sentry's default, localhost, which is also daprd's default
// --control-plane-trust-domain.

// sentryCredentialFiles are what sentry writes into an empty credentials folder: the root, the
// issuer and the issuer's key, each PEM.
var sentryCredentialFiles = []string{"ca.crt", "issuer.crt", "issuer.key"}

// credentialsTimeout bounds the first sentry's generation of the credentials.
const credentialsTimeout = 30 * time.Second

// writeSentryCredentials has a first sentry generate the credentials into the empty folder
// creds, waits until that sentry answers its health check (so that it stops from a steady
// state, not in the middle of its start), then stops it by its PID. A sentry that wrote its own
// credentials has a watch on that folder that reloads it every 2 s for as long as it runs
// (v1.17.5: "Issuer credentials changed; reloading"), its gRPC port closed for a few
// milliseconds each time, and a daprd that asks for its identity then exits with "connection
// refused". A sentry that finds the credentials there writes nothing and never reloads.
// The first sentry's exit status after SIGTERM is not checked: it exists only to write the
// files, which are checked whole, and it is gone (reaped) either way. Error: the first sentry
// failed to start, wrote no complete credentials within credentialsTimeout (its log,
// sentry-init.log, says why), or could not be stopped.
func (d *Deployment) writeSentryCredentials(ctx context.Context, b *backendServer, args []string, creds string) error {
	if credentialsComplete(creds) {
		return nil
	}
	p, err := d.startBackendProc(ctx, b, string(perf.ControlSentry)+"-init", b.bins["sentry"], args, daprdEnv(), procSpec{grace: stopGrace})
	if err != nil {
		return fmt.Errorf("sentry: first start, to write its credentials: %w", err)
	}
	written := func(ctx context.Context) error {
		if p.exited() {
			return nil // nothing more to wait for: the files are checked below
		}
		if !credentialsComplete(creds) {
			return errors.New("credentials not complete yet")
		}
		_, err := b.kind.ping(ctx, b)
		return err
	}
	waitCtx, cancel := context.WithTimeout(ctx, credentialsTimeout)
	_ = poll(waitCtx, readiness{proc: p, check: written}) // on timeout, the files' check below says what is missing
	cancel()
	stopErr := p.stop(p.grace)
	d.mu.Lock()
	d.procs = slices.DeleteFunc(d.procs, func(q *process) bool { return q == p })
	d.mu.Unlock()
	b.procs = slices.DeleteFunc(b.procs, func(q *process) bool { return q == p })
	if !credentialsComplete(creds) {
		return fmt.Errorf("sentry: the first start wrote no complete %v into %s within %v (see %s)",
			sentryCredentialFiles, creds, credentialsTimeout, runFile(d.dir, string(perf.ControlSentry)+"-init.log"))
	}
	if stopErr != nil && !p.exited() {
		return fmt.Errorf("sentry: stop the first start: %w", stopErr)
	}
	return nil
}

// credentialsComplete reports whether every one of sentryCredentialFiles in creds holds a
// whole PEM block.
func credentialsComplete(creds string) bool {
	for _, f := range sentryCredentialFiles {
		b, err := os.ReadFile(filepath.Join(creds, f))
		if err != nil || !strings.Contains(string(b), "-----END ") {
			return false
		}
	}
	return true
}

// Ports of a sentry, in order: gRPC (--sentry-address), health, metrics.
const sentryPorts = 3

// sentryTrustDomain is sentry's and daprd's default control-plane trust domain.
const sentryTrustDomain = "localhost"

// planSentry plans the deployment's sentry, first of its backends, when mTLS is on and an app
// has a sidecar; its binary is the one beside daprd (`make control-plane`).
func (d *Deployment) planSentry(ps *ports, apps []perf.App) error {
	if !d.mtls || !slices.ContainsFunc(apps, func(a perf.App) bool { return a.Sidecar != nil }) {
		return nil
	}
	bin, err := controlPlaneBinary(d.a.path, perf.ControlSentry)
	if err != nil {
		return fmt.Errorf("%w (or set %s=off)", err, perf.EnvMTLS)
	}
	return d.addControlPlane(ps, &backendServer{backend: perf.ControlSentry, kind: sentryKind(d.a), bins: map[string]string{"sentry": bin}})
}

// sentryKind runs sentry in standalone mode, its credentials and an empty configuration in its
// private data directory. Its gRPC port is on 127.0.0.1; its health and metrics ports listen on
// every address whatever the flags say: sentry v1.17.5 passes only their ports to its healthz
// and metrics servers (cmd/sentry/app), as placement does for its health endpoint.
func sentryKind(a build) *backendKind {
	proc := string(perf.ControlSentry)
	return &backendKind{
		proc:  proc,
		pkg:   controlPlanePackage(perf.ControlSentry, a),
		ports: sentryPorts,
		launch: func(ctx context.Context, d *Deployment, b *backendServer) error {
			creds := filepath.Join(b.dir, "credentials")
			if err := os.MkdirAll(creds, 0o700); err != nil {
				return err
			}
			config := filepath.Join(b.dir, "sentry-config.yaml")
			if err := os.WriteFile(config, nil, 0o600); err != nil {
				return err
			}
			args := append(loopbackArgs(b),
				"--issuer-credentials", creds,
				"--config", config,
				"--trust-domain", sentryTrustDomain,
				"--mode", "standalone",
			)
			if err := d.writeSentryCredentials(ctx, b, args, creds); err != nil {
				return err
			}
			p, err := d.startBackendProc(ctx, b, proc, b.bins["sentry"], args, daprdEnv(), procSpec{grace: stopGrace})
			b.main = p
			return err
		},
		ping:     healthPing(a.version),
		metadata: func(*backendServer) map[string]string { return nil },
	}
}

// trustAnchorsFile is the root certificate sentry wrote, once it is ready.
func (b *backendServer) trustAnchorsFile() string {
	return filepath.Join(b.dir, "credentials", "ca.crt")
}

// readTrustAnchors reads the root certificate of the deployment's sentry into d.trustAnchors,
// once sentry answers its health check. Error: sentry wrote no PEM certificate.
func (d *Deployment) readTrustAnchors() error {
	b := d.backendNamed(string(perf.ControlSentry))
	if b == nil {
		return nil
	}
	pem, err := os.ReadFile(b.trustAnchorsFile())
	if err != nil {
		return fmt.Errorf("sentry: trust anchors: %w", err)
	}
	if !strings.Contains(string(pem), "BEGIN CERTIFICATE") {
		return fmt.Errorf("sentry: trust anchors %s: no PEM certificate", b.trustAnchorsFile())
	}
	d.trustAnchors = string(pem)
	return nil
}

// sentryArgs are the daprd flags of mTLS with the deployment's sentry; none when mTLS is off.
func (d *Deployment) sentryArgs() []string {
	b := d.backendNamed(string(perf.ControlSentry))
	if b == nil {
		return nil
	}
	return []string{"--enable-mtls", "--sentry-address", b.addr()}
}

// sidecarEnv is a daprd's environment: daprdEnv, with the trust anchors when mTLS is on.
func (d *Deployment) sidecarEnv() []string {
	env := daprdEnv()
	if d.trustAnchors != "" {
		env = append(env, "DAPR_TRUST_ANCHORS="+d.trustAnchors)
	}
	return env
}

// controlPlaneTLSArgs are the flags of placement and scheduler: TLS with certificates from
// the deployment's sentry when mTLS is on, TLS off otherwise.
func (d *Deployment) controlPlaneTLSArgs() []string {
	b := d.backendNamed(string(perf.ControlSentry))
	if b == nil {
		return []string{"--tls-enabled=false"}
	}
	return []string{"--tls-enabled=true", "--sentry-address", b.addr(),
		"--trust-anchors-file", b.trustAnchorsFile(), "--trust-domain", sentryTrustDomain}
}

// MTLS says whether the deployment's sidecars talk over mTLS (perf.Secured).
func (d *Deployment) MTLS() bool { return d.backendNamed(string(perf.ControlSentry)) != nil }

var _ perf.Secured = (*Deployment)(nil)
