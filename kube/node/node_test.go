//go:build kubenode

// The end-to-end tests of the kube platform on a real one-node cluster. They need root, the
// Debian packages containerd, runc, containernetworking-plugins, iptables and conntrack, and
// the built parts (make kube-bin kube-node daprd); make test-kube runs them:
//
//	go test -tags kubenode -count=1 -v -timeout 40m ./kube/node/
package node_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daprperf/daprperf/kube/node"
)

// TestNode brings one cluster up, runs every check on it in order, tears it down and compares
// the host's network and kernel configuration with what it was before.
func TestNode(t *testing.T) {
	before, err := node.HostState()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := node.Start(ctx, node.Config{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			if err := c.Stop(); err != nil {
				t.Error(err)
			}
		}
	}()
	for _, tm := range c.Timings {
		t.Logf("bring-up: %-24s %6.1f s", tm.Part, tm.After.Seconds())
	}

	t.Run("network stays on the node", func(t *testing.T) { testNetwork(t, c) })

	stopped = true
	t0 := time.Now()
	if err := c.Stop(); err != nil {
		t.Error(err)
	}
	t.Logf("teardown: %.1f s", time.Since(t0).Seconds())
	after, err := node.HostState()
	if err != nil {
		t.Fatal(err)
	}
	compareHostState(t, before, after)
}

// compareHostState fails t for each aspect of the host that differs, with both versions.
func compareHostState(t *testing.T, before, after map[string]string) {
	t.Helper()
	var keys []string
	for k := range before {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if before[k] != after[k] {
			t.Errorf("host %s differs after teardown:\n--- before\n%s\n--- after\n%s", k, before[k], after[k])
		}
	}
	t.Logf("host state after teardown equals before: %s", strings.Join(keys, ", "))
}

// testNetwork runs a probe pod that resolves and dials names and addresses inside and outside
// the cluster: inside ones must work, outside ones must fail at once.
func testNetwork(t *testing.T, c *node.Cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := c.Clientset()
	probes := []string{
		"lookup", "kubernetes.default.svc." + node.ClusterDomain,
		"dial", "kubernetes.default.svc." + node.ClusterDomain + ":443",
		"lookup", "example.com",
		"lookup", "dapr.io.",
		"dial", "1.1.1.1:443",
		"dial", "8.8.8.8:53",
		"dial", node.NodeIP + ":6443",
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "netprobe", Namespace: "default"},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{
				Name: "probe", Image: node.ImageRegistry + "/pause:" + node.ImageTag,
				Command: []string{"/nodeprobe"}, Args: probes,
			}},
		},
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var phase corev1.PodPhase
	for ctx.Err() == nil {
		p, err := cs.CoreV1().Pods("default").Get(ctx, "netprobe", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if phase = p.Status.Phase; phase == corev1.PodSucceeded || phase == corev1.PodFailed {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	logs, err := cs.CoreV1().Pods("default").GetLogs("netprobe", &corev1.PodLogOptions{}).DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("probe pod %s, its log (through the kubelet):\n%s", phase, logs)
	if phase != corev1.PodSucceeded {
		t.Fatalf("probe pod ended %s", phase)
	}
	results := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(logs)), "\n") {
		f := strings.SplitN(l, " ", 3)
		if len(f) == 3 {
			results[f[0]+" "+f[1]] = f[2]
		}
	}
	want := func(probe string, ok bool) {
		t.Helper()
		r, found := results[probe]
		if !found {
			t.Errorf("%s: no result", probe)
			return
		}
		var ms int
		if i := strings.LastIndex(r, " in "); i >= 0 {
			fmt.Sscanf(r[i+4:], "%dms", &ms)
		}
		switch {
		case ok && !strings.HasPrefix(r, "ok"):
			t.Errorf("%s: want it to work, got %s", probe, r)
		case !ok && !strings.HasPrefix(r, "fail"):
			t.Errorf("%s: want it to fail (outside the cluster), got %s", probe, r)
		case !ok && ms > 1000:
			t.Errorf("%s: failed, but after %d ms: want at once (under 1 s)", probe, ms)
		}
	}
	want("lookup kubernetes.default.svc."+node.ClusterDomain, true)
	want("dial kubernetes.default.svc."+node.ClusterDomain+":443", true)
	want("dial "+node.NodeIP+":6443", true)
	want("lookup example.com", false)
	want("lookup dapr.io.", false)
	want("dial 1.1.1.1:443", false)
	want("dial 8.8.8.8:53", false)
	if n := c.DNSRefused(); n == 0 {
		t.Errorf("the cluster DNS refused no query: the outside names did not reach it")
	} else {
		t.Logf("the cluster DNS refused %d queries for outside names (it never forwards)", n)
	}
	_ = cs.CoreV1().Pods("default").Delete(ctx, "netprobe", metav1.DeleteOptions{})
}

var _ = os.Getenv
