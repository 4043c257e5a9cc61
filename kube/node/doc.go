// Package node brings up and tears down a real Kubernetes cluster of two nodes (Config.Nodes)
// on this machine,
// for the kube platform's end-to-end tests: containerd and runc (Debian's), etcd,
// kube-apiserver, kube-controller-manager and kube-scheduler (.kube-bin, make kube-bin), a
// kubelet and a kube-proxy per node, metrics-server and Dapr's sentry, operator and sidecar injector
// (.kube-node, make kube-node), a cluster DNS of its own, and FROM-scratch images of the
// daprperf apps written as OCI tarballs and imported with ctr (no registry, no Docker).
//
//	c, err := node.Start(ctx, node.Config{Logf: t.Logf})
//	if err != nil {
//		t.Fatal(err) // a *PartError naming the part that did not come up; all stopped already
//	}
//	defer c.Stop()
//	// c.Kubeconfig: an admin kubeconfig; kube.New(kube.WithRESTConfig(c.RESTConfig()), ...)
//
// # The network stays on this machine
//
// Each node runs inside a network namespace and a private mount namespace of its own that
// Start makes (each held by an unshare process): the node's address on its interface node0,
// its pods' bridge (its PodCIDR), its kube-proxy's and kubelet's iptables rules, ip_forward,
// and every mount of its containerd and kubelet. The first node's namespaces also hold the
// control plane and the cluster DNS (NodeIP); every other node is joined to the first by a
// veth pair made inside the two namespaces, with routes between the nodes' addresses and pod
// networks (nodeSpecs). No namespace has a route off the cluster, each node's FORWARD policy
// drops what is not between pods and nodes, and the cluster DNS answers only names under
// ClusterDomain and refuses every other name without forwarding it. The kubelets label their
// nodes kube.NodeRoleLabel: the first load, the others target, for the kube platform's
// placements. Nothing of the cluster
// listens on a host address: the host reaches the API server only through a relay that listens
// on 127.0.0.1 and opens each connection from inside the namespace (port-forwards ride on those
// connections, as kubectl's do).
//
// # Teardown
//
// Stop stops every process by PID in reverse order (SIGTERM, then SIGKILL), kills what is left
// of the containers and containerd's shims, ends each node's namespaces with their holder,
// removes the kubelets' cgroups (kubepods, and the other nodes' cgroupRoots), writes back the host-wide sysctls the kubelet sets, and removes
// the temporary folder. Start installs a SIGINT/SIGTERM handler that does the same before
// exiting, and every process gets SIGKILL should the test process die (Pdeathsig). HostState
// snapshots what a test compares before and after.
package node
