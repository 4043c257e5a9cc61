package kube_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/daprperf/daprperf/perf"
)

// KubeVersion is the control plane scripts/build-kube.sh builds.
const KubeVersion = "v1.37.2"

// controlPlaneBinaries are what a test cluster needs in the assets directory.
var controlPlaneBinaries = []string{"kube-apiserver", "etcd", "kube-controller-manager", "kube-scheduler", "kwok"}

// kwokStages are the stage files build-kube.sh copies from kwok's module.
var kwokStages = []string{"node-initialize.yaml", "node-heartbeat.yaml", "pod-ready.yaml", "pod-complete.yaml", "pod-delete.yaml"}

// FakeNode is the kwok node every test cluster has.
const FakeNode = "kwok-node-0"

// cluster is a real control plane on loopback: kube-apiserver and etcd (envtest),
// kube-controller-manager (Deployments, ReplicaSets, namespaces, garbage collection),
// kube-scheduler, and kwok, which plays the kubelet of FakeNode: its pods become Ready
// without running anything.
type cluster struct {
	cfg        *rest.Config
	cs         kubernetes.Interface
	kubeconfig string // path of an admin kubeconfig
}

// assetsDir is KUBEBUILDER_ASSETS, or .kube-bin/<KubeVersion> at the repository root.
func assetsDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("KUBEBUILDER_ASSETS"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := perf.RepoRootFrom(wd)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, ".kube-bin", KubeVersion)
}

// requireBinaries skips t when a control-plane binary is missing, or fails it when env CI is
// set: CI builds them first (make kube-bin).
func requireBinaries(t testing.TB, dir string) {
	t.Helper()
	var missing []string
	for _, b := range controlPlaneBinaries {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			missing = append(missing, b)
		}
	}
	for _, s := range kwokStages {
		if _, err := os.Stat(filepath.Join(dir, "kwok-stages", s)); err != nil {
			missing = append(missing, "kwok-stages/"+s)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := "control-plane binaries missing in " + dir + ": " + strings.Join(missing, ", ") +
		"; run scripts/build-kube.sh (make kube-bin; about 10 min the first time)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// startCluster starts a cluster for t, stopped in t.Cleanup, with a Ready FakeNode and
// Dapr's Configuration and Component CRDs (schemaless stand-ins for the ones Dapr's helm chart
// installs).
func startCluster(t *testing.T) *cluster {
	t.Helper()
	dir := assetsDir(t)
	requireBinaries(t, dir)
	env := &envtest.Environment{
		BinaryAssetsDirectory: dir,
		CRDInstallOptions:     envtest.CRDInstallOptions{CRDs: []*apiextensionsv1.CustomResourceDefinition{daprConfigurationCRD(), daprComponentCRD()}},
	}
	env.ControlPlane.GetAPIServer().Configure().
		Set("endpoint-reconciler-type", "none"). // no master Endpoints on loopback
		Set("service-cluster-ip-range", "10.96.0.0/16")
	if _, err := env.Start(); err != nil { // its user is not in system:masters: AddUser below
		t.Fatalf("start kube-apiserver and etcd from %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stop kube-apiserver and etcd: %v", err)
		}
	})
	admin, err := env.AddUser(envtest.User{Name: "daprperf-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatalf("admin user: %v", err)
	}
	kc, err := admin.KubeConfig()
	if err != nil {
		t.Fatalf("admin kubeconfig: %v", err)
	}
	work := t.TempDir()
	kubeconfig := filepath.Join(work, "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	startProcess(t, work, "kube-controller-manager", filepath.Join(dir, "kube-controller-manager"),
		"--kubeconfig="+kubeconfig,
		"--controllers=deployment,replicaset,namespace,garbagecollector,endpointslice",
		"--leader-elect=false", "--bind-address=127.0.0.1", "--secure-port=0",
		"--concurrent-deployment-syncs=2", "--concurrent-replicaset-syncs=2", "--v=1")
	startProcess(t, work, "kube-scheduler", filepath.Join(dir, "kube-scheduler"),
		"--kubeconfig="+kubeconfig, "--leader-elect=false", "--bind-address=127.0.0.1", "--secure-port=0", "--v=1")
	kwokArgs := []string{
		"--kubeconfig=" + kubeconfig,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"--manage-nodes-with-label-selector=",
		"--manage-single-node=",
		"--cidr=10.244.0.0/24", "--node-ip=127.0.0.1",
		"--node-lease-duration-seconds=40",
	}
	for _, s := range kwokStages {
		kwokArgs = append(kwokArgs, "--config="+filepath.Join(dir, "kwok-stages", s))
	}
	startProcess(t, work, "kwok", filepath.Join(dir, "kwok"), kwokArgs...)

	cs := kubernetes.NewForConfigOrDie(admin.Config())
	c := &cluster{cfg: admin.Config(), cs: cs, kubeconfig: kubeconfig}
	c.addNode(t)
	return c
}

// addNode creates FakeNode, managed by kwok, and waits until it is Ready.
func (c *cluster) addNode(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        FakeNode,
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
			Labels:      map[string]string{"kubernetes.io/hostname": FakeNode, "type": "kwok"},
		},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("256Gi"), corev1.ResourcePods: resource.MustParse("110")},
			Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("256Gi"), corev1.ResourcePods: resource.MustParse("110")},
		},
	}
	if _, err := c.cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create node %s: %v", FakeNode, err)
	}
	poll(ctx, t, "node "+FakeNode+" Ready (kwok)", func(ctx context.Context) (bool, error) {
		n, err := c.cs.CoreV1().Nodes().Get(ctx, FakeNode, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	// The NodeRestriction/TaintNodesByCondition admission adds node.kubernetes.io/not-ready;
	// the node lifecycle controller, not run here, would lift it once Ready. Lift it ourselves.
	n, err := c.cs.CoreV1().Nodes().Get(ctx, FakeNode, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Spec.Taints = nil
	if _, err := c.cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("untaint node %s: %v", FakeNode, err)
	}
}

// daprConfigurationCRD is a minimal Configuration CRD: dapr.io/v1alpha1, namespaced, any spec.
func daprConfigurationCRD() *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "configurations.dapr.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "dapr.io",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "configurations", Singular: "configuration", Kind: "Configuration", ListKind: "ConfigurationList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1alpha1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &preserve,
				}},
			}},
		},
	}
}

// daprComponentCRD is a minimal Component CRD: dapr.io/v1alpha1, namespaced, any content (a
// Component has auth and scopes beside spec).
func daprComponentCRD() *apiextensionsv1.CustomResourceDefinition {
	crd := daprConfigurationCRD()
	crd.Name = "components.dapr.io"
	crd.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{Plural: "components", Singular: "component", Kind: "Component", ListKind: "ComponentList"}
	return crd
}
