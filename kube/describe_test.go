package kube

import (
	"maps"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/daprperf/daprperf/perf"
)

var testImages = Images{Registry: "ghcr.io/me", Tag: "v1"}

func TestDescribeServiceInvocationGRPC(t *testing.T) {
	apps := []perf.App{
		{Name: "tester", Kind: perf.Tester, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP}},
		{Name: "testapp", Kind: perf.GRPCApp, Args: []string{"-delay=1ms"}, Sidecar: &perf.Sidecar{}},
	}
	descs, err := Describe(testImages, "daprperf-abcde", apps...)
	if err != nil {
		t.Fatal(err)
	}
	tester, target := descs[0], descs[1]
	if tester.Image != "ghcr.io/me/daprperf-tester:v1" || target.Image != "ghcr.io/me/daprperf-grpcapp:v1" {
		t.Errorf("images %s, %s", tester.Image, target.Image)
	}
	// Placement is the platform's to set, by the cluster's nodes.
	if tester.Placement.Apart != nil || tester.Placement.NodeSelector != nil || target.Placement.Apart != nil {
		t.Errorf("Placement %+v, %+v; want none from Describe", tester.Placement, target.Placement)
	}
	if got := strings.Join(target.Args, " "); got != "-port 3000 -host 0.0.0.0 -delay=1ms" {
		t.Errorf("target args %q", got)
	}
	// An empty sidecar AppProtocol is the kind's protocol.
	if target.AppProtocol != perf.GRPC || target.Sidecar.AppProtocol != perf.GRPC || target.ConfigName != "" {
		t.Errorf("target protocol %s, sidecar %s, config %q", target.AppProtocol, target.Sidecar.AppProtocol, target.ConfigName)
	}
	want := map[string]string{LabelApp: "testapp", LabelKind: "grpcapp", LabelRun: "daprperf-abcde", LabelPartOf: "daprperf"}
	if !maps.Equal(target.Labels, want) {
		t.Errorf("labels %v, want %v", target.Labels, want)
	}

	dep := DeploymentObject("ns", target)
	probe := dep.Spec.Template.Spec.Containers[0].ReadinessProbe
	if probe == nil || probe.GRPC == nil || probe.GRPC.Port != AppPort {
		t.Errorf("grpcapp readiness probe %+v, want gRPC on %d", probe, AppPort)
	}
	if p := DeploymentObject("ns", tester).Spec.Template.Spec.Containers[0].ReadinessProbe; p.HTTPGet == nil || p.HTTPGet.Path != "/" {
		t.Errorf("tester readiness probe %+v, want GET /", p)
	}
	if a := DaprAnnotations(target); a[AnnotationAppProtocol] != "grpc" || a[AnnotationEnableProfiling] != "false" {
		t.Errorf("annotations %v", a)
	}
}

func TestDescribeWithoutSidecar(t *testing.T) {
	descs, err := Describe(testImages, "r", perf.App{Name: "callee", Kind: perf.HTTPApp, Resources: perf.Resources{CPULimit: "500m"}})
	if err != nil {
		t.Fatal(err)
	}
	d := descs[0]
	if d.DaprEnabled || DaprAnnotations(d) != nil {
		t.Errorf("no sidecar, yet DaprEnabled %v, annotations %v", d.DaprEnabled, DaprAnnotations(d))
	}
	svc := ServiceObject("ns", d, corev1.ServiceTypeLoadBalancer)
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Name != PortApp || svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		t.Errorf("service %+v, want the app port only, LoadBalancer", svc.Spec)
	}
	r := DeploymentObject("ns", d).Spec.Template.Spec.Containers[0].Resources
	if q := r.Limits[corev1.ResourceCPU]; q.Cmp(resource.MustParse("500m")) != 0 || len(r.Requests) != 0 {
		t.Errorf("resources %v, want only a 500m CPU limit", r)
	}
	if hasSidecarEndpoint(d, perf.SidecarHTTP) {
		t.Error("no sidecar, yet a sidecar endpoint")
	}
}

func TestDescribeErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct {
		app  perf.App
		want string
	}{
		{perf.App{Name: "Tester", Kind: perf.Tester}, "Name must be"},
		{perf.App{Name: "daprd", Kind: perf.Tester}, "Name must be"},
		{perf.App{Name: "x", Kind: "php"}, `unknown Kind "php"`},
		{perf.App{Name: "x", Kind: perf.HTTPApp, Resources: perf.Resources{MemoryLimit: "lots"}}, `app x: Resources.MemoryLimit "lots"`},
		{perf.App{Name: "x", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{Resources: perf.Resources{CPURequest: "1 core"}}}, `Sidecar.Resources.CPURequest "1 core"`},
		{perf.App{Name: "x", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{AppProtocol: "h2c"}}, `Sidecar.AppProtocol "h2c"`},
		{perf.App{Name: "x", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{ExtraArgs: []string{"--log-level=debug"}}}, "Sidecar.ExtraArgs"},
		{perf.App{Name: "x", Kind: perf.HTTPApp, TesterLimits: &perf.TesterLimits{MaxQPS: 1}}, "app x: TesterLimits are for a tester, not a httpapp"},
		{perf.App{Name: "x", Kind: perf.Tester, TesterLimits: &perf.TesterLimits{MaxQPS: -1}}, "app x: perf: tester limits: maxQPS = -1"},
	} {
		_, err := Describe(testImages, "r", tc.app)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Describe(%+v) = %v, want an error with %q", tc.app, err, tc.want)
		}
	}
	if _, err := Describe(testImages, "r"); err == nil {
		t.Error("Describe() with no apps: no error")
	}
	a := perf.App{Name: "x", Kind: perf.HTTPApp}
	if _, err := Describe(testImages, "r", a, a); err == nil || !strings.Contains(err.Error(), "used twice") {
		t.Errorf("duplicate names: %v", err)
	}
}

// TestDescribeTester: the tester's container gets the allow-list (its own daprd's ports on
// 127.0.0.1, every other app's Service), its TesterLimits and its token from the Secret; the
// other apps get none of it.
func TestDescribeTester(t *testing.T) {
	apps := []perf.App{
		{Name: "tester", Kind: perf.Tester, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP},
			TesterLimits: &perf.TesterLimits{MaxQPS: 2000, MaxConnections: 32, MaxDuration: 2 * time.Minute}},
		{Name: "testapp", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{}},
		{Name: "other", Kind: perf.GRPCApp},
	}
	descs, err := Describe(testImages, "daprperf-abcde", apps...)
	if err != nil {
		t.Fatal(err)
	}
	tester, target := descs[0], descs[1]
	want := "-port 3000 -host 0.0.0.0 -allow=127.0.0.1:3500,127.0.0.1:50001,testapp.daprperf-abcde.svc:3000,other.daprperf-abcde.svc:3000" +
		" -max-qps=2000 -max-connections=32 -max-duration=2m0s"
	if got := strings.Join(tester.Args, " "); got != want {
		t.Errorf("tester args\n got  %q\n want %q", got, want)
	}
	if tester.TokenSecret != "tester-token" || target.TokenSecret != "" {
		t.Errorf("TokenSecret %q, %q; want tester-token and none", tester.TokenSecret, target.TokenSecret)
	}
	env := DeploymentObject("ns", tester).Spec.Template.Spec.Containers[0].Env
	if len(env) != 1 || env[0].Name != perf.EnvTesterToken || env[0].Value != "" || env[0].ValueFrom == nil ||
		env[0].ValueFrom.SecretKeyRef == nil || env[0].ValueFrom.SecretKeyRef.Name != "tester-token" || env[0].ValueFrom.SecretKeyRef.Key != TokenSecretKey {
		t.Errorf("tester env %+v, want %s from Secret tester-token key %s", env, perf.EnvTesterToken, TokenSecretKey)
	}
	if env := DeploymentObject("ns", target).Spec.Template.Spec.Containers[0].Env; env != nil {
		t.Errorf("testapp env %+v, want none", env)
	}
	sec := TokenSecretObject("ns", tester, "s3cret")
	if sec.Name != "tester-token" || sec.Namespace != "ns" || string(sec.Data[TokenSecretKey]) != "s3cret" ||
		sec.Immutable == nil || !*sec.Immutable || sec.Labels[LabelApp] != "tester" || sec.Type != corev1.SecretTypeOpaque {
		t.Errorf("token Secret %+v", sec)
	}

	// Without a sidecar or limits: only the other apps, no bounds passed.
	descs, err = Describe(testImages, "r", perf.App{Name: "tester", Kind: perf.Tester}, perf.App{Name: "testapp", Kind: perf.HTTPApp})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(descs[0].Args, " "); got != "-port 3000 -host 0.0.0.0 -allow=testapp.r.svc:3000" {
		t.Errorf("tester args without sidecar or limits: %q", got)
	}
}

func TestConfigurationObject(t *testing.T) {
	d := AppDescription{Name: "a", ConfigName: "a-config", Labels: map[string]string{LabelApp: "a"},
		Sidecar: perf.Sidecar{Config: map[string]any{"metric": map[string]any{"enabled": false}, "tracing": map[string]any{"samplingRate": "0"}}}}
	u, err := ConfigurationObject("ns", d)
	if err != nil {
		t.Fatal(err)
	}
	if u.GetAPIVersion() != "dapr.io/v1alpha1" || u.GetKind() != "Configuration" || u.GetName() != "a-config" || u.GetNamespace() != "ns" {
		t.Errorf("object %v", u.Object)
	}
	if v := u.Object["spec"].(map[string]any)["metric"].(map[string]any)["enabled"]; v != false {
		t.Errorf("spec.metric.enabled = %v", v)
	}
	if u, err := ConfigurationObject("ns", AppDescription{Name: "b"}); u != nil || err != nil {
		t.Errorf("no ConfigName: %v, %v; want nil, nil", u, err)
	}
}

func TestImageVersion(t *testing.T) {
	for image, want := range map[string]string{
		"ghcr.io/dapr/daprd:1.17.5":                   "1.17.5",
		"docker.io/daprio/daprd:v1.17.5-mariner":      "1.17.5",
		"localhost:5000/daprd:1.16.0@sha256:abcdef01": "1.16.0",
		"localhost:5000/daprd":                        "",
		"daprd":                                       "",
		"daprd:1.18.0-rc.1":                           "1.18.0-rc.1",
	} {
		if got := ImageVersion(image); got != want {
			t.Errorf("ImageVersion(%q) = %q, want %q", image, got, want)
		}
	}
}

// TestDescribeActorHosts: the actor, job and workflow apps deploy with their images; two
// placement names are refused, since the cluster has one placement.
func TestDescribeActorHosts(t *testing.T) {
	store := perf.Component{Name: "statestore", Type: perf.StateInMemory, Metadata: map[string]string{"actorStateStore": "true"}}
	apps := []perf.App{
		{Name: "tester", Kind: perf.Tester, Sidecar: &perf.Sidecar{Components: []perf.Component{store}}},
		{Name: "actorapp", Kind: perf.ActorApp, Sidecar: &perf.Sidecar{Components: []perf.Component{store}}},
		{Name: "jobapp", Kind: perf.JobApp, Sidecar: &perf.Sidecar{Scheduler: true}},
		{Name: "workflowapp", Kind: perf.WorkflowApp, Sidecar: &perf.Sidecar{Scheduler: true, Components: []perf.Component{store}}},
	}
	descs, err := Describe(testImages, "r", apps...)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range descs[1:] {
		if want := testImages.Image(apps[i+1].Kind); d.Image != want || !d.DaprEnabled {
			t.Errorf("app %s: image %q, dapr %t; want %q with a sidecar", d.Name, d.Image, d.DaprEnabled, want)
		}
	}
	apps[1].Sidecar = &perf.Sidecar{Placement: "second", Components: []perf.Component{store}}
	if _, err := Describe(testImages, "r", apps...); err == nil || !strings.Contains(err.Error(), "Sidecar.Placement") {
		t.Errorf("two placements: %v, want an error naming Sidecar.Placement", err)
	}
}

// TestAppBackendEnv: an app's own backends come as perf.EnvBackendAddr variables with the
// environment's addresses; a backend with a login, which the app's client cannot use, is refused.
func TestAppBackendEnv(t *testing.T) {
	apps := []perf.App{{Name: "tester", Kind: perf.Tester}, {Name: "actorapp", Kind: perf.ActorApp, Backends: []perf.Backend{perf.BackendRedis}}}
	conns := []BackendConn{{Backend: perf.BackendRedis, Address: "redis.b.svc.cluster.local:6379", From: EnvRedisAddr}}
	env, err := appBackendEnv(apps, conns)
	if err != nil {
		t.Fatal(err)
	}
	if got := env["actorapp"]["DAPR_PERF_REDIS_ADDR"]; got != conns[0].Address || len(env) != 1 {
		t.Errorf("env = %v, want actorapp's DAPR_PERF_REDIS_ADDR=%s only", env, conns[0].Address)
	}
	obj := DeploymentObject("r", AppDescription{Name: "actorapp", Env: env["actorapp"]})
	if e := obj.Spec.Template.Spec.Containers[0].Env; len(e) != 1 || e[0].Name != "DAPR_PERF_REDIS_ADDR" || e[0].Value != conns[0].Address {
		t.Errorf("container env = %v", e)
	}
	conns[0].Password = "secret"
	if _, err := appBackendEnv(apps, conns); err == nil || !strings.Contains(err.Error(), EnvRedisAddr) {
		t.Errorf("a backend with a password: %v, want an error naming %s", err, EnvRedisAddr)
	}
	if _, err := appBackendEnv(apps, nil); err == nil || !strings.Contains(err.Error(), "actorapp") {
		t.Errorf("no backend: %v, want an error naming the app", err)
	}
}

// TestDirectLoginRabbitMQGuest: the tester's direct publisher logs in to RabbitMQ as guest/guest,
// so only that login lets it run the direct baseline there.
func TestDirectLoginRabbitMQGuest(t *testing.T) {
	for _, tc := range []struct {
		user, pass string
		login      bool
	}{{"guest", "guest", false}, {"user", "secret", true}, {"guest", "other", true}} {
		c := BackendConn{Backend: perf.BackendRabbitMQ, Address: "rabbitmq.b.svc:5672", Username: tc.user, Password: tc.pass}
		if got := c.directLogin(); got != tc.login {
			t.Errorf("%s/%s: directLogin %t, want %t", tc.user, tc.pass, got, tc.login)
		}
	}
}
