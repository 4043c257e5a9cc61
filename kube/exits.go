package kube

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daprperf/daprperf/perf"
)

// Exits lists every container of the run's pods that restarted (RestartCount > 0) or is
// terminated now, as perf.Exit: Process is the app for the app's container and
// "<app>-daprd" for the daprd container, Restarts the restart count, Reason the last
// termination's reason and exit code, At when it finished (zero when unknown).
func (d *Deployment) Exits(ctx context.Context) ([]perf.Exit, error) {
	pods, err := d.p.cs.CoreV1().Pods(d.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("exits: list pods in %s: %w", d.ns, err)
	}
	return podExits(pods.Items), nil
}

// podExits is Exits over pods, ordered by process name.
func podExits(pods []corev1.Pod) []perf.Exit {
	var exits []perf.Exit
	for _, p := range pods {
		app := p.Labels[LabelApp]
		for _, cs := range p.Status.ContainerStatuses {
			term := cs.State.Terminated
			if term == nil {
				term = cs.LastTerminationState.Terminated
			}
			if cs.RestartCount == 0 && cs.State.Terminated == nil {
				continue
			}
			e := perf.Exit{Process: processName(app, cs.Name), Restarts: int(cs.RestartCount), Reason: "restarted"}
			if term != nil {
				e.At = term.FinishedAt.Time
				e.Reason = terminationReason(term)
			}
			exits = append(exits, e)
		}
	}
	sort.Slice(exits, func(i, j int) bool { return exits[i].Process < exits[j].Process })
	return exits
}

// processName is the perf process name of container in a pod of app.
func processName(app, container string) string {
	if container == SidecarContainer {
		return perf.SidecarName(app)
	}
	if container == app {
		return app
	}
	return app + "/" + container // a container the platform did not write
}

// terminationReason reads like "OOMKilled, exit code 137" or "Error, exit code 1, signal 9".
func terminationReason(t *corev1.ContainerStateTerminated) string {
	r := t.Reason
	if r == "" {
		r = "terminated"
	}
	r += fmt.Sprintf(", exit code %d", t.ExitCode)
	if t.Signal != 0 {
		r += fmt.Sprintf(", signal %d", t.Signal)
	}
	if t.Message != "" {
		r += ": " + t.Message
	}
	return r
}

// podReady says whether p's Ready condition is True.
func podReady(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
