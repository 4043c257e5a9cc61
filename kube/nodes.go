package kube

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daprperf/daprperf/perf"
)

var _ perf.Placed = (*Deployment)(nil)

// Nodes implements perf.Placed: the node each app's pod and its sidecar were scheduled on
// (spec.nodeName), by process name as Processes gives it. A pod not yet scheduled is left out.
func (d *Deployment) Nodes(ctx context.Context) (map[string]string, error) {
	pods, err := d.p.cs.CoreV1().Pods(d.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("nodes: list pods in %s: %w", d.ns, err)
	}
	out := map[string]string{}
	for _, p := range pods.Items {
		app, node := p.Labels[LabelApp], p.Spec.NodeName
		if app == "" || node == "" {
			continue
		}
		for _, c := range p.Spec.Containers {
			out[processName(app, c.Name)] = node
		}
	}
	return out, nil
}
