package node

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KillContainer sends SIGKILL to the main process of container in pod ns/name through the
// containerd of the pod's node (ctr tasks kill), as an out-of-memory kill or a crash would end it: the kubelet
// then restarts it and counts the restart in the pod's status. It returns the container's
// runtime ID.
func (c *Cluster) KillContainer(ctx context.Context, ns, pod, container string) (string, error) {
	p, err := c.cs.CoreV1().Pods(ns).Get(ctx, pod, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	for _, st := range p.Status.ContainerStatuses {
		if st.Name != container {
			continue
		}
		id, ok := strings.CutPrefix(st.ContainerID, "containerd://")
		if !ok || st.State.Running == nil {
			return "", fmt.Errorf("kill %s/%s/%s: not running (id %q)", ns, pod, container, st.ContainerID)
		}
		n, err := c.nodeOf(p.Spec.NodeName)
		if err != nil {
			return "", fmt.Errorf("kill %s/%s/%s: %w", ns, pod, container, err)
		}
		if err := n.sb.run("ctr", "--address", n.containerdSocket(), "-n", "k8s.io", "tasks", "kill", "--signal", "SIGKILL", id); err != nil {
			return "", fmt.Errorf("kill %s/%s/%s: %w", ns, pod, container, err)
		}
		return id, nil
	}
	return "", fmt.Errorf("kill %s/%s/%s: no such container", ns, pod, container)
}
