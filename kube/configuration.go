package kube

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// ConfigurationResource is Dapr's Configuration custom resource. Its CRD comes with Dapr's
// control plane (helm chart dapr/dapr); without it creating one fails with "the server could
// not find the requested resource".
var ConfigurationResource = schema.GroupVersionResource{Group: "dapr.io", Version: "v1alpha1", Resource: "configurations"}

// ConfigurationObject is the Dapr Configuration named d.ConfigName in namespace ns, with
// spec = d.Sidecar.Config (deep-copied); nil when d has no ConfigName.
func ConfigurationObject(ns string, d AppDescription) (*unstructured.Unstructured, error) {
	if d.ConfigName == "" {
		return nil, nil
	}
	// A JSON round trip turns typed values ([]string, int) into what unstructured accepts.
	spec, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&struct {
		Spec map[string]any `json:"spec"`
	}{Spec: d.Sidecar.Config})
	if err != nil {
		return nil, fmt.Errorf("app %s: Sidecar.Config: %w", d.Name, err)
	}
	u := &unstructured.Unstructured{Object: spec}
	u.SetAPIVersion(ConfigurationResource.GroupVersion().String())
	u.SetKind("Configuration")
	u.SetName(d.ConfigName)
	u.SetNamespace(ns)
	u.SetLabels(d.Labels)
	return u, nil
}

// createConfiguration creates d's Configuration, if it has one.
func createConfiguration(ctx context.Context, dyn dynamic.Interface, ns string, d AppDescription) error {
	u, err := ConfigurationObject(ns, d)
	if err != nil || u == nil {
		return err
	}
	if _, err := dyn.Resource(ConfigurationResource).Namespace(ns).Create(ctx, u, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("app %s: create Configuration %s (%s): %w", d.Name, d.ConfigName, ConfigurationResource.GroupVersion(), err)
	}
	return nil
}
