package node

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/kube"
)

// TestNodeSpecs: the first node keeps the one-node cluster's name, address, pod network and
// cgroups; every other node has its own name, address in NodeCIDR, pod network in
// ClusterPodCIDR (none overlapping) and cgroupRoot, and the role target.
func TestNodeSpecs(t *testing.T) {
	specs := nodeSpecs(3)
	want := []NodeSpec{
		{Name: "daprperf-node", IP: "10.250.0.1", PodCIDR: "10.244.0.0/24", Role: kube.NodeRoleLoad, CgroupRoot: "/"},
		{Name: "daprperf-node-2", IP: "10.250.0.2", PodCIDR: "10.244.1.0/24", Role: kube.NodeRoleTarget, CgroupRoot: "/daprperf-node-2"},
		{Name: "daprperf-node-3", IP: "10.250.0.3", PodCIDR: "10.244.2.0/24", Role: kube.NodeRoleTarget, CgroupRoot: "/daprperf-node-3"},
	}
	if len(specs) != len(want) {
		t.Fatalf("%d nodes, want %d", len(specs), len(want))
	}
	nodes, pods := netip.MustParsePrefix(NodeCIDR), netip.MustParsePrefix(ClusterPodCIDR)
	for i, s := range specs {
		if s != want[i] {
			t.Errorf("node %d: %+v, want %+v", i+1, s, want[i])
		}
		if !nodes.Contains(netip.MustParseAddr(s.IP)) || !pods.Overlaps(netip.MustParsePrefix(s.PodCIDR)) {
			t.Errorf("node %s: %s or %s outside %s, %s", s.Name, s.IP, s.PodCIDR, NodeCIDR, ClusterPodCIDR)
		}
		if n := (&node{NodeSpec: s}); (n.part("kubelet") == "kubelet") != (i == 0) {
			t.Errorf("node %s: part name %q", s.Name, n.part("kubelet"))
		}
	}
	if len(nodeSpecs(1)) != 1 || nodeSpecs(1)[0] != want[0] {
		t.Errorf("nodeSpecs(1) = %+v, want the first node alone", nodeSpecs(1))
	}
}

// TestForwardPolicy: FORWARD drops by default, accepts only between the pod networks and the
// nodes, and ends by rejecting (so a refused destination fails at once).
func TestForwardPolicy(t *testing.T) {
	steps := forwardPolicy()
	var lines []string
	for _, s := range steps {
		lines = append(lines, strings.Join(s, " "))
	}
	got := strings.Join(lines, "\n")
	want := strings.Join([]string{
		"iptables -P FORWARD DROP",
		"iptables -A FORWARD -s 10.244.0.0/16 -d 10.244.0.0/16 -j ACCEPT",
		"iptables -A FORWARD -s 10.244.0.0/16 -d 10.250.0.0/24 -j ACCEPT",
		"iptables -A FORWARD -s 10.250.0.0/24 -d 10.244.0.0/16 -j ACCEPT",
		"iptables -A FORWARD -s 10.250.0.0/24 -d 10.250.0.0/24 -j ACCEPT",
		"iptables -A FORWARD -j REJECT --reject-with icmp-net-unreachable",
	}, "\n")
	if got != want {
		t.Errorf("FORWARD policy:\n%s\nwant:\n%s", got, want)
	}
}
