package kube

import (
	"os"
	"strings"
	"testing"
)

func TestNewReadsEnv(t *testing.T) {
	kubeconfig := t.TempDir() + "/kubeconfig"
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string // substrings of the error; none means success
	}{
		{"all missing", map[string]string{}, []string{"KUBECONFIG is not set", "DAPR_PERF_IMAGE_REGISTRY (or Dapr's DAPR_TEST_REGISTRY) is not set"}},
		{"kubeconfig file missing", map[string]string{"KUBECONFIG": kubeconfig, "DAPR_PERF_IMAGE_REGISTRY": "ghcr.io/me", "DAPR_PERF_IMAGE_TAG": "v1"}, []string{"KUBECONFIG=" + kubeconfig}},
		{"bad registry", map[string]string{"DAPR_PERF_IMAGE_REGISTRY": "https://ghcr.io/me/", "DAPR_PERF_IMAGE_TAG": "v1"}, []string{`DAPR_PERF_IMAGE_REGISTRY="https://ghcr.io/me/"`}},
		{"tag missing", map[string]string{"DAPR_PERF_IMAGE_REGISTRY": "localhost:5000"}, []string{"DAPR_PERF_IMAGE_TAG (or Dapr's DAPR_TEST_TAG) is not set"}},
		{"bad tag", map[string]string{"DAPR_PERF_IMAGE_REGISTRY": "localhost:5000", "DAPR_PERF_IMAGE_TAG": "v1:2"}, []string{`DAPR_PERF_IMAGE_TAG="v1:2"`}},
		{"Dapr's names", map[string]string{"KUBECONFIG": kubeconfig, "DAPR_TEST_REGISTRY": "ghcr.io/dapr", "DAPR_TEST_TAG": "v1"}, []string{"KUBECONFIG=" + kubeconfig}},
		{"Dapr's registry name, bad", map[string]string{"DAPR_TEST_REGISTRY": "https://ghcr.io/me/", "DAPR_TEST_TAG": "v1"}, []string{`DAPR_TEST_REGISTRY="https://ghcr.io/me/"`}},
		{"Dapr's tag name, bad", map[string]string{"DAPR_PERF_IMAGE_REGISTRY": "localhost:5000", "DAPR_TEST_TAG": "v1:2"}, []string{`DAPR_TEST_TAG="v1:2"`}},
		{"both names, different", map[string]string{"DAPR_PERF_IMAGE_REGISTRY": "localhost:5000", "DAPR_TEST_REGISTRY": "ghcr.io/dapr", "DAPR_PERF_IMAGE_TAG": "v1", "DAPR_TEST_TAG": "v2"}, []string{`DAPR_PERF_IMAGE_REGISTRY="localhost:5000" and DAPR_TEST_REGISTRY="ghcr.io/dapr" differ`, `DAPR_PERF_IMAGE_TAG="v1" and DAPR_TEST_TAG="v2" differ`}},
		{"bad service type", map[string]string{"DAPR_PERF_IMAGE_REGISTRY": "localhost:5000", "DAPR_PERF_IMAGE_TAG": "v1", "DAPR_PERF_SERVICE_TYPE": "NodePort"}, []string{`DAPR_PERF_SERVICE_TYPE="NodePort"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{EnvKubeconfig, EnvImageRegistry, EnvImageTag, EnvDaprTestRegistry, EnvDaprTestTag, EnvServiceType, "KUBERNETES_SERVICE_HOST"} {
				t.Setenv(k, tc.env[k])
			}
			_, err := newFromEnv()
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("newFromEnv() = %v, want an error with %q", err, w)
				}
			}
		})
	}
}

func TestNewFromKubeconfig(t *testing.T) {
	path := t.TempDir() + "/kubeconfig"
	const kc = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`
	if err := writeFile(path, kc); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvKubeconfig, path)
	t.Setenv(EnvImageRegistry, "ghcr.io/me")
	t.Setenv(EnvImageTag, "nightly-2026-11-29")
	t.Setenv(EnvServiceType, "LoadBalancer")
	p, err := newFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "kubernetes" || p.cfg.Host != "https://127.0.0.1:6443" || p.serviceType != "LoadBalancer" {
		t.Errorf("platform %s, host %s, service type %s", p.Name(), p.cfg.Host, p.serviceType)
	}
	if got := p.Images().Image("httpapp"); got != "ghcr.io/me/daprperf-httpapp:nightly-2026-11-29" {
		t.Errorf("image %s", got)
	}
}

func TestNewTakesDaprsImageVariables(t *testing.T) {
	path := t.TempDir() + "/kubeconfig"
	const kc = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`
	if err := writeFile(path, kc); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvKubeconfig, path)
	t.Setenv(EnvServiceType, "")
	for _, tc := range []struct {
		name                      string
		registry, tag, dReg, dTag string
		want                      string
	}{
		{"Dapr's only", "", "", "ghcr.io/dapr", "1.17.5", "ghcr.io/dapr/daprperf-httpapp:1.17.5"},
		{"mixed", "localhost:5000", "", "", "v2", "localhost:5000/daprperf-httpapp:v2"},
		{"both, equal", "ghcr.io/me", "v1", "ghcr.io/me", "v1", "ghcr.io/me/daprperf-httpapp:v1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvImageRegistry, tc.registry)
			t.Setenv(EnvImageTag, tc.tag)
			t.Setenv(EnvDaprTestRegistry, tc.dReg)
			t.Setenv(EnvDaprTestTag, tc.dTag)
			p, err := newFromEnv()
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Images().Image("httpapp"); got != tc.want {
				t.Errorf("image %s, want %s", got, tc.want)
			}
		})
	}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o600) }

// DAPR_PERF_KUBE_CONTEXT picks a context of the kubeconfig other than its current one, as
// kubectl --context; a context the file lacks is an error naming both variables.
func TestNewTakesAKubeContext(t *testing.T) {
	path := t.TempDir() + "/kubeconfig"
	const kc = `apiVersion: v1
kind: Config
clusters: [{name: near, cluster: {server: "https://127.0.0.1:6443"}}, {name: far, cluster: {server: "https://127.0.0.2:6443"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: near, context: {cluster: near, user: u}}, {name: far, context: {cluster: far, user: u}}]
current-context: near
`
	if err := writeFile(path, kc); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvKubeconfig, path)
	t.Setenv(EnvImageRegistry, "ghcr.io/me")
	t.Setenv(EnvImageTag, "v1")
	t.Setenv(EnvServiceType, "")
	for ctx, want := range map[string]string{"": "https://127.0.0.1:6443", "far": "https://127.0.0.2:6443"} {
		t.Setenv(EnvKubeContext, ctx)
		p, err := newFromEnv()
		if err != nil {
			t.Fatalf("context %q: %v", ctx, err)
		}
		if p.cfg.Host != want {
			t.Errorf("context %q: host %s, want %s", ctx, p.cfg.Host, want)
		}
	}
	t.Setenv(EnvKubeContext, "nowhere")
	if _, err := newFromEnv(); err == nil || !strings.Contains(err.Error(), "DAPR_PERF_KUBE_CONTEXT=nowhere") {
		t.Errorf("a missing context: %v, want an error naming DAPR_PERF_KUBE_CONTEXT", err)
	}
}
