package kube

import (
	"maps"
	"slices"
	"strings"
	"testing"

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
	if !slices.Equal(tester.ColocateWith, []string{"testapp"}) || target.ColocateWith != nil {
		t.Errorf("ColocateWith %v, %v; want [testapp] and none", tester.ColocateWith, target.ColocateWith)
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
