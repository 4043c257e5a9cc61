// Package node brings up and tears down a real one-node Kubernetes cluster on this machine,
// for the kube platform's end-to-end tests: containerd and runc (Debian's), etcd,
// kube-apiserver, kube-controller-manager and kube-scheduler (.kube-bin, make kube-bin), the
// kubelet and kube-proxy, metrics-server and Dapr's sentry, operator and sidecar injector
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
// The whole cluster runs inside one network namespace and one private mount namespace that
// Start makes (held by an unshare process): the node's address NodeIP on a dummy interface,
// the pods' bridge (PodCIDR), kube-proxy's and the kubelet's iptables rules, ip_forward, and
// every mount of containerd and the kubelet. The namespace has no route off the node, its
// FORWARD policy drops what is not pod-to-pod, and the cluster DNS answers only names under
// ClusterDomain and refuses every other name without forwarding it. Nothing of the cluster
// listens on a host address: the host reaches the API server only through a relay that listens
// on 127.0.0.1 and opens each connection from inside the namespace (port-forwards ride on those
// connections, as kubectl's do).
//
// # Teardown
//
// Stop stops every process by PID in reverse order (SIGTERM, then SIGKILL), kills what is left
// of the containers and containerd's shims, ends the namespaces with their holder, removes the
// kubelet's kubepods cgroups, writes back the host-wide sysctls the kubelet sets, and removes
// the temporary folder. Start installs a SIGINT/SIGTERM handler that does the same before
// exiting, and every process gets SIGKILL should the test process die (Pdeathsig). HostState
// snapshots what a test compares before and after.
package node
