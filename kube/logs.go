package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daprperf/daprperf/perf"
)

// logsTimeout bounds keeping one run's logs: listing the pods and reading every container's.
const logsTimeout = 30 * time.Second

// KeptLogs is what KeepLogs wrote: the folder, and the last perf.LogTailLines lines of each log
// ("<pod>/<container>" to text): Current of every container that ran, Previous of each one that
// restarted, from its instance before the restart.
type KeptLogs struct {
	Dir               string
	Current, Previous map[string]string
}

// KeepLogs writes the log of every container of the run's pods into dir (created if missing;
// "": no file is written, only the last lines returned): <pod>_<container>.log, and for a container that restarted also
// <pod>_<container>.previous.log, the log of the instance before its restart (the kubelet keeps
// that one until the pod goes, so it must be read before the namespace is deleted). A container
// that never started has no log and no file. It returns the logs' last lines; a log that cannot
// be read is an error naming the container, after the others are written.
func (d *Deployment) KeepLogs(ctx context.Context, dir string) (KeptLogs, error) {
	out := KeptLogs{Dir: dir, Current: map[string]string{}, Previous: map[string]string{}}
	pods, err := d.p.cs.CoreV1().Pods(d.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return out, fmt.Errorf("logs: list pods in %s: %w", d.ns, err)
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return out, fmt.Errorf("logs: %w", err)
		}
	}
	var errs []error
	for _, p := range pods.Items {
		for _, cs := range p.Status.ContainerStatuses {
			name := p.Name + "_" + cs.Name
			if cs.State.Waiting == nil || cs.RestartCount > 0 || cs.LastTerminationState.Terminated != nil {
				b, err := d.writeLog(ctx, p.Name, cs.Name, false, logPath(dir, name+".log"))
				if err != nil {
					errs = append(errs, err)
				} else {
					out.Current[p.Name+"/"+cs.Name] = perf.LastLines(b, perf.LogTailLines)
				}
			}
			if cs.RestartCount == 0 {
				continue
			}
			b, err := d.writeLog(ctx, p.Name, cs.Name, true, logPath(dir, name+".previous.log"))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out.Previous[p.Name+"/"+cs.Name] = perf.LastLines(b, perf.LogTailLines)
		}
	}
	return out, errors.Join(errs...)
}

// logPath is file in dir, or "" (nothing written) when dir is "".
func logPath(dir, file string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, file)
}

// writeLog reads container's log in pod (previous: the instance before the last restart) and
// writes it to path, unless path is ""; it returns what it read.
func (d *Deployment) writeLog(ctx context.Context, pod, container string, previous bool, path string) ([]byte, error) {
	which := "log"
	if previous {
		which = "previous log"
	}
	rc, err := d.p.cs.CoreV1().Pods(d.ns).GetLogs(pod, &corev1.PodLogOptions{Container: container, Previous: previous}).Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("logs: %s of %s/%s: %w", which, pod, container, err)
	}
	defer func() { _ = rc.Close() }()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("logs: %s of %s/%s: %w", which, pod, container, err)
	}
	if path != "" {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return nil, fmt.Errorf("logs: %w", err)
		}
	}
	return b, nil
}

// keepLogsOnFailure is the deployment's teardown step before the namespace goes: when the test
// failed, it keeps every container's log (KeepLogs) in the folder the runner gave Start
// (perf.LogsDir), logs that folder and, for each restarted container, the end of its log before
// the restart. Given no folder, it writes the end of every log into the test's output instead
// and keeps no file. A test that passed keeps nothing.
func (d *Deployment) keepLogsOnFailure(t interface {
	Failed() bool
	Logf(string, ...any)
}) {
	if !t.Failed() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), logsTimeout)
	defer cancel()
	kept, err := d.KeepLogs(ctx, d.logsDir)
	if d.logsDir != "" {
		t.Logf("kube: the logs of namespace %s's containers kept in %s", d.ns, kept.Dir)
	} else {
		for _, c := range slices.Sorted(maps.Keys(kept.Current)) {
			t.Logf("kube: %s, last lines of its log:\n%s", c, kept.Current[c])
		}
	}
	for _, c := range slices.Sorted(maps.Keys(kept.Previous)) {
		t.Logf("kube: %s before its restart, last lines:\n%s", c, kept.Previous[c])
	}
	if err != nil {
		t.Logf("kube: %v", err)
	}
}
