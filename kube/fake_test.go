package kube

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"

	"github.com/daprperf/daprperf/perf"
)

// fakeDeployment is a Deployment of apps in namespace "ns" on fake clients holding objs.
func fakeDeployment(t *testing.T, apps []perf.App, objs ...runtime.Object) (*Deployment, *fake.Clientset) {
	t.Helper()
	descs, err := Describe(testImages, "ns", apps...)
	if err != nil {
		t.Fatal(err)
	}
	cs := fake.NewClientset(objs...)
	p := &Platform{cs: cs, metrics: metricsfake.NewSimpleClientset(), images: testImages, deleteTimeout: time.Second}
	return newDeployment(p, "ns", descs), cs
}

var siApps = []perf.App{
	{Name: "tester", Kind: perf.Tester, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP}},
	{Name: "testapp", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, DisableMetrics: true}},
}

func pod(name, app string, containers []string, statuses ...corev1.ContainerStatus) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{LabelApp: app}},
		Status:     corev1.PodStatus{ContainerStatuses: statuses},
	}
	for _, c := range containers {
		img := "registry.invalid/" + c + ":1"
		if c == SidecarContainer {
			img = "ghcr.io/dapr/daprd:1.17.5"
		}
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c, Image: img})
	}
	return p
}

func TestExitsFromContainerStatuses(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	d, _ := fakeDeployment(t, siApps,
		pod("tester-1", "tester", []string{"tester", "daprd"},
			corev1.ContainerStatus{Name: "tester"},
			corev1.ContainerStatus{Name: "daprd", RestartCount: 2, LastTerminationState: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 1, FinishedAt: at, Message: "fatal: bind"}}}),
		pod("testapp-1", "testapp", []string{"testapp", "daprd"},
			corev1.ContainerStatus{Name: "testapp", State: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{Reason: "Completed", ExitCode: 0, FinishedAt: at}}},
			corev1.ContainerStatus{Name: "daprd"}),
	)
	exits, err := d.Exits(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []perf.Exit{
		{Process: "testapp", At: at.Time, Reason: "Completed, exit code 0"},
		{Process: "tester-daprd", At: at.Time, Reason: "Error, exit code 1: fatal: bind", Restarts: 2},
	}
	if len(exits) != len(want) {
		t.Fatalf("Exits = %+v, want %+v", exits, want)
	}
	for i := range want {
		if exits[i].Process != want[i].Process || !exits[i].At.Equal(want[i].At) || exits[i].Reason != want[i].Reason || exits[i].Restarts != want[i].Restarts {
			t.Errorf("exit %d = %+v, want %+v", i, exits[i], want[i])
		}
	}
}

func TestProcessesAndVersion(t *testing.T) {
	d, _ := fakeDeployment(t, siApps, pod("testapp-1", "testapp", []string{"testapp", "daprd"}))
	if got := strings.Join(d.Processes(), ","); got != "tester,tester-daprd,testapp,testapp-daprd" {
		t.Errorf("Processes() = %s", got)
	}
	if err := d.readVersion(t.Context()); err != nil {
		t.Fatal(err)
	}
	if v := d.DaprVersion(); v != "1.17.5" {
		t.Errorf("DaprVersion() = %q, want 1.17.5 from the daprd image tag", v)
	}
	if d.MTLS() {
		t.Errorf("MTLS() = true for a daprd container without --enable-mtls")
	}

	// Dapr's injector adds --enable-mtls when the control plane turns mTLS on.
	secured := pod("testapp-1", "testapp", []string{"testapp", "daprd"})
	secured.Spec.Containers[1].Args = []string{"--mode", "kubernetes", "--enable-mtls", "--sentry-address", "dapr-sentry.dapr-system.svc.cluster.local:443"}
	d, _ = fakeDeployment(t, siApps, secured)
	if err := d.readVersion(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !d.MTLS() {
		t.Errorf("MTLS() = false for a daprd container with --enable-mtls")
	}
}

func TestEndpointErrors(t *testing.T) {
	d, _ := fakeDeployment(t, siApps)
	for _, tc := range []struct {
		app  string
		e    perf.Endpoint
		want string
	}{
		{"nope", perf.AppHTTP, `no app "nope"`},
		{"testapp", perf.SidecarMetrics, "app testapp has no endpoint sidecar-metrics"},
		{"tester", perf.SidecarProfile, "app tester has no endpoint sidecar-profile"},
		{"testapp", perf.AppGRPC, "it serves http"},
	} {
		if _, err := d.Endpoint(tc.app, tc.e); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Endpoint(%s, %s) = %v, want %q", tc.app, tc.e, err, tc.want)
		}
	}
	if got, err := d.ClusterEndpoint("testapp", perf.AppHTTP); got != "http://testapp.ns.svc:3000" || err != nil {
		t.Errorf("ClusterEndpoint(testapp, app-http) = %q, %v", got, err)
	}
}

func TestRolloutErrorNamesPodConditions(t *testing.T) {
	replicas := int32(1)
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "testapp", Namespace: "ns"},
		Spec:       appsv1.DeploymentSpec{Replicas: &replicas},
		Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability."},
		}},
	}
	p := pod("testapp-1", "testapp", []string{"testapp"},
		corev1.ContainerStatus{Name: "testapp", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "not found"}}})
	p.Status.Phase = corev1.PodPending
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", Message: "containers with unready status: [testapp]"}}
	d, cs := fakeDeployment(t, siApps[1:], dep, p)
	ctx, cancel := context.WithTimeout(t.Context(), 600*time.Millisecond)
	defer cancel()
	err := waitRollout(ctx, cs, "ns", d.apps)
	var re *RolloutError
	if !errors.As(err, &re) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waitRollout = %v, want a RolloutError after the deadline", err)
	}
	for _, want := range []string{
		"rollout of app testapp: 0/1 replicas available",
		"deployment: Available=False (MinimumReplicasUnavailable",
		"testapp-1: phase Pending, Ready=False (ContainersNotReady: containers with unready status: [testapp])",
		"container testapp waiting (ImagePullBackOff: not found)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}

	// Once the status says so, the wait returns.
	dep.Status = appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1, ReadyReplicas: 1}
	if _, err := cs.AppsV1().Deployments("ns").UpdateStatus(t.Context(), dep, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Available, but the Service has no ready endpoint yet: still waiting, and the error says so.
	ctx1, cancel1 := context.WithTimeout(t.Context(), 600*time.Millisecond)
	defer cancel1()
	if err := waitRollout(ctx1, cs, "ns", d.apps); err == nil || !strings.Contains(err.Error(), "service testapp: 0 ready endpoints of 1 available replicas") {
		t.Errorf("waitRollout without endpoints = %v, want a RolloutError naming the endpoints", err)
	}
	ready := true
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "testapp-x", Namespace: "ns", Labels: map[string]string{discoveryv1.LabelServiceName: "testapp"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.244.0.5"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
	}
	if _, err := cs.DiscoveryV1().EndpointSlices("ns").Create(t.Context(), slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel2()
	if err := waitRollout(ctx2, cs, "ns", d.apps); err != nil {
		t.Errorf("waitRollout after rollout: %v", err)
	}
}

func TestUsageIntegratesCPU(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	reading := func(appCPU, daprdCPU string) metricsv1beta1.PodMetrics {
		return metricsv1beta1.PodMetrics{
			ObjectMeta: metav1.ObjectMeta{Name: "testapp-6d4cf56db6-x7k2p", Namespace: "ns"}, // no labels: name fallback
			Timestamp:  metav1.NewTime(t0), Window: metav1.Duration{Duration: 10 * time.Second},
			Containers: []metricsv1beta1.ContainerMetrics{
				{Name: "testapp", Usage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(appCPU), corev1.ResourceMemory: resource.MustParse("20Mi")}},
				{Name: "daprd", Usage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(daprdCPU), corev1.ResourceMemory: resource.MustParse("50Mi")}},
			},
		}
	}
	d, _ := fakeDeployment(t, siApps)
	c := cpuIntegrator{}
	steps := []struct {
		at                time.Duration // wall time of the call, after t0
		pm                metricsv1beta1.PodMetrics
		wantApp, wantDapr float64 // cumulative CPU seconds
	}{
		{0, reading("100m", "500m"), 1, 5},                      // first: rate x window (10 s)
		{0, reading("900m", "900m"), 1, 5},                      // no time passed: nothing new
		{15 * time.Second, reading("200m", "1"), 4, 20},         // + latest rate x 15 s
		{75 * time.Second, reading("50m", "250m"), 7, 35.0},     // + latest rate x 60 s
		{76 * time.Second, reading("50m", "250m"), 7.05, 35.25}, // + 1 s at the same rate
	}
	for i, s := range steps {
		u := c.add([]metricsv1beta1.PodMetrics{s.pm}, t0.Add(s.at), d.appOfPod)
		if got := u["testapp"].CPUSeconds; !near(got, s.wantApp) {
			t.Errorf("step %d: testapp CPU %v s, want %v", i, got, s.wantApp)
		}
		if got := u["testapp-daprd"].CPUSeconds; !near(got, s.wantDapr) {
			t.Errorf("step %d: testapp-daprd CPU %v s, want %v", i, got, s.wantDapr)
		}
		if got := u["testapp-daprd"].RSSBytes; got != 50<<20 {
			t.Errorf("step %d: testapp-daprd working set %d, want %d", i, got, 50<<20)
		}
	}
}

func TestUsageFromFakeMetricsAPI(t *testing.T) {
	pm := &metricsv1beta1.PodMetrics{
		ObjectMeta: metav1.ObjectMeta{Name: "tester-1", Namespace: "ns", Labels: map[string]string{LabelApp: "tester"}},
		Timestamp:  metav1.Now(), Window: metav1.Duration{Duration: 30 * time.Second},
		Containers: []metricsv1beta1.ContainerMetrics{{Name: "tester", Usage: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("1Gi")}}},
	}
	d, _ := fakeDeployment(t, siApps)
	mc := metricsfake.NewSimpleClientset()
	// The fake tracker files PodMetrics under "podmetricses" but lists "pods": answer directly.
	mc.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, &metricsv1beta1.PodMetricsList{Items: []metricsv1beta1.PodMetrics{*pm}}, nil
	})
	d.p.metrics = mc
	u, err := d.Usage(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := u["tester"]; !near(got.CPUSeconds, 60) || got.RSSBytes != 1<<30 {
		t.Errorf("Usage()[tester] = %+v, want 60 CPU seconds and 1 GiB", got)
	}
}

func TestDeleteNamespace(t *testing.T) {
	cs := fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "daprperf-x"}})
	if err := deleteNamespace(t.Context(), cs, "daprperf-x", time.Second); err != nil {
		t.Fatal(err)
	}
	if err := deleteNamespace(t.Context(), cs, "daprperf-x", time.Second); err != nil {
		t.Errorf("deleting a namespace that is gone: %v, want nil", err)
	}
}

func near(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }

// TestTeardownDeletesTheTokenSecret: teardown deletes the tester's token Secret itself, not
// only through the namespace (the fake clientset runs no namespace controller, so only an
// explicit delete removes it here), and a Secret already gone is no error.
func TestTeardownDeletesTheTokenSecret(t *testing.T) {
	d, cs := fakeDeployment(t, siApps, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}})
	sec := TokenSecretObject("ns", d.apps[0], "s3cret")
	if _, err := cs.CoreV1().Secrets("ns").Create(t.Context(), sec, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	d.setToken("tester", "s3cret")
	if got, err := d.TesterToken("tester"); got != "s3cret" || err != nil {
		t.Errorf("TesterToken(tester) = %q, %v; want s3cret", got, err)
	}
	if _, err := d.TesterToken("testapp"); err == nil || !strings.Contains(err.Error(), "testapp") {
		t.Errorf("TesterToken(testapp) = %v, want an error naming it", err)
	}
	if err := d.close(); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Secrets("ns").Get(t.Context(), "tester-token", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Secret tester-token after teardown: %v, want NotFound", err)
	}
	if err := deleteTokenSecrets(t.Context(), cs, "ns", d.apps, time.Second); err != nil {
		t.Errorf("deleting Secrets that are gone: %v, want nil", err)
	}
}

// Nodes names the node of each app and its sidecar, by process, and leaves out a pod the
// scheduler has not placed yet.
func TestNodesOfTheDeployment(t *testing.T) {
	tester := pod("tester-1", "tester", []string{"tester", SidecarContainer})
	tester.Spec.NodeName = "node-a"
	target := pod("testapp-1", "testapp", []string{"testapp", SidecarContainer})
	target.Spec.NodeName = "node-b"
	pending := pod("other-1", "other", []string{"other"})
	d, _ := fakeDeployment(t, siApps, tester, target, pending)
	nodes, err := d.Nodes(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"tester": "node-a", "tester-daprd": "node-a", "testapp": "node-b", "testapp-daprd": "node-b"}
	if len(nodes) != len(want) {
		t.Errorf("nodes %v, want %v", nodes, want)
	}
	for k, v := range want {
		if nodes[k] != v {
			t.Errorf("nodes[%s] = %q, want %q (all: %v)", k, nodes[k], v, nodes)
		}
	}
}
