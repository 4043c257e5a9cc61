package kube

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/daprperf/daprperf/perf"
)

// restartTimeout bounds a backend's restart on the cluster: its pods' termination (their
// grace period) and the new pods' start until the Service has a ready endpoint again.
const restartTimeout = 3 * time.Minute

// BackendService is the Service a backend's address names: "<name>.<namespace>.svc[.<domain>]"
// or "<name>.<namespace>", with or without a port. It is an error when the address is an IP
// or a name of another form, since only a Service of the cluster can be restarted through its
// pods.
func BackendService(addr string) (name, ns string, err error) {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	parts := strings.Split(host, ".")
	switch {
	case net.ParseIP(host) != nil, len(parts) < 2, len(parts) > 2 && parts[2] != "svc":
		return "", "", fmt.Errorf("address %q is not a Service of the cluster (<service>.<namespace>[.svc[.<domain>]][:port])", addr)
	}
	for _, p := range parts[:2] {
		if p == "" {
			return "", "", fmt.Errorf("address %q is not a Service of the cluster (<service>.<namespace>[.svc[.<domain>]][:port])", addr)
		}
	}
	return parts[0], parts[1], nil
}

// CanRestartBackend says, before any pod starts, whether a deployment could restart backend b
// (perf.RestartChecker): its address variable must name a Service of the cluster. The error
// names the variable and what it accepts.
func (p *Platform) CanRestartBackend(b perf.Backend) error {
	addr, _, _, addrVar, _, _ := envOf(p.env, b)
	if addrVar == "" {
		return fmt.Errorf("restart backend %s: the kubernetes platform takes no %s from the environment", b, b)
	}
	if perf.Val(addr) == "" {
		return fmt.Errorf("restart backend %s: %s is unset: a restart needs the backend's Service in the cluster", b, addrVar)
	}
	if _, _, err := BackendService(perf.Val(addr)); err != nil {
		return fmt.Errorf("restart backend %s: %s: %w", b, addrVar, err)
	}
	return nil
}

var _ perf.RestartChecker = (*Platform)(nil)

// RestartBackend restarts backend b where the deployment's components reach it: it deletes
// every pod behind the Service its address names (each with its own grace period, so the
// server gets its stop signal first), and returns once the Service has a ready endpoint on a
// new pod, with how long that took from the delete. The pods' controller (a Deployment or a
// StatefulSet) starts the new ones; a backend without persistence comes back empty, as on the
// local platform. It is an error naming b when the deployment does not use b, when b's address
// is no Service (BackendService), when the Service selects no pod, or when no new pod is ready
// within restartTimeout.
func (d *Deployment) RestartBackend(ctx context.Context, b perf.Backend) (time.Duration, error) {
	var addr string
	for _, bi := range d.backends {
		if bi.Backend == b {
			addr = bi.Address
		}
	}
	if addr == "" {
		return 0, fmt.Errorf("restart backend %s: the deployment does not use it (its backends: %v)", b, d.backends)
	}
	svc, ns, err := BackendService(addr)
	if err != nil {
		return 0, fmt.Errorf("restart backend %s: %w", b, err)
	}
	ctx, cancel := context.WithTimeout(ctx, restartTimeout)
	defer cancel()
	return restartService(ctx, d.p.cs, ns, svc)
}

var _ perf.BackendRestarter = (*Deployment)(nil)

// restartService deletes the pods Service ns/svc selects and waits until one of its ready
// endpoints is a pod that was not among them; it returns the time from the first delete.
func restartService(ctx context.Context, cs kubernetes.Interface, ns, svc string) (time.Duration, error) {
	s, err := cs.CoreV1().Services(ns).Get(ctx, svc, metav1.GetOptions{})
	if err != nil {
		return 0, fmt.Errorf("restart service %s/%s: %w", ns, svc, err)
	}
	if len(s.Spec.Selector) == 0 {
		return 0, fmt.Errorf("restart service %s/%s: it selects no pods (no spec.selector)", ns, svc)
	}
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(s.Spec.Selector).String()})
	if err != nil {
		return 0, fmt.Errorf("restart service %s/%s: %w", ns, svc, err)
	}
	if len(pods.Items) == 0 {
		return 0, fmt.Errorf("restart service %s/%s: no pod matches its selector %v", ns, svc, s.Spec.Selector)
	}
	old := map[types.UID]bool{}
	start := time.Now()
	for _, p := range pods.Items {
		old[p.UID] = true
		if err := cs.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
			return time.Since(start), fmt.Errorf("restart service %s/%s: delete pod %s: %w", ns, svc, p.Name, err)
		}
	}
	tick := time.NewTicker(rolloutPoll)
	defer tick.Stop()
	for {
		n, err := readyEndpointsExcept(ctx, cs, ns, svc, old)
		if err == nil && n > 0 {
			return time.Since(start), nil
		}
		select {
		case <-ctx.Done():
			return time.Since(start), fmt.Errorf("restart service %s/%s: no new pod ready: %w", ns, svc, errors.Join(context.Cause(ctx), err))
		case <-tick.C:
		}
	}
}
