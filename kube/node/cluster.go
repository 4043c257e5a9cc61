package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
)

// The cluster's addresses. All of them exist only inside the sandboxes' network namespaces.
const (
	// NodeIP is the first node's address (on node0, one end of a veth pair inside its
	// sandbox): the API server's advertise address, that kubelet's node IP and the cluster
	// DNS's address.
	NodeIP = "10.250.0.1"
	// PodCIDR is the first node's pods' network, on its bridge cni0; its first address is the
	// pods' gateway. The other nodes' are in nodeSpecs.
	PodCIDR = "10.244.0.0/24"
	// ServiceCIDR holds the Services' ClusterIPs (kube-proxy's iptables rules); the first is
	// the API server's kubernetes Service.
	ServiceCIDR = "10.96.0.0/16"
	// NodeName is the first node's name (its kubernetes.io/hostname label too); the others
	// are NodeName-2, NodeName-3, ...
	NodeName = "daprperf-node"
	// ImageRegistry and ImageTag name the app images the cluster imports:
	// daprperf.local/daprperf-<app>:e2e, for kube.Images{Registry: ImageRegistry, Tag: ImageTag}.
	ImageRegistry = "daprperf.local"
	ImageTag      = "e2e"
)

// Versions the parts are built at; Config's zero values mean these.
const (
	DefaultKubeVersion          = "v1.37.2"
	DefaultMetricsServerVersion = "v0.8.0"
	DefaultDaprVersion          = "v1.18.3"
)

// Config says where the built parts are. Zero fields take the defaults documented on each.
type Config struct {
	// Root is the repository root (default: found from the working directory).
	Root string
	// KubeBin holds kube-apiserver, etcd, kube-controller-manager and kube-scheduler
	// (default KUBEBUILDER_ASSETS, else <Root>/.kube-bin/<KubeVersion>: make kube-bin).
	KubeBin string
	// NodeBin holds what scripts/build-kube-node.sh builds (default <Root>/.kube-node: make
	// kube-node).
	NodeBin string
	// Daprd is the sidecar's binary (default <Root>/.daprd/<DaprVersion>/daprd: make daprd).
	Daprd                             string
	KubeVersion, MetricsServerVersion string
	// DaprVersion is the control plane's and the sidecar's release (default DAPR_VERSION,
	// which make exports, else DefaultDaprVersion), as make kube-node and make daprd build it.
	DaprVersion string
	// Keep leaves the cluster's work directory after teardown, for debugging
	// (DAPR_PERF_KUBE_NODE_KEEP, which the tests read).
	Keep bool
	// Logf prints progress; nil prints nothing.
	Logf func(format string, args ...any)
	// Timeout bounds the whole bring-up (default 5 min).
	Timeout time.Duration
	// Nodes is how many nodes to bring up, 1 to 8 (default DefaultNodes, 2). The first runs
	// the control plane and the cluster DNS too.
	Nodes int
}

// Timing is how long after Start began a part was up.
type Timing struct {
	Part  string
	After time.Duration
}

// Cluster is a running cluster. Make one with Start; Stop tears it down.
type Cluster struct {
	cfg   Config
	dir   string // temporary: configs, certificates, logs, each node's containerd and kubelet state
	start time.Time

	nodes   []*node  // the first holds the control plane
	sb      *sandbox // the first node's
	procs   []*proc  // in start order; stopped in reverse
	relay   *relay
	dns     *dnsServer
	restCfg *rest.Config
	cs      kubernetes.Interface

	// Kubeconfig is an admin kubeconfig for the host: its server is the relay on 127.0.0.1.
	Kubeconfig string
	// Timings of the bring-up, in order.
	Timings []Timing

	tarballs []string // image tarballs to import
	// backends are the in-cluster backends whose image writeImages wrote, for BackendsUp.
	backends    []builtBackend
	sysctls     map[string]string // the host's, restored at Stop
	createdDirs []string          // host directories made for mount points, removed at Stop
	sigc        chan os.Signal
	onSignal    []func() // run by the signal handler before Stop
	onSignalMu  sync.Mutex
	stopOnce    sync.Once
	stopErr     error
}

// OnSignal registers f to run when SIGINT or SIGTERM arrives, before the cluster is torn down
// and the process exits: a test stops what it started against the cluster there (a child
// process group, say).
func (c *Cluster) OnSignal(f func()) {
	c.onSignalMu.Lock()
	defer c.onSignalMu.Unlock()
	c.onSignal = append(c.onSignal, f)
}

// RESTConfig is the admin configuration for the cluster, through the relay.
func (c *Cluster) RESTConfig() *rest.Config { return rest.CopyConfig(c.restCfg) }

// Clientset is an admin client for the cluster.
func (c *Cluster) Clientset() kubernetes.Interface { return c.cs }

// Dir is the cluster's temporary folder: the control plane's logs <Dir>/<part>.log, each
// node's <Dir>/<node>/<part>.log (containerd, kubelet, kube-proxy).
func (c *Cluster) Dir() string { return c.dir }

// DNSRefused is how many queries the cluster DNS refused because the name was not a cluster name.
func (c *Cluster) DNSRefused() int64 { return c.dns.refused.Load() }

func (c *Cluster) logf(format string, args ...any) {
	if c.cfg.Logf != nil {
		c.cfg.Logf("kube node: %6.1fs "+format, append([]any{time.Since(c.start).Seconds()}, args...)...)
	}
}

func (c *Cluster) mark(part string) {
	c.Timings = append(c.Timings, Timing{Part: part, After: time.Since(c.start)})
	c.logf("%s up", part)
}

// Start brings up a cluster of Config.Nodes nodes, each in a sandbox of its own (see sandbox
// and node) with its containerd, kubelet and kube-proxy; etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler and the cluster DNS in the first node's sandbox; metrics-server, and Dapr's CRDs then its control plane (sentry, operator,
// sidecar injector) from the manifests in manifests/, and the images of the daprperf apps.
// It returns once every node is Ready, every Deployment available and the metrics API answers.
// A part that does not come up gives a *PartError naming it, after everything started so far
// has been stopped. SIGINT and SIGTERM during the cluster's life stop it and then exit the
// process with status 130. Needs root, and the binaries Config names.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	c := &Cluster{cfg: cfg, start: time.Now()}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	c.sigc = make(chan os.Signal, 1)
	signal.Notify(c.sigc, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-c.sigc; ok {
			fmt.Fprintln(os.Stderr, "kube node: signal: tearing the cluster down")
			c.onSignalMu.Lock()
			for _, f := range c.onSignal {
				f()
			}
			c.onSignalMu.Unlock()
			if err := c.Stop(); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
			os.Exit(130)
		}
	}()
	if err := c.up(ctx); err != nil {
		return nil, errors.Join(err, c.Stop())
	}
	return c, nil
}

func (cfg *Config) fill() error {
	if os.Geteuid() != 0 {
		return errors.New("kube node: needs root (namespaces, mounts, containerd)")
	}
	if cfg.KubeVersion == "" {
		cfg.KubeVersion = DefaultKubeVersion
	}
	if cfg.MetricsServerVersion == "" {
		cfg.MetricsServerVersion = DefaultMetricsServerVersion
	}
	if cfg.DaprVersion == "" {
		cfg.DaprVersion = os.Getenv("DAPR_VERSION")
	}
	if cfg.DaprVersion == "" {
		cfg.DaprVersion = DefaultDaprVersion
	}
	if err := checkDaprManifests(cfg.DaprVersion); err != nil {
		return err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Minute
	}
	if cfg.Nodes == 0 {
		cfg.Nodes = DefaultNodes
	}
	if cfg.Nodes < 1 || cfg.Nodes > maxNodes {
		return fmt.Errorf("kube node: Config.Nodes %d: want 1 to %d", cfg.Nodes, maxNodes)
	}
	if cfg.Root == "" {
		root, err := repoRoot()
		if err != nil {
			return err
		}
		cfg.Root = root
	}
	if cfg.KubeBin == "" {
		cfg.KubeBin = os.Getenv("KUBEBUILDER_ASSETS")
	}
	if cfg.KubeBin == "" {
		cfg.KubeBin = filepath.Join(cfg.Root, ".kube-bin", cfg.KubeVersion)
	}
	if cfg.NodeBin == "" {
		cfg.NodeBin = filepath.Join(cfg.Root, ".kube-node")
	}
	if cfg.Daprd == "" {
		cfg.Daprd = filepath.Join(cfg.Root, ".daprd", cfg.DaprVersion, "daprd")
	}
	var missing []string
	for _, p := range cfg.binaries() {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
		}
	}
	for _, t := range hostTools {
		if _, err := exec.LookPath(t); err != nil {
			missing = append(missing, t+" (PATH)")
		}
	}
	if _, err := os.Stat(filepath.Join(cniBinDir, "bridge")); err != nil {
		missing = append(missing, cniBinDir+"/bridge")
	}
	if len(missing) > 0 {
		return &MissingError{Missing: missing}
	}
	return nil
}

// tempPrefix starts the name of every cluster's temporary folder.
const tempPrefix = "daprperf-node-"

// cniBinDir is where Debian's containernetworking-plugins puts the CNI plugins.
const cniBinDir = "/usr/lib/cni"

// hostTools are the commands bring-up runs (Debian: containerd, runc, iptables, util-linux, iproute2).
var hostTools = []string{"containerd", "containerd-shim-runc-v2", "ctr", "runc", "iptables", "iptables-save", "nsenter", "unshare", "ip", "mount"}

// MissingError lists the binaries and tools bring-up needs that are not there.
type MissingError struct{ Missing []string }

func (e *MissingError) Error() string {
	return "kube node: missing " + strings.Join(e.Missing, ", ") +
		" (make kube-bin kube-node daprd builds the binaries; apt-get install containerd runc containernetworking-plugins iptables conntrack the tools)"
}

func (cfg Config) kubeBin(name string) string { return filepath.Join(cfg.KubeBin, name) }
func (cfg Config) nodeBin(name string) string {
	return filepath.Join(cfg.NodeBin, "kube-"+cfg.KubeVersion, name)
}
func (cfg Config) daprBin(name string) string {
	return filepath.Join(cfg.NodeBin, "dapr-"+cfg.DaprVersion, name)
}

// daprdSibling is a control-plane binary make daprd builds beside Daprd (placement, scheduler).
func (cfg Config) daprdSibling(name string) string {
	return filepath.Join(filepath.Dir(cfg.Daprd), name)
}
func (cfg Config) metricsServer() string {
	return filepath.Join(cfg.NodeBin, "metrics-server-"+cfg.MetricsServerVersion, "metrics-server")
}

func (cfg Config) binaries() []string {
	return []string{
		cfg.kubeBin("kube-apiserver"), cfg.kubeBin("etcd"), cfg.kubeBin("kube-controller-manager"), cfg.kubeBin("kube-scheduler"),
		cfg.nodeBin("kubelet"), cfg.nodeBin("kube-proxy"), cfg.metricsServer(),
		cfg.daprBin("injector"), cfg.daprBin("sentry"), cfg.daprBin("operator"), cfg.Daprd,
		cfg.daprdSibling("placement"), cfg.daprdSibling("scheduler"),
	}
}

// up is Start's work; on error the caller stops what is running.
func (c *Cluster) up(ctx context.Context) error {
	if err := checkNoLeftovers(); err != nil {
		return err
	}
	var err error
	if c.sysctls, err = readSysctls(kubeletSysctls); err != nil {
		return err
	}
	if c.dir, err = os.MkdirTemp("", tempPrefix); err != nil {
		return err
	}
	for _, d := range []string{"pki", "etcd", "images"} {
		if err := os.MkdirAll(filepath.Join(c.dir, d), 0o755); err != nil {
			return err
		}
	}
	images := make(chan error, 1)
	go func() { images <- c.writeImages(ctx) }() // go build and tar while the sandbox comes up

	for _, s := range nodeSpecs(c.cfg.Nodes) {
		c.nodes = append(c.nodes, &node{NodeSpec: s})
	}
	for _, n := range c.nodes {
		if err := c.nodeSandboxUp(n); err != nil {
			return err
		}
		c.sb = c.nodes[0].sb
		c.mark(n.part("sandbox"))
	}
	pki, err := c.writePKI()
	if err != nil {
		return err
	}
	for _, n := range c.nodes {
		if err := c.containerdUp(n); err != nil {
			return err
		}
		c.mark(n.part("containerd"))
	}
	if err := <-images; err != nil {
		return err
	}
	if err := c.importImages(); err != nil {
		return err
	}
	c.mark("images")
	if err := c.controlPlaneUp(ctx, pki); err != nil {
		return err
	}
	if err := c.nodesUp(ctx, pki); err != nil {
		return err
	}
	if c.dns, err = startDNS(c.sb, net.JoinHostPort(NodeIP, "53"), c.cs); err != nil {
		return err
	}
	c.mark("cluster DNS")
	if err := c.addonsUp(ctx, pki); err != nil {
		return err
	}
	c.logf("cluster ready")
	return nil
}

// startPart starts a process of the control plane, in the first node's sandbox, logging to
// <dir>/<name>.log, and records it for Stop.
func (c *Cluster) startPart(name, bin string, args ...string) (*proc, error) {
	p, err := c.sb.start(filepath.Join(c.dir, name+".log"), name, bin, args...)
	if err != nil {
		return nil, err
	}
	c.procs = append(c.procs, p)
	return p, nil
}

// startNodePart starts a process of node n (containerd, kubelet, kube-proxy) in n's sandbox,
// logging to <n.dir>/<name>.log, and records it for Stop.
func (c *Cluster) startNodePart(n *node, name, bin string, args ...string) (*proc, error) {
	p, err := n.sb.start(filepath.Join(n.dir, name+".log"), n.part(name), bin, args...)
	if err != nil {
		return nil, err
	}
	c.procs = append(c.procs, p)
	return p, nil
}

// httpGet is a GET of url from inside the first node's sandbox (the control plane's).
func (c *Cluster) httpGet(url string) error { return c.sb.httpGet(url) }

// httpGet is a GET of url from inside s, skipping TLS verification (health checks of parts
// that serve self-signed certificates), that wants a 200.
func (s *sandbox) httpGet(url string) error {
	tr := &http.Transport{
		DialContext:     func(ctx context.Context, _, addr string) (net.Conn, error) { return s.dial(ctx, addr) },
		TLSClientConfig: insecureTLS(),
	}
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr, Timeout: 2 * time.Second}
	resp, err := cl.Get(url)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}

// clients makes the admin clients through the relay.
func (c *Cluster) clients(pki *pkiFiles) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 50, 100
	c.restCfg = cfg
	c.cs, err = kubernetes.NewForConfig(cfg)
	return err
}

// metricsAnswer is nil once the metrics API serves the node's and kube-system's pods' usage.
func (c *Cluster) metricsAnswer(ctx context.Context) error {
	mc, err := metricsclient.NewForConfig(c.restCfg)
	if err != nil {
		return err
	}
	nm, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	if len(nm.Items) == 0 {
		return errors.New("metrics API: no node metrics yet")
	}
	pm, err := mc.MetricsV1beta1().PodMetricses("kube-system").List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	if len(pm.Items) == 0 {
		return errors.New("metrics API: no pod metrics yet")
	}
	return nil
}

// Stop tears the cluster down; it is safe to call more than once and after a failed Start.
// In order: the DNS and the relay; every process in reverse start order by PID (SIGTERM, then
// SIGKILL after a grace period; before a node's containerd, its containers); any container or
// shim process still alive (SIGKILL, found by the kubepods cgroups and by each sandbox's mount
// namespace); each node's holder, which takes its namespaces and their mounts, bridge, links,
// iptables rules and ip_forward with it; the kubepods cgroups and the nodes' cgroup roots; the host sysctls the kubelet set; the folders made for mount points; the
// temporary folder. The error lists what could not be undone.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() { c.stopErr = c.stop() })
	return c.stopErr
}

func (c *Cluster) stop() error {
	t0 := time.Now()
	if c.sigc != nil {
		signal.Stop(c.sigc)
		close(c.sigc)
	}
	var errs []error
	if c.dns != nil {
		c.dns.close()
	}
	if c.relay != nil {
		c.relay.close()
	}
	for i := len(c.procs) - 1; i >= 0; i-- {
		p := c.procs[i]
		grace := 5 * time.Second
		if strings.HasPrefix(p.name, "containerd") {
			// Containers first: containerd's shims outlive it otherwise.
			errs = append(errs, killContainers(p.sb))
		}
		if err := p.stop(grace); err != nil {
			errs = append(errs, err)
		}
		if p.killed {
			c.logf("%s (pid %d) outlived SIGTERM by %s: killed", p.name, p.cmd.Process.Pid, grace)
		}
	}
	errs = append(errs, c.stopNodes()...)
	if c.sysctls != nil {
		errs = append(errs, writeSysctls(c.sysctls))
	}
	for i := len(c.createdDirs) - 1; i >= 0; i-- {
		errs = append(errs, os.Remove(c.createdDirs[i]))
	}
	if c.dir != "" && !c.cfg.Keep {
		errs = append(errs, os.RemoveAll(c.dir))
	}
	if c.cfg.Logf != nil {
		c.cfg.Logf("kube node: teardown took %.1fs", time.Since(t0).Seconds())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("kube node: teardown: %w", err)
	}
	return nil
}
