package kube

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/daprperf/daprperf/perf"
)

// Endpoint returns the address of app's endpoint e as runner.Run uses it, which on Kubernetes
// depends on who connects:
//   - the test process drives the tester, reads the apps' counts (GET /stats) and opens fault
//     windows, and reads daprd's metrics and profile: for AppControl (the app's HTTP port),
//     SidecarMetrics and SidecarProfile it is LocalEndpoint;
//   - the pods send the load: for an app's AppHTTP or AppGRPC it is that app's Service inside
//     the cluster, and for SidecarHTTP or SidecarGRPC it is 127.0.0.1 with daprd's port, which
//     is the app's own sidecar seen from its pod (ClusterEndpoint).
//
// The error names the app and the endpoint when the app has no such endpoint.
func (d *Deployment) Endpoint(app string, e perf.Endpoint) (string, error) {
	a, err := d.app(app)
	if err != nil {
		return "", err
	}
	switch {
	case e == perf.AppControl:
		u, err := d.LocalEndpoint(context.Background(), app, perf.AppHTTP)
		if err != nil {
			return "", fmt.Errorf("app %s: %s: %w", a.Name, e, err)
		}
		return u, nil
	case e == perf.SidecarMetrics, e == perf.SidecarProfile:
		return d.LocalEndpoint(context.Background(), app, e)
	default:
		return d.ClusterEndpoint(app, e)
	}
}

// ClusterEndpoint is the address of app's endpoint e from inside the cluster: the app's own
// port through its Service's DNS name (<app>.<namespace>.svc), and the sidecar's ports on
// 127.0.0.1, which only the app's own pod reaches (daprd listens on loopback by default).
func (d *Deployment) ClusterEndpoint(app string, e perf.Endpoint) (string, error) {
	a, port, err := d.endpointPort(app, e)
	if err != nil {
		return "", err
	}
	host := "127.0.0.1"
	if e == perf.AppHTTP || e == perf.AppGRPC {
		host = a.Name + "." + d.ns + ".svc"
	}
	return address(e, host, int(port)), nil
}

// LocalEndpoint is the address of app's endpoint e from the machine running the test: the
// Service's LoadBalancer ingress when it has one, else a port-forward to 127.0.0.1 (one per
// app, made on first use, for all of its ports, stopped at teardown). ctx bounds reading the
// Service and finding the pod; the forward itself lasts until teardown.
func (d *Deployment) LocalEndpoint(ctx context.Context, app string, e perf.Endpoint) (string, error) {
	a, port, err := d.endpointPort(app, e)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	svc, err := d.p.cs.CoreV1().Services(d.ns).Get(ctx, a.Name, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("app %s: %s: read Service: %w", app, e, err)
	}
	for _, in := range svc.Status.LoadBalancer.Ingress {
		host := in.IP
		if host == "" {
			host = in.Hostname
		}
		if host != "" {
			return address(e, host, int(port)), nil
		}
	}
	f, err := d.forward(ctx, a)
	if err != nil {
		return "", fmt.Errorf("app %s: %s: %w", app, e, err)
	}
	local := f.Local(port)
	if local == 0 {
		return "", fmt.Errorf("app %s: %s: port %d is not forwarded", app, e, port)
	}
	return address(e, "127.0.0.1", int(local)), nil
}

// endpointPort is the pod port of app's endpoint e, or an error naming both when the app has
// no such endpoint.
func (d *Deployment) endpointPort(app string, e perf.Endpoint) (AppDescription, int32, error) {
	a, err := d.app(app)
	if err != nil {
		return a, 0, err
	}
	switch e {
	case perf.AppHTTP, perf.AppGRPC:
		if (e == perf.AppGRPC) != (a.AppProtocol == perf.GRPC) {
			return a, 0, fmt.Errorf("app %s has no endpoint %s: it serves %s", app, e, a.AppProtocol)
		}
		return a, a.AppPort, nil
	}
	if !hasSidecarEndpoint(a, e) {
		return a, 0, fmt.Errorf("app %s has no endpoint %s (sidecar %v, metrics off %v, profiling %v)",
			app, e, a.DaprEnabled, a.Sidecar.DisableMetrics, a.Sidecar.Profiling)
	}
	return a, sidecarPorts[e], nil
}

// sidecarPorts are daprd's pod ports by endpoint.
var sidecarPorts = map[perf.Endpoint]int32{
	perf.SidecarHTTP:    SidecarHTTPPort,
	perf.SidecarGRPC:    SidecarGRPCPort,
	perf.SidecarMetrics: SidecarMetricsPort,
	perf.SidecarProfile: SidecarProfilePort,
}

// address formats host:port as endpoint e wants it: gRPC endpoints bare, the others as an
// http:// base URL without a trailing slash.
func address(e perf.Endpoint, host string, port int) string {
	hp := net.JoinHostPort(host, strconv.Itoa(port))
	if e == perf.AppGRPC || e == perf.SidecarGRPC {
		return hp
	}
	return "http://" + hp
}

// forward returns app a's port-forward, starting it on first use: to the first Ready pod of a,
// for the app port and every sidecar port a has.
func (d *Deployment) forward(ctx context.Context, a AppDescription) (*forward, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, fmt.Errorf("deployment %s is torn down", d.ns)
	}
	if f, ok := d.forwards[a.Name]; ok {
		return f, nil
	}
	pods, err := d.p.cs.CoreV1().Pods(d.ns).List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{LabelApp: a.Name}).String(),
	})
	if err != nil {
		return nil, fmt.Errorf("list pods: %w", err)
	}
	pod := ""
	for _, p := range pods.Items {
		if podReady(p) && p.DeletionTimestamp == nil {
			pod = p.Name
			break
		}
	}
	if pod == "" {
		return nil, fmt.Errorf("no Ready pod to forward to (%d pods)", len(pods.Items))
	}
	ports := []int32{a.AppPort}
	for _, e := range []perf.Endpoint{perf.SidecarHTTP, perf.SidecarGRPC, perf.SidecarMetrics, perf.SidecarProfile} {
		if hasSidecarEndpoint(a, e) {
			ports = append(ports, sidecarPorts[e])
		}
	}
	f, err := startForward(d.p.cfg, d.p.cs, d.ns, pod, ports)
	if err != nil {
		return nil, err
	}
	d.forwards[a.Name] = f
	return f, nil
}
