package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// RolloutError is a rollout that did not finish before its context ended. Its message names
// the app, the replica counts and each pod's conditions, which say why (Unschedulable, a
// failing readiness probe, an image that cannot be pulled).
type RolloutError struct {
	App  string
	Want int32 // replicas asked for
	// Ready is how many were available at the last reading.
	Ready int32
	// Pods describes each pod: "name: PodScheduled=False (Unschedulable: 0/1 nodes ...); ...".
	Pods []string
	Err  error // the context's error
}

func (e *RolloutError) Error() string {
	pods := "no pods"
	if len(e.Pods) > 0 {
		pods = strings.Join(e.Pods, "; ")
	}
	return fmt.Sprintf("rollout of app %s: %d/%d replicas available: %v; %s", e.App, e.Ready, e.Want, e.Err, pods)
}

func (e *RolloutError) Unwrap() error { return e.Err }

// rolloutPoll is how often waitRollout reads the Deployments.
const rolloutPoll = 250 * time.Millisecond

// waitRollout returns once each app's Deployment in ns has all replicas updated and available
// (pods Ready) and its Service's EndpointSlices list that many ready endpoints, or a
// *RolloutError for the first app that is not when ctx ends. The endpoints come after the
// pods' Ready (the EndpointSlice controller reacts to the same pod update as the Deployment
// controller): a load sent through the Service before them meets kube-proxy's reject rule for
// a Service without endpoints (on a real one-node cluster: gRPC Unavailable errors and 1 s
// reconnect backoffs in the baseline).
func waitRollout(ctx context.Context, cs kubernetes.Interface, ns string, apps []AppDescription) error {
	tick := time.NewTicker(rolloutPoll)
	defer tick.Stop()
	for _, d := range apps {
		for {
			dep, err := cs.AppsV1().Deployments(ns).Get(ctx, d.Name, metav1.GetOptions{})
			var ready int
			if err == nil && rolledOut(dep) {
				if ready, err = readyEndpoints(ctx, cs, ns, d.Name); err == nil && int32(ready) >= dep.Status.AvailableReplicas {
					break
				}
				if err == nil {
					err = fmt.Errorf("service %s: %d ready endpoints of %d available replicas", d.Name, ready, dep.Status.AvailableReplicas)
				}
			}
			select {
			case <-ctx.Done():
				return rolloutError(cs, ns, d, dep, errors.Join(context.Cause(ctx), err))
			case <-tick.C:
			}
		}
	}
	return nil
}

// readyEndpoints counts the ready endpoints of Service svc in ns over its EndpointSlices.
func readyEndpoints(ctx context.Context, cs kubernetes.Interface, ns, svc string) (int, error) {
	return readyEndpointsExcept(ctx, cs, ns, svc, nil)
}

// readyEndpointsExcept counts the ready endpoints of Service svc in ns over its EndpointSlices,
// leaving out those whose pod is in old (an endpoint without a pod reference counts only when
// old is empty).
func readyEndpointsExcept(ctx context.Context, cs kubernetes.Interface, ns, svc string, old map[types.UID]bool) (int, error) {
	list, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + svc})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, sl := range list.Items {
		for _, e := range sl.Endpoints {
			ready := e.Conditions.Ready == nil || *e.Conditions.Ready
			fresh := len(old) == 0 || (e.TargetRef != nil && !old[e.TargetRef.UID])
			if ready && fresh {
				n++
			}
		}
	}
	return n, nil
}

// rolledOut says whether every replica of dep runs its current template and is available.
func rolledOut(dep *appsv1.Deployment) bool {
	want := int32(1)
	if dep.Spec.Replicas != nil {
		want = *dep.Spec.Replicas
	}
	s := dep.Status
	return s.ObservedGeneration >= dep.Generation && s.UpdatedReplicas == want &&
		s.AvailableReplicas == want && s.Replicas == want
}

// rolloutError describes why d is not rolled out: its last Deployment reading (may be nil)
// and its pods' conditions, read with a short context of its own since ctx has ended.
func rolloutError(cs kubernetes.Interface, ns string, d AppDescription, dep *appsv1.Deployment, cause error) error {
	e := &RolloutError{App: d.Name, Want: d.Replicas, Err: cause}
	if dep != nil {
		e.Ready = dep.Status.AvailableReplicas
		for _, c := range dep.Status.Conditions {
			if c.Status != corev1.ConditionTrue {
				e.Pods = append(e.Pods, fmt.Sprintf("deployment: %s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message))
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{LabelApp: d.Name}).String(),
	})
	if err != nil {
		e.Pods = append(e.Pods, fmt.Sprintf("listing pods failed: %v", err))
		return e
	}
	for _, p := range pods.Items {
		e.Pods = append(e.Pods, p.Name+": "+podConditions(p))
	}
	return e
}

// podConditions lists a pod's phase and conditions as "Type=Status (Reason: Message)", and
// the waiting reason of any container that is not running.
func podConditions(p corev1.Pod) string {
	parts := []string{"phase " + string(p.Status.Phase)}
	for _, c := range p.Status.Conditions {
		s := fmt.Sprintf("%s=%s", c.Type, c.Status)
		if c.Reason != "" || c.Message != "" {
			s += fmt.Sprintf(" (%s: %s)", c.Reason, c.Message)
		}
		parts = append(parts, s)
	}
	for _, cs := range p.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil {
			parts = append(parts, fmt.Sprintf("container %s waiting (%s: %s)", cs.Name, w.Reason, w.Message))
		}
	}
	return strings.Join(parts, ", ")
}
