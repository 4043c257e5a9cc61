package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daprperf/daprperf/kube"
)

// The networks every node's addresses lie in. They exist only inside the sandboxes.
const (
	// NodeCIDR holds the nodes' addresses: node i (from 1) is 10.250.0.<i>.
	NodeCIDR = "10.250.0.0/24"
	// ClusterPodCIDR holds every node's PodCIDR: node i's pods are in 10.244.<i-1>.0/24.
	ClusterPodCIDR = "10.244.0.0/16"
)

// DefaultNodes is how many nodes Start brings up when Config.Nodes is 0: one for the load (the
// testers) and one for what it loads, as Istio's benchmark places its client and server.
const DefaultNodes = 2

// maxNodes bounds Config.Nodes: node addresses and pod networks are numbered by one octet,
// and every node is a containerd, a kubelet and a kube-proxy on this machine's cores.
const maxNodes = 8

// NodeSpec is one node of the cluster.
type NodeSpec struct {
	// Name is the node's name and its kubernetes.io/hostname label.
	Name string
	// IP is its InternalIP, on its interface node0; the kubelet and kube-proxy bind to it.
	IP string
	// PodCIDR is its pods' network, on its bridge cni0 (host-local IPAM).
	PodCIDR string
	// Role is its kube.NodeRoleLabel: kube.NodeRoleLoad for the first node, which the testers
	// are placed on, kube.NodeRoleTarget for the others, where the apps they load go.
	Role string
	// CgroupRoot is its kubelet's cgroupRoot: "/" for the first node (its pods under
	// /kubepods, as a lone kubelet's), /<Name> for the others, so that no two kubelets manage
	// the same kubepods tree.
	CgroupRoot string
}

// nodeSpecs are the n nodes of a cluster. The first is NodeName at NodeIP with PodCIDR: it also
// runs the control plane and the cluster DNS. Node i (from 2) is daprperf-node-<i> at
// 10.250.0.<i> with pods in 10.244.<i-1>.0/24.
func nodeSpecs(n int) []NodeSpec {
	specs := []NodeSpec{{Name: NodeName, IP: NodeIP, PodCIDR: PodCIDR, Role: kube.NodeRoleLoad, CgroupRoot: "/"}}
	for i := 2; i <= n; i++ {
		name := NodeName + "-" + strconv.Itoa(i)
		specs = append(specs, NodeSpec{
			Name: name, IP: "10.250.0." + strconv.Itoa(i), PodCIDR: "10.244." + strconv.Itoa(i-1) + ".0/24",
			Role: kube.NodeRoleTarget, CgroupRoot: "/" + name,
		})
	}
	return specs
}

// node is one running node: its sandbox (a network and mount namespace of its own; the first
// node's also holds the control plane) and the folder of its state.
type node struct {
	NodeSpec
	sb  *sandbox
	dir string // <cluster dir>/<Name>: containerd's root, state and socket, the kubelet's root, pod logs, CNI
	// link is, for every node but the first, the name of its veth's end in the first node's
	// sandbox; its other end is this node's node0.
	link string
}

// Nodes are the cluster's nodes, the first one (NodeName) first.
func (c *Cluster) Nodes() []NodeSpec {
	out := make([]NodeSpec, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = n.NodeSpec
	}
	return out
}

// part is the name of a node's part in messages, PartErrors and Timings: "kubelet" on the
// first node, "kubelet on daprperf-node-2" on the others.
func (n *node) part(name string) string {
	if n.CgroupRoot == "/" {
		return name
	}
	return name + " on " + n.Name
}

// containerdSocket is the node's containerd's socket, in its folder.
func (n *node) containerdSocket() string {
	return filepath.Join(n.dir, "containerd", "containerd.sock")
}

// cgroupDir is the kubelet's cgroupRoot under a hierarchy's mount point r.
func (n *node) cgroupDir(r string) string { return filepath.Join(r, n.CgroupRoot) }

// nodeSandboxUp makes n's sandbox, its folders and its network: lo, node0 with the node's
// address, tmpfs over /run and /var/lib/cni in its private mount namespace, and the forward
// policy. The first node's node0 is one end of a veth pair whose other end (node1) stays
// beside it (this kernel has no dummy driver); every other node's node0 is the end of a veth
// pair whose other end is in the first node's sandbox, with routes both ways to the node's
// address and pods (linkNode).
func (c *Cluster) nodeSandboxUp(n *node) error {
	n.dir = filepath.Join(c.dir, n.Name)
	for _, d := range []string{"containerd", "cni/net.d", "cni/ipam", "kubelet", "pod-logs"} {
		if err := os.MkdirAll(filepath.Join(n.dir, d), 0o755); err != nil {
			return err
		}
	}
	for _, d := range []string{"/run", "/var/lib/cni"} { // mount points, on the host
		if _, err := os.Stat(d); errors.Is(err, os.ErrNotExist) {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			c.createdDirs = append(c.createdDirs, d)
		}
	}
	sb, err := newSandbox()
	if err != nil {
		return &PartError{Part: n.part("sandbox"), Err: err}
	}
	n.sb = sb
	steps := [][]string{
		{"mount", "-t", "tmpfs", "-o", "mode=755", "tmpfs", "/run"},
		{"mount", "-t", "tmpfs", "-o", "mode=755", "tmpfs", "/var/lib/cni"},
		{"ip", "link", "set", "lo", "up"},
	}
	first := c.nodes[0]
	if n == first {
		steps = append(steps,
			[]string{"ip", "link", "add", "name", "node0", "type", "veth", "peer", "name", "node1"},
			[]string{"ip", "addr", "add", n.IP + "/32", "dev", "node0"},
			[]string{"ip", "link", "set", "node0", "up"},
			[]string{"ip", "link", "set", "node1", "up"},
			// The node's own processes reach ClusterIPs through kube-proxy's rules.
			[]string{"ip", "route", "add", ServiceCIDR, "dev", "node0"},
		)
	}
	steps = append(steps, forwardPolicy()...)
	for _, st := range steps {
		if err := sb.run(st[0], st[1:]...); err != nil {
			return &PartError{Part: n.part("sandbox"), Err: err}
		}
	}
	if n != first {
		if err := c.linkNode(first, n); err != nil {
			return &PartError{Part: n.part("sandbox"), Err: err}
		}
	}
	return nil
}

// forwardPolicy are the iptables commands of every node's FORWARD chain: pods may talk to pods
// and nodes of the cluster (and nodes to pods and nodes, which a node between two others
// needs), nothing else; what is not allowed is rejected at once.
func forwardPolicy() [][]string {
	steps := [][]string{{"iptables", "-P", "FORWARD", "DROP"}}
	for _, src := range []string{ClusterPodCIDR, NodeCIDR} {
		for _, dst := range []string{ClusterPodCIDR, NodeCIDR} {
			steps = append(steps, []string{"iptables", "-A", "FORWARD", "-s", src, "-d", dst, "-j", "ACCEPT"})
		}
	}
	return append(steps, []string{"iptables", "-A", "FORWARD", "-j", "REJECT", "--reject-with", "icmp-net-unreachable"})
}

// linkNode connects node n to the first node: a veth pair made in first's sandbox whose end
// node0 moves into n's (so neither end ever is in the host's namespace), each end holding its
// node's address, with routes in first to n's address and pods, and in n to every other node
// and pod network through first (a star: the first node forwards between the others), and to
// ServiceCIDR for the node's own processes. ip_forward is on in both, as the bridge CNI plugin
// sets it once a pod starts; the sandboxes take it with them.
func (c *Cluster) linkNode(first, n *node) error {
	n.link = "veth-" + strings.TrimPrefix(n.Name, NodeName+"-") // "veth-2": under 15 bytes
	steps := []struct {
		sb   *sandbox
		argv []string
	}{
		{first.sb, []string{"ip", "link", "add", "name", n.link, "type", "veth", "peer", "name", "node0", "netns", strconv.Itoa(n.sb.pid())}},
		{first.sb, []string{"ip", "addr", "add", first.IP + "/32", "dev", n.link}},
		{first.sb, []string{"ip", "link", "set", n.link, "up"}},
		{first.sb, []string{"ip", "route", "add", n.IP + "/32", "dev", n.link, "src", first.IP}},
		{first.sb, []string{"ip", "route", "add", n.PodCIDR, "via", n.IP, "dev", n.link, "src", first.IP}},
		{first.sb, []string{"sysctl", "-qw", "net.ipv4.ip_forward=1"}},
		{n.sb, []string{"ip", "addr", "add", n.IP + "/32", "dev", "node0"}},
		{n.sb, []string{"ip", "link", "set", "node0", "up"}},
		{n.sb, []string{"ip", "route", "add", first.IP + "/32", "dev", "node0", "src", n.IP}},
		{n.sb, []string{"ip", "route", "add", NodeCIDR, "via", first.IP, "dev", "node0", "src", n.IP}},
		{n.sb, []string{"ip", "route", "add", ClusterPodCIDR, "via", first.IP, "dev", "node0", "src", n.IP}},
		{n.sb, []string{"ip", "route", "add", ServiceCIDR, "dev", "node0", "src", n.IP}},
		{n.sb, []string{"sysctl", "-qw", "net.ipv4.ip_forward=1"}},
	}
	for _, st := range steps {
		if err := st.sb.run(st.argv[0], st.argv[1:]...); err != nil {
			return fmt.Errorf("link %s to %s: %w", n.Name, first.Name, err)
		}
	}
	return nil
}

// makeCgroupRoot creates n's kubelet's cgroupRoot in every hierarchy (the kubelet refuses a
// cgroupRoot that is missing in one), with the cpuset of the hierarchy's root copied in: a new
// cpuset cgroup has no CPUs or memory nodes, and no process could join one below it. The
// first node's root is the hierarchies' own. Stop removes it with its kubepods.
func makeCgroupRoot(n *node) error {
	if n.CgroupRoot == "/" {
		return nil
	}
	for _, r := range cgroupRoots() {
		d := n.cgroupDir(r)
		if err := os.Mkdir(d, 0o755); err != nil {
			return &PartError{Part: n.part("cgroups"), Err: fmt.Errorf("make the kubelet's cgroupRoot: %w", err)}
		}
		for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
			v, err := os.ReadFile(filepath.Join(r, f))
			if err != nil {
				continue // not the cpuset hierarchy
			}
			if err := os.WriteFile(filepath.Join(d, f), v, 0o644); err != nil {
				return &PartError{Part: n.part("cgroups"), Err: fmt.Errorf("copy %s into %s: %w", f, d, err)}
			}
		}
	}
	return nil
}

// nodeReady is nil once node name is Ready.
func (c *Cluster) nodeReady(ctx context.Context, name string) error {
	n, err := c.cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for _, cond := range n.Status.Conditions {
		if cond.Type == "Ready" {
			if cond.Status == "True" {
				return nil
			}
			return fmt.Errorf("node %s Ready=%s: %s", name, cond.Status, cond.Message)
		}
	}
	return fmt.Errorf("node %s has no Ready condition yet", name)
}

// nodeOf is the running node named name.
func (c *Cluster) nodeOf(name string) (*node, error) {
	for _, n := range c.nodes {
		if n.Name == name {
			return n, nil
		}
	}
	return nil, fmt.Errorf("no node %q in this cluster", name)
}

// apiserverFor is the API server's address for the node's kubelet and kube-proxy: on the
// first node its loopback, beside it; on the others the first node's address.
func apiserverFor(n *node) string {
	if n.CgroupRoot == "/" {
		return apiserverInside
	}
	return net.JoinHostPort(NodeIP, "6443")
}

// stopNodes ends what Stop leaves of the nodes once their processes are stopped: any container
// or shim left (SIGKILL), each sandbox with its holder (the namespaces and their mounts,
// links, iptables rules and ip_forward go with it), the kubepods trees and the nodes' cgroup
// roots.
func (c *Cluster) stopNodes() []error {
	var errs []error
	for i := len(c.nodes) - 1; i >= 0; i-- {
		n := c.nodes[i]
		if n.sb != nil {
			errs = append(errs, killContainers(n.sb))
			errs = append(errs, n.sb.close())
		}
	}
	return append(errs, removeKubepodsCgroups())
}
