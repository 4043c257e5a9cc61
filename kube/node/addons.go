package node

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
)

// manifests are the add-ons' objects: metrics-server.yaml (written for this cluster), and per
// Dapr release dapr-crds-<version>.yaml and dapr-<version>.yaml (Dapr's Helm chart of that
// release, rendered; see each file's header, which says how to render another).
//
//go:embed manifests/*.yaml
var manifests embed.FS

// addonsUp applies metrics-server, then Dapr's CRDs, waits until they are established (or
// sentry restarts: config CRD not found), then Dapr's control plane; and waits until every
// Deployment and StatefulSet (placement, the scheduler) is ready and the metrics API answers.
func (c *Cluster) addonsUp(ctx context.Context, _ *pkiFiles) error {
	dyn, err := dynamic.NewForConfig(c.restCfg)
	if err != nil {
		return err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.cs.Discovery()))
	if err := applyFile(ctx, dyn, mapper, "manifests/metrics-server.yaml"); err != nil {
		return &PartError{Part: "metrics-server", Err: err}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "dapr-system"}}
	if _, err := c.cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return &PartError{Part: "dapr", Err: err}
	}
	if err := applyFile(ctx, dyn, mapper, daprCRDsManifest(c.cfg.DaprVersion)); err != nil {
		return &PartError{Part: "dapr CRDs", Err: err}
	}
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if err := waitFor("dapr CRDs", nil, 30*time.Second, func() error {
		list, err := dyn.Resource(crdGVR).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, crd := range list.Items {
			if !strings.HasSuffix(crd.GetName(), ".dapr.io") {
				continue
			}
			conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
			established := false
			for _, co := range conds {
				m, _ := co.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					established = true
				}
			}
			if !established {
				return fmt.Errorf("CRD %s not established", crd.GetName())
			}
		}
		return nil
	}); err != nil {
		return err
	}
	mapper.Reset()
	c.mark("dapr CRDs")
	if err := applyFile(ctx, dyn, mapper, daprManifest(c.cfg.DaprVersion)); err != nil {
		return &PartError{Part: "dapr", Err: err}
	}
	for _, d := range []struct {
		ns, name    string
		statefulSet bool
	}{
		{"kube-system", "metrics-server", false},
		{"dapr-system", "dapr-sentry", false},
		{"dapr-system", "dapr-operator", false},
		{"dapr-system", "dapr-sidecar-injector", false},
		{"dapr-system", "dapr-placement-server", true},
		{"dapr-system", "dapr-scheduler-server", true},
	} {
		ready := func() error { return c.deploymentAvailable(ctx, d.ns, d.name) }
		if d.statefulSet {
			ready = func() error { return c.statefulSetReady(ctx, d.ns, d.name) }
		}
		if err := waitFor(d.name, nil, 120*time.Second, ready); err != nil {
			var pe *PartError
			if errors.As(err, &pe) {
				pe.Log = c.podLogs(ctx, d.ns, d.name)
			}
			return err
		}
		c.mark(d.name)
	}
	if err := waitFor("metrics API", nil, 90*time.Second, func() error { return c.metricsAnswer(ctx) }); err != nil {
		return err
	}
	c.mark("metrics API")
	return nil
}

// deploymentAvailable is nil once ns/name has all its replicas updated and available.
func (c *Cluster) deploymentAvailable(ctx context.Context, ns, name string) error {
	d, err := c.cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	if d.Status.AvailableReplicas < want || d.Status.UpdatedReplicas < want {
		if err := c.crashing(ctx, ns, "deployment "+ns+"/"+name, d.Spec.Selector); err != nil {
			return err
		}
		return fmt.Errorf("deployment %s/%s: %d of %d replicas available", ns, name, d.Status.AvailableReplicas, want)
	}
	return nil
}

// statefulSetReady is nil once ns/name has all its replicas ready (placement, the scheduler).
func (c *Cluster) statefulSetReady(ctx context.Context, ns, name string) error {
	s, err := c.cs.AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	want := int32(1)
	if s.Spec.Replicas != nil {
		want = *s.Spec.Replicas
	}
	if s.Status.ReadyReplicas < want {
		if err := c.crashing(ctx, ns, "statefulset "+ns+"/"+name, s.Spec.Selector); err != nil {
			return err
		}
		return fmt.Errorf("statefulset %s/%s: %d of %d replicas ready", ns, name, s.Status.ReadyReplicas, want)
	}
	return nil
}

// crashing is errGiveUp, naming the container, when a pod of what (selected by sel) has a
// container that restarted 3 times: it will not become ready, so waiting longer is pointless.
func (c *Cluster) crashing(ctx context.Context, ns, what string, sel *metav1.LabelSelector) error {
	pods, err := c.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(sel)})
	if err != nil {
		return nil
	}
	for _, p := range pods.Items {
		for _, st := range p.Status.ContainerStatuses {
			if st.RestartCount >= 3 {
				return fmt.Errorf("%s: container %s of pod %s restarted %d times: %w", what, st.Name, p.Name, st.RestartCount, errGiveUp)
			}
		}
	}
	return nil
}

// podLogs is the end of the logs of the pods whose app label (or k8s-app) is app, for errors.
func (c *Cluster) podLogs(ctx context.Context, ns, app string) string {
	var out strings.Builder
	for _, sel := range []string{"app=" + app, "k8s-app=" + app} {
		pods, err := c.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			continue
		}
		for _, p := range pods.Items {
			fmt.Fprintf(&out, "pod %s: phase %s\n", p.Name, p.Status.Phase)
			for _, cs := range p.Status.ContainerStatuses {
				fmt.Fprintf(&out, "  container %s: ready=%v restarts=%d state=%+v\n", cs.Name, cs.Ready, cs.RestartCount, cs.State)
			}
			// The pod's events say why it is stuck (FailedCreatePodSandBox, FailedMount, ...).
			if evs, err := c.cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + p.Name}); err == nil {
				for _, e := range evs.Items {
					fmt.Fprintf(&out, "  event %s %s (x%d): %s\n", e.Type, e.Reason, e.Count, e.Message)
				}
			}
			tail := int64(20)
			b, err := c.cs.CoreV1().Pods(ns).GetLogs(p.Name, &corev1.PodLogOptions{TailLines: &tail}).DoRaw(ctx)
			if err == nil {
				out.Write(b)
			}
		}
	}
	return out.String()
}

// applyFile creates every object of the embedded multi-document YAML file name; objects that
// exist already are left as they are.
func applyFile(ctx context.Context, dyn dynamic.Interface, mapper meta.RESTMapper, name string) error {
	data, err := manifests.ReadFile(name)
	if err != nil {
		return err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var obj unstructured.Unstructured
		if err := dec.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		gvk := obj.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return fmt.Errorf("%s: %s %s: %w", name, gvk.Kind, obj.GetName(), err)
		}
		var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			ns := obj.GetNamespace()
			if ns == "" {
				ns = "default"
			}
			ri = dyn.Resource(m.Resource).Namespace(ns)
		}
		if _, err := ri.Create(ctx, &obj, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("%s: create %s %s: %w", name, gvk.Kind, obj.GetName(), err)
		}
	}
}

// daprManifest and daprCRDsManifest are the embedded files of Dapr release version ("v1.18.3"):
// its control plane and its CRDs.
func daprManifest(version string) string     { return "manifests/dapr-" + version + ".yaml" }
func daprCRDsManifest(version string) string { return "manifests/dapr-crds-" + version + ".yaml" }

// checkDaprManifests says which Dapr releases have rendered manifests when version has none.
func checkDaprManifests(version string) error {
	_, err1 := manifests.ReadFile(daprManifest(version))
	_, err2 := manifests.ReadFile(daprCRDsManifest(version))
	if err1 == nil && err2 == nil {
		return nil
	}
	have, _ := fs.Glob(manifests, "manifests/dapr-v*.yaml")
	for i, h := range have {
		have[i] = strings.TrimSuffix(strings.TrimPrefix(h, "manifests/dapr-"), ".yaml")
	}
	how := "render it with helm template, as the header of each rendered chart says"
	if len(have) > 0 {
		how = "render it as the header of " + daprManifest(have[0]) + " says"
	}
	return fmt.Errorf("kube node: DAPR_VERSION %s: no rendered chart in kube/node/manifests (%s, %s); releases with one: %s; %s",
		version, daprManifest(version), daprCRDsManifest(version), strings.Join(have, ", "), how)
}
