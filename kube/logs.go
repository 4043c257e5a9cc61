package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// logTailLines is how many of a restarted container's last lines before its restart go into
// the test's output: enough for a daprd's fatal line and the few before it.
const logTailLines int64 = 20

// logsTimeout bounds keeping one run's logs: listing the pods and reading every container's.
const logsTimeout = 30 * time.Second

// KeptLogs is what KeepLogs wrote: the folder, and for each container that restarted, the last
// logTailLines lines of its log before the restart ("<pod>/<container>" to text).
type KeptLogs struct {
	Dir      string
	Previous map[string]string
}

// KeepLogs writes the log of every container of the run's pods into a new folder under the
// system's temporary folder, daprperf-kube-logs-<namespace>-*: <pod>_<container>.log, and for a
// container that restarted also <pod>_<container>.previous.log, the log of the instance before
// its restart (the kubelet keeps that one until the pod goes, so it must be read before the
// namespace is deleted). A container that never started has no log and no file. It returns the
// folder and the previous logs' last lines; a log that cannot be read is an error naming the
// container, after the others are written.
func (d *Deployment) KeepLogs(ctx context.Context) (KeptLogs, error) {
	out := KeptLogs{Previous: map[string]string{}}
	pods, err := d.p.cs.CoreV1().Pods(d.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return out, fmt.Errorf("logs: list pods in %s: %w", d.ns, err)
	}
	out.Dir, err = os.MkdirTemp("", "daprperf-kube-logs-"+d.ns+"-")
	if err != nil {
		return out, fmt.Errorf("logs: %w", err)
	}
	var errs []error
	for _, p := range pods.Items {
		for _, cs := range p.Status.ContainerStatuses {
			name := p.Name + "_" + cs.Name
			if cs.State.Waiting == nil || cs.RestartCount > 0 || cs.LastTerminationState.Terminated != nil {
				if _, err := d.writeLog(ctx, p.Name, cs.Name, false, filepath.Join(out.Dir, name+".log")); err != nil {
					errs = append(errs, err)
				}
			}
			if cs.RestartCount == 0 {
				continue
			}
			b, err := d.writeLog(ctx, p.Name, cs.Name, true, filepath.Join(out.Dir, name+".previous.log"))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out.Previous[p.Name+"/"+cs.Name] = lastLines(b, logTailLines)
		}
	}
	return out, errors.Join(errs...)
}

// writeLog reads container's log in pod (previous: the instance before the last restart) and
// writes it to path; it returns what it read.
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
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return nil, fmt.Errorf("logs: %w", err)
	}
	return b, nil
}

// lastLines is the last n lines of b, without the final newline.
func lastLines(b []byte, n int64) string {
	b = bytes.TrimRight(b, "\n")
	i := len(b)
	for k := int64(0); k < n; k++ {
		j := bytes.LastIndexByte(b[:i], '\n')
		if j < 0 {
			return string(b)
		}
		i = j
	}
	return strings.TrimPrefix(string(b[i:]), "\n")
}

// keepLogsOnFailure is the deployment's teardown step before the namespace goes: when the test
// failed, it keeps every container's log (KeepLogs) and logs the folder, and for each restarted
// container the end of its log before the restart. A test that passed keeps nothing.
func (d *Deployment) keepLogsOnFailure(t interface {
	Failed() bool
	Logf(string, ...any)
}) {
	if !t.Failed() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), logsTimeout)
	defer cancel()
	kept, err := d.KeepLogs(ctx)
	if kept.Dir != "" {
		t.Logf("kube: the logs of namespace %s's containers kept in %s", d.ns, kept.Dir)
	}
	for _, c := range slices.Sorted(maps.Keys(kept.Previous)) {
		t.Logf("kube: %s before its restart, last lines:\n%s", c, kept.Previous[c])
	}
	if err != nil {
		t.Logf("kube: %v", err)
	}
}
