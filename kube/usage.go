package kube

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/daprperf/daprperf/perf"
)

// MetricsGroupVersion is the API the platform reads usage from, served by metrics-server.
const MetricsGroupVersion = "metrics.k8s.io/v1beta1"

// Usage reads each process's usage from the metrics API (PodMetrics, per container):
//   - CPUSeconds is cumulative CPU time in seconds, integrated by the platform: the metrics API
//     gives a rate (cores, averaged over metrics-server's window of about 15 s to 1 min), so
//     each call adds the latest rate x the wall time since the previous call, and the first
//     call starts at rate x window. Per-second CPU derived from it is therefore that rate: a
//     step function lagging the load by up to a window, right in the mean over minutes.
//   - RSSBytes is the container's working set in bytes (what the kubelet and the OOM killer
//     watch: RSS plus active page cache), not the process's RSS.
//
// It returns an error naming the metrics API when the cluster does not serve it.
func (d *Deployment) Usage(ctx context.Context) (map[string]perf.Usage, error) {
	list, err := d.p.metrics.MetricsV1beta1().PodMetricses(d.ns).List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) { // a 404 for the whole group, not for an object
		return nil, fmt.Errorf("usage: the metrics API (%s) is not served by this cluster; install metrics-server: %w", MetricsGroupVersion, err)
	}
	if err != nil {
		return nil, fmt.Errorf("usage: read PodMetrics (%s) in %s: %w", MetricsGroupVersion, d.ns, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cpu.add(list.Items, time.Now(), d.appOfPod), nil
}

// cpuIntegrator turns CPU rates into cumulative CPU seconds, per pod and container.
type cpuIntegrator map[string]cpuState

type cpuState struct {
	at      time.Time // wall time of the previous call
	seconds float64   // cumulative CPU seconds so far
}

// add folds one PodMetrics listing, read at wall time now, in and returns the usage per
// process: CPU seconds and working-set bytes summed over the pods of each app (one pod per
// app in perf runs).
// appOf names the app of a PodMetrics (metrics-server copies the pod's labels; appOf is the
// fallback when they are missing).
func (c cpuIntegrator) add(items []metricsv1beta1.PodMetrics, now time.Time, appOf func(pod string) string) map[string]perf.Usage {
	out := map[string]perf.Usage{}
	for _, pm := range items {
		app := pm.Labels[LabelApp]
		if app == "" {
			app = appOf(pm.Name)
		}
		for _, cm := range pm.Containers {
			key := pm.Name + "/" + cm.Name
			cores := cm.Usage.Cpu().AsApproximateFloat64()
			st, seen := c[key]
			switch {
			case !seen:
				st = cpuState{at: now, seconds: cores * pm.Window.Seconds()}
			case now.After(st.at):
				st.seconds += cores * now.Sub(st.at).Seconds()
				st.at = now
			}
			c[key] = st
			name := processName(app, cm.Name)
			u := out[name]
			u.CPUSeconds += st.seconds
			if mem, ok := cm.Usage.Memory().AsInt64(); ok && mem > 0 {
				u.RSSBytes += uint64(mem)
			}
			if at := pm.Timestamp.Time; u.SampledAt.IsZero() || at.Before(u.SampledAt) {
				u.SampledAt = at // the oldest sample of the app's pods
			}
			out[name] = u
		}
	}
	return out
}

// appOfPod names the app whose Deployment made pod: pods are named <deployment>-<hash>-<id>.
func (d *Deployment) appOfPod(pod string) string {
	best := ""
	for _, a := range d.apps {
		if strings.HasPrefix(pod, a.Name+"-") && len(a.Name) > len(best) {
			best = a.Name
		}
	}
	return best
}

// UsageSampled is true: Usage reads the metrics API's samples (perf.SampledUsage).
func (d *Deployment) UsageSampled() bool { return true }
