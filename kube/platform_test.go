package kube_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"

	"github.com/daprperf/daprperf/kube"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
	"github.com/daprperf/daprperf/tests/scenarios"
)

var testImages = kube.Images{Registry: "registry.invalid/daprperf", Tag: "test"}

// TestPlatformOnControlPlane deploys the HTTP service-invocation apps on a real API server with
// kwok nodes and checks the objects, the rollout, restarts, a rollout that never ends, and that
// teardown leaves nothing behind. Subtests share one control plane (it takes seconds to start).
func TestPlatformOnControlPlane(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	c := startCluster(t)

	apps := scenarios.ServiceInvocation(perf.HTTP).Apps
	apps[0].Resources = perf.Resources{CPURequest: "100m", CPULimit: "1", MemoryRequest: "64Mi", MemoryLimit: "256Mi"}
	apps[1].Sidecar.Resources = perf.Resources{CPURequest: "250m", CPULimit: "2", MemoryRequest: "128Mi", MemoryLimit: "512Mi"}
	apps[1].Sidecar.Profiling = true
	apps[1].Sidecar.Config = map[string]any{"metric": map[string]any{"http": map[string]any{"increasedCardinality": false}}}
	apps[0].TesterLimits = &perf.TesterLimits{MaxQPS: 2000, MaxConnections: 32, MaxDuration: 2 * time.Minute}

	var ns string
	t.Run("deploy", func(t *testing.T) {
		p, err := kube.New(kube.WithEnv(runner.EnvFor(t)), kube.WithRESTConfig(c.cfg), kube.WithImages(testImages))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		start := time.Now()
		d, err := p.StartE(ctx, t, apps...)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("rolled out in %v (kwok)", time.Since(start).Round(time.Millisecond))
		ns = d.Namespace()
		if !strings.HasPrefix(ns, kube.NamespacePrefix) {
			t.Errorf("namespace %q, want prefix %q", ns, kube.NamespacePrefix)
		}
		checkObjects(t, c, ns)
		checkTesterGuard(t, c, d)
		checkPodsReady(t, c, ns)
		checkConfiguration(t, c, ns)
		checkRestarts(t, c, d)
		checkUsageWithoutMetricsAPI(t, d)
		checkLoadBalancer(t, c, d)
		if got := d.DaprVersion(); got != "" {
			t.Errorf("DaprVersion() = %q with no injector, want \"\"", got)
		}
	})
	t.Run("teardown", func(t *testing.T) {
		if ns == "" {
			t.Skip("deploy failed")
		}
		checkGone(t, c, ns)
	})
	t.Run("rollout-timeout", func(t *testing.T) {
		p, err := kube.New(kube.WithEnv(runner.EnvFor(t)), kube.WithRESTConfig(c.cfg), kube.WithImages(testImages),
			kube.WithNodeSelector(map[string]string{"daprperf.io/pool": "none"}))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		_, err = p.StartE(ctx, t, apps[1])
		var re *kube.RolloutError
		if !errors.As(err, &re) {
			t.Fatalf("StartE with an impossible node selector: %v, want a *kube.RolloutError", err)
		}
		t.Logf("error: %v", err)
		if re.App != scenarios.TargetApp || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("RolloutError for app %q (cause %v), want %q and a deadline", re.App, re.Err, scenarios.TargetApp)
		}
		for _, want := range []string{"rollout of app testapp", "0/1 replicas available", "PodScheduled=False", "Unschedulable"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error does not say %q: %v", want, err)
			}
		}
	})
}

// checkObjects asserts every annotation, resource and affinity field of the created objects.
func checkObjects(t *testing.T, c *cluster, ns string) {
	t.Helper()
	ctx := t.Context()
	tester, err := c.cs.AppsV1().Deployments(ns).Get(ctx, scenarios.TesterApp, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	target, err := c.cs.AppsV1().Deployments(ns).Get(ctx, scenarios.TargetApp, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantAnn := map[string]map[string]string{
		scenarios.TesterApp: {
			"dapr.io/enabled": "true", "dapr.io/app-id": "tester", "dapr.io/app-port": "3000",
			"dapr.io/app-protocol": "http", "dapr.io/enable-metrics": "true", "dapr.io/metrics-port": "9090",
			"dapr.io/enable-profiling": "false",
			// The scenario's Dapr defaults (scenarios.DaprResources).
			"dapr.io/sidecar-cpu-request": "0.1", "dapr.io/sidecar-cpu-limit": "4.0",
			"dapr.io/sidecar-memory-request": "250Mi", "dapr.io/sidecar-memory-limit": "512Mi",
		},
		scenarios.TargetApp: {
			"dapr.io/enabled": "true", "dapr.io/app-id": "testapp", "dapr.io/app-port": "3000",
			"dapr.io/app-protocol": "http", "dapr.io/enable-metrics": "true", "dapr.io/metrics-port": "9090",
			"dapr.io/enable-profiling":    "true",
			"dapr.io/sidecar-cpu-request": "250m", "dapr.io/sidecar-cpu-limit": "2",
			"dapr.io/sidecar-memory-request": "128Mi", "dapr.io/sidecar-memory-limit": "512Mi",
			"dapr.io/config": "testapp-config",
		},
	}
	for _, dep := range []struct {
		name string
		ann  map[string]string
	}{{tester.Name, tester.Spec.Template.Annotations}, {target.Name, target.Spec.Template.Annotations}} {
		if !maps.Equal(dep.ann, wantAnn[dep.name]) {
			t.Errorf("%s pod annotations:\n got  %v\n want %v", dep.name, dep.ann, wantAnn[dep.name])
		}
	}
	for _, dep := range []struct {
		name  string
		kind  perf.AppKind
		ctr   corev1.Container
		repl  *int32
		label map[string]string
	}{
		{tester.Name, perf.Tester, tester.Spec.Template.Spec.Containers[0], tester.Spec.Replicas, tester.Spec.Template.Labels},
		{target.Name, perf.HTTPApp, target.Spec.Template.Spec.Containers[0], target.Spec.Replicas, target.Spec.Template.Labels},
	} {
		if dep.repl == nil || *dep.repl != 1 {
			t.Errorf("%s replicas %v, want 1", dep.name, dep.repl)
		}
		wantImage := "registry.invalid/daprperf/daprperf-" + string(dep.kind) + ":test"
		if dep.ctr.Name != dep.name || dep.ctr.Image != wantImage {
			t.Errorf("%s container %s image %s, want %s %s", dep.name, dep.ctr.Name, dep.ctr.Image, dep.name, wantImage)
		}
		wantArgs := "-port 3000 -host 0.0.0.0" // the tester's further args: checkTesterGuard
		if got := strings.Join(dep.ctr.Args, " "); !strings.HasPrefix(got, wantArgs) || (dep.kind != perf.Tester && got != wantArgs) {
			t.Errorf("%s args %q, want %q", dep.name, got, wantArgs)
		}
		if len(dep.ctr.Ports) != 1 || dep.ctr.Ports[0].ContainerPort != 3000 {
			t.Errorf("%s ports %v, want 3000", dep.name, dep.ctr.Ports)
		}
		if dep.label["app"] != dep.name || dep.label["daprperf.io/run"] != ns || dep.label["daprperf.io/kind"] != string(dep.kind) {
			t.Errorf("%s labels %v", dep.name, dep.label)
		}
	}
	// The tester's own resources on its container.
	res := tester.Spec.Template.Spec.Containers[0].Resources
	for _, q := range []struct {
		name      string
		got, want resource.Quantity
	}{
		{"cpu request", res.Requests[corev1.ResourceCPU], resource.MustParse("100m")},
		{"cpu limit", res.Limits[corev1.ResourceCPU], resource.MustParse("1")},
		{"memory request", res.Requests[corev1.ResourceMemory], resource.MustParse("64Mi")},
		{"memory limit", res.Limits[corev1.ResourceMemory], resource.MustParse("256Mi")},
	} {
		if q.got.Cmp(q.want) != 0 {
			t.Errorf("tester %s = %s, want %s", q.name, q.got.String(), q.want.String())
		}
	}
	// The target keeps the scenario's Dapr defaults (scenarios.DaprResources).
	if r := target.Spec.Template.Spec.Containers[0].Resources; r.Limits.Cpu().Cmp(resource.MustParse("4")) != 0 || r.Requests.Memory().Cmp(resource.MustParse("250Mi")) != 0 {
		t.Errorf("testapp container resources %v, want the scenario's (cpu limit 4, memory request 250Mi; its sidecar's are annotations)", r)
	}
	// One schedulable node (kwok's), unlabelled: ChoosePlacements places no pod.
	for _, d := range []*appsv1.Deployment{tester, target} {
		if sp := d.Spec.Template.Spec; sp.Affinity != nil || sp.NodeSelector != nil {
			t.Errorf("%s affinity %+v, node selector %v; want none on one node", d.Name, sp.Affinity, sp.NodeSelector)
		}
	}
	// Services: the app port and daprd's four.
	for _, name := range []string{scenarios.TesterApp, scenarios.TargetApp} {
		svc, err := c.cs.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int32{}
		for _, p := range svc.Spec.Ports {
			got[p.Name] = p.TargetPort.IntVal
		}
		want := map[string]int32{"app": 3000, "dapr-http": 3500, "dapr-grpc": 50001, "dapr-metrics": 9090, "dapr-profile": 7777}
		if len(got) != len(want) || svc.Spec.Selector["app"] != name || svc.Spec.Type != corev1.ServiceTypeClusterIP {
			t.Errorf("service %s: ports %v selector %v type %s, want %v app=%s ClusterIP", name, got, svc.Spec.Selector, svc.Spec.Type, want, name)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("service %s port %s -> %d, want %d", name, k, got[k], v)
			}
		}
	}
}

// checkTesterGuard asserts that the tester's pod spec carries the allow-list (its own daprd on
// 127.0.0.1, the target's Service) and the bounds on its command line, and takes its token
// from the Secret tester-token in the run's namespace, which holds the deployment's token.
func checkTesterGuard(t *testing.T, c *cluster, d *kube.Deployment) {
	t.Helper()
	ns := d.Namespace()
	dep, err := c.cs.AppsV1().Deployments(ns).Get(t.Context(), scenarios.TesterApp, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctr := dep.Spec.Template.Spec.Containers[0]
	want := []string{"-port", "3000", "-host", "0.0.0.0",
		"-allow=127.0.0.1:3500,127.0.0.1:50001," + scenarios.TargetApp + "." + ns + ".svc:3000",
		"-max-qps=2000", "-max-connections=32", "-max-duration=2m0s"}
	if !slices.Equal(ctr.Args, want) {
		t.Errorf("tester args\n got  %q\n want %q", ctr.Args, want)
	}
	if len(ctr.Env) != 1 || ctr.Env[0].Name != perf.EnvTesterToken || ctr.Env[0].Value != "" || ctr.Env[0].ValueFrom == nil ||
		ctr.Env[0].ValueFrom.SecretKeyRef == nil || ctr.Env[0].ValueFrom.SecretKeyRef.Name != "tester-token" || ctr.Env[0].ValueFrom.SecretKeyRef.Key != "token" {
		t.Errorf("tester env %+v, want %s from Secret tester-token, key token", ctr.Env, perf.EnvTesterToken)
	}
	sec, err := c.cs.CoreV1().Secrets(ns).Get(t.Context(), "tester-token", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the tester's token Secret: %v", err)
	}
	token, err := d.TesterToken(scenarios.TesterApp)
	if err != nil || len(token) != 26 || string(sec.Data["token"]) != token {
		t.Errorf("TesterToken = %q, %v; Secret holds %q; want the same 26 characters", token, err, sec.Data["token"])
	}
	if sec.Labels["daprperf.io/run"] != ns || sec.Immutable == nil || !*sec.Immutable {
		t.Errorf("Secret labels %v, immutable %v; want daprperf.io/run=%s, immutable", sec.Labels, sec.Immutable, ns)
	}
	if strings.Contains(strings.Join(ctr.Args, " "), token) {
		t.Error("the token is on the tester's command line")
	}
	target, err := c.cs.AppsV1().Deployments(ns).Get(t.Context(), scenarios.TargetApp, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if env := target.Spec.Template.Spec.Containers[0].Env; len(env) != 0 {
		t.Errorf("testapp env %+v, want none", env)
	}
	if _, err := d.TesterToken(scenarios.TargetApp); err == nil {
		t.Error("TesterToken(testapp): no error for an app that is not a tester")
	}
}

// checkPodsReady asserts that StartE returned with both pods Ready on the kwok node.
func checkPodsReady(t *testing.T, c *cluster, ns string) {
	t.Helper()
	pods, err := c.cs.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 2 {
		t.Fatalf("%d pods, want 2", len(pods.Items))
	}
	for _, p := range pods.Items {
		ready := false
		for _, cond := range p.Status.Conditions {
			ready = ready || (cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue)
		}
		if !ready || p.Spec.NodeName != FakeNode {
			t.Errorf("pod %s: ready %v on node %q, want ready on %s", p.Name, ready, p.Spec.NodeName, FakeNode)
		}
	}
}

// checkConfiguration asserts the target's Dapr Configuration carries Sidecar.Config as spec.
func checkConfiguration(t *testing.T, c *cluster, ns string) {
	t.Helper()
	dyn := dynamic.NewForConfigOrDie(c.cfg)
	u, err := dyn.Resource(kube.ConfigurationResource).Namespace(ns).Get(t.Context(), "testapp-config", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Configuration testapp-config: %v", err)
	}
	v, found, err := unstructured.NestedBool(u.Object, "spec", "metric", "http", "increasedCardinality")
	if err != nil || !found || v {
		t.Errorf("Configuration spec.metric.http.increasedCardinality = %v (found %v, %v), want false; object %v", v, found, err, u.Object)
	}
	if _, err := dyn.Resource(kube.ConfigurationResource).Namespace(ns).Get(t.Context(), "tester-config", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("tester has no Config, yet Get tester-config: %v", err)
	}
}

// checkRestarts sets the target container's restart count through the pod's status
// subresource, as a kubelet would, and asserts Exits reads it.
func checkRestarts(t *testing.T, c *cluster, d *kube.Deployment) {
	t.Helper()
	ctx := t.Context()
	exits, err := d.Exits(ctx)
	if err != nil || len(exits) != 0 {
		t.Fatalf("Exits before any restart: %v, %v; want none", exits, err)
	}
	pods, err := c.cs.CoreV1().Pods(d.Namespace()).List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{"app": scenarios.TargetApp}).String(),
	})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("target pods: %v, %v", pods, err)
	}
	pod := pods.Items[0]
	finished := metav1.NewTime(time.Now().Truncate(time.Second))
	found := false
	for i := range pod.Status.ContainerStatuses {
		cs := &pod.Status.ContainerStatuses[i]
		if cs.Name == scenarios.TargetApp {
			found = true
			cs.RestartCount = 3
			cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 137, Reason: "OOMKilled", FinishedAt: finished,
			}}
		}
	}
	if !found {
		t.Fatalf("pod %s has no status for container %s: %+v", pod.Name, scenarios.TargetApp, pod.Status.ContainerStatuses)
	}
	if _, err := c.cs.CoreV1().Pods(d.Namespace()).UpdateStatus(ctx, &pod, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update status of %s: %v", pod.Name, err)
	}
	exits, err = d.Exits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(exits) != 1 {
		t.Fatalf("Exits = %+v, want one", exits)
	}
	e := exits[0]
	if e.Process != scenarios.TargetApp || e.Restarts != 3 || e.Reason != "OOMKilled, exit code 137" || !e.At.Equal(finished.Time) {
		t.Errorf("Exit = %+v, want testapp, 3 restarts, OOMKilled, exit code 137 at %v", e, finished)
	}
}

// checkUsageWithoutMetricsAPI asserts Usage names the metrics API when the cluster has none.
func checkUsageWithoutMetricsAPI(t *testing.T, d *kube.Deployment) {
	t.Helper()
	_, err := d.Usage(t.Context())
	if err == nil || !strings.Contains(err.Error(), "metrics API (metrics.k8s.io/v1beta1) is not served") {
		t.Errorf("Usage without metrics-server: %v, want an error naming the metrics API", err)
	}
}

// checkLoadBalancer gives the tester's Service a LoadBalancer ingress and asserts the tester
// is then reached through it, while load targets stay in-cluster addresses.
func checkLoadBalancer(t *testing.T, c *cluster, d *kube.Deployment) {
	t.Helper()
	ctx := t.Context()
	svc, err := c.cs.CoreV1().Services(d.Namespace()).Get(ctx, scenarios.TesterApp, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer // as WithServiceType(LoadBalancer) makes it
	if svc, err = c.cs.CoreV1().Services(d.Namespace()).Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("make tester's Service a LoadBalancer: %v", err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
	if _, err := c.cs.CoreV1().Services(d.Namespace()).UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("set ingress: %v", err)
	}
	for _, tc := range []struct {
		app  string
		e    perf.Endpoint
		want string
	}{
		{scenarios.TesterApp, perf.AppControl, "http://192.0.2.10:3000"},
		{scenarios.TesterApp, perf.AppHTTP, "http://tester." + d.Namespace() + ".svc:3000"},
		{scenarios.TesterApp, perf.SidecarMetrics, "http://192.0.2.10:9090"},
		{scenarios.TesterApp, perf.SidecarHTTP, "http://127.0.0.1:3500"},
		{scenarios.TesterApp, perf.SidecarGRPC, "127.0.0.1:50001"},
		{scenarios.TargetApp, perf.AppHTTP, "http://testapp." + d.Namespace() + ".svc:3000"},
	} {
		got, err := d.Endpoint(tc.app, tc.e)
		if err != nil || got != tc.want {
			t.Errorf("Endpoint(%s, %s) = %q, %v; want %q", tc.app, tc.e, got, err, tc.want)
		}
	}
	if _, err := d.Endpoint(scenarios.TesterApp, perf.SidecarProfile); err == nil || !strings.Contains(err.Error(), "tester") {
		t.Errorf("Endpoint(tester, profile) with profiling off: %v, want an error naming the app", err)
	}
}

// checkGone asserts the run's namespace and every object labelled with the run are gone.
func checkGone(t *testing.T, c *cluster, ns string) {
	t.Helper()
	ctx := t.Context()
	if _, err := c.cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("namespace %s after teardown: %v, want NotFound", ns, err)
	}
	sel := metav1.ListOptions{LabelSelector: "daprperf.io/run=" + ns}
	deps, err := c.cs.AppsV1().Deployments("").List(ctx, sel)
	if err != nil || len(deps.Items) != 0 {
		t.Errorf("Deployments of the run left: %d, %v", len(deps.Items), err)
	}
	pods, err := c.cs.CoreV1().Pods("").List(ctx, sel)
	if err != nil || len(pods.Items) != 0 {
		t.Errorf("Pods of the run left: %d, %v", len(pods.Items), err)
	}
	svcs, err := c.cs.CoreV1().Services("").List(ctx, sel)
	if err != nil || len(svcs.Items) != 0 {
		t.Errorf("Services of the run left: %d, %v", len(svcs.Items), err)
	}
	secrets, err := c.cs.CoreV1().Secrets("").List(ctx, sel)
	if err != nil || len(secrets.Items) != 0 {
		t.Errorf("Secrets of the run (the tester's token) left: %d, %v", len(secrets.Items), err)
	}
}
