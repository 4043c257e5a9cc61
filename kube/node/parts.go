package node

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/daprperf/daprperf/kube"
	"github.com/daprperf/daprperf/perf"
)

// pkiFiles are the paths of the cluster's certificates and keys.
type pkiFiles struct {
	ca                       string
	apiserverCrt, apiserverK string
	kubeletClientCrt         string // the API server's client certificate towards the kubelet
	kubeletClientK           string
	proxyClientCrt           string // the API server's front-proxy client certificate (aggregation)
	proxyClientK             string
	saKey                    string
	// kubeconfigs inside the sandboxes, by user; a node's kubelet's and kube-proxy's are
	// "<node>/kubelet" and "<node>/kube-proxy".
	kubeconfigs map[string]string
	// serving are each node's kubelet's serving certificate and key, by node name.
	serving map[string][2]string
}

// apiserverInside is the API server's address inside the sandbox.
var apiserverInside = net.JoinHostPort("127.0.0.1", "6443")

// writePKI makes the CA, every certificate, the service-account key, the in-sandbox
// kubeconfigs of the control plane and of each node's kubelet (user system:node:<node>, as the
// Node authorizer wants) and kube-proxy, each node's kubelet serving certificate (its name and
// address), and the host's admin kubeconfig through a relay to the API server.
func (c *Cluster) writePKI() (*pkiFiles, error) {
	dir := filepath.Join(c.dir, "pki")
	ca, err := newCA("daprperf-node-ca")
	if err != nil {
		return nil, err
	}
	f := &pkiFiles{ca: filepath.Join(dir, "ca.crt"), saKey: filepath.Join(dir, "sa.key"), kubeconfigs: map[string]string{}, serving: map[string][2]string{}}
	if err := os.WriteFile(f.ca, ca.pem, 0o600); err != nil {
		return nil, err
	}
	if err := serviceAccountKey(f.saKey); err != nil {
		return nil, err
	}
	issue := func(name, cn string, groups []string, server bool, sans ...string) (string, string, error) {
		l, err := ca.issue(cn, groups, server, sans...)
		if err != nil {
			return "", "", err
		}
		return l.write(dir, name)
	}
	if f.apiserverCrt, f.apiserverK, err = issue("apiserver", "kube-apiserver", nil, true,
		"127.0.0.1", NodeIP, "10.96.0.1", "localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
		"kubernetes.default.svc."+ClusterDomain); err != nil {
		return nil, err
	}
	if f.kubeletClientCrt, f.kubeletClientK, err = issue("apiserver-kubelet-client", "kube-apiserver-kubelet-client", []string{"system:masters"}, false); err != nil {
		return nil, err
	}
	for _, n := range c.nodes {
		crt, key, err := issue(n.Name+"-kubelet-serving", n.Name, nil, true, n.IP, n.Name)
		if err != nil {
			return nil, err
		}
		f.serving[n.Name] = [2]string{crt, key}
	}
	if f.proxyClientCrt, f.proxyClientK, err = issue("front-proxy-client", "front-proxy-client", nil, false); err != nil {
		return nil, err
	}
	type user struct {
		cn     string
		groups []string
		server string // the API server's address where the user runs
	}
	users := map[string]user{
		"controller-manager": {"system:kube-controller-manager", nil, apiserverInside},
		"scheduler":          {"system:kube-scheduler", nil, apiserverInside},
		"admin":              {"daprperf-admin", []string{"system:masters"}, apiserverInside},
	}
	for _, n := range c.nodes {
		users[n.Name+"/kubelet"] = user{"system:node:" + n.Name, []string{"system:nodes"}, apiserverFor(n)}
		users[n.Name+"/kube-proxy"] = user{"system:kube-proxy", nil, apiserverFor(n)}
	}
	for name, u := range users {
		file := strings.ReplaceAll(name, "/", "-")
		crt, key, err := issue(file, u.cn, u.groups, false)
		if err != nil {
			return nil, err
		}
		server := "https://" + u.server
		path := filepath.Join(dir, file+".kubeconfig")
		if name == "admin" {
			// The host's: through the relay, which carries each connection into the sandbox.
			if c.relay, err = c.sb.relay(apiserverInside); err != nil {
				return nil, err
			}
			server = "https://" + c.relay.addr()
			path = filepath.Join(c.dir, "kubeconfig")
			c.Kubeconfig = path
		}
		if err := writeKubeconfig(path, server, f.ca, crt, key); err != nil {
			return nil, err
		}
		f.kubeconfigs[name] = path
	}
	return f, c.clients(f)
}

func writeKubeconfig(path, server, ca, crt, key string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["node"] = &clientcmdapi.Cluster{Server: server, CertificateAuthority: ca}
	cfg.AuthInfos["user"] = &clientcmdapi.AuthInfo{ClientCertificate: crt, ClientKey: key}
	cfg.Contexts["node"] = &clientcmdapi.Context{Cluster: "node", AuthInfo: "user"}
	cfg.CurrentContext = "node"
	return clientcmd.WriteToFile(*cfg, path)
}

func insecureTLS() *tls.Config { return &tls.Config{InsecureSkipVerify: true} } //nolint:gosec // health checks only

// containerdUp writes node n's containerd's configuration and starts it in n's sandbox: root,
// state and socket under n's folder, the bridge CNI plugin on n's PodCIDR, the CRI plugin with the pause image of this cluster, cgroupfs, the overlayfs
// snapshotter, and restrict_oom_score_adj (without CAP_SYS_RESOURCE runc cannot lower
// oom_score_adj).
func (c *Cluster) containerdUp(n *node) error {
	d := filepath.Join(n.dir, "containerd")
	conf := fmt.Sprintf(`version = 2
root = %q
state = %q
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]
[grpc]
  address = %q
[ttrpc]
  address = %q
[metrics]
  address = ""
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %q
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = %q
    conf_dir = %q
[plugins."io.containerd.internal.v1.opt"]
  path = %q
`, filepath.Join(d, "root"), filepath.Join(d, "state"), n.containerdSocket(), n.containerdSocket()+".ttrpc",
		pauseImage, cniBinDir, filepath.Join(n.dir, "cni", "net.d"), filepath.Join(d, "opt"))
	if err := os.WriteFile(filepath.Join(d, "config.toml"), []byte(conf), 0o644); err != nil {
		return err
	}
	cni := fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": "daprperf",
  "plugins": [{
    "type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
    "ipam": {"type": "host-local", "ranges": [[{"subnet": %q}]], "routes": [{"dst": "0.0.0.0/0"}], "dataDir": %q}
  }]
}`, n.PodCIDR, filepath.Join(n.dir, "cni", "ipam"))
	if err := os.WriteFile(filepath.Join(n.dir, "cni", "net.d", "10-daprperf.conflist"), []byte(cni), 0o644); err != nil {
		return err
	}
	if err := makeCgroupRoot(n); err != nil {
		return err
	}
	p, err := c.startNodePart(n, "containerd", "containerd", "--config", filepath.Join(d, "config.toml"))
	if err != nil {
		return err
	}
	return waitFor(n.part("containerd"), p, 30*time.Second, func() error {
		return n.sb.run("ctr", "--address", n.containerdSocket(), "version")
	})
}

// Images the cluster imports. metrics-server's carries the cluster's tag, not its version, so
// that manifests/metrics-server.yaml names it whatever METRICS_SERVER_VERSION built it.
var (
	pauseImage         = ImageRegistry + "/pause:" + ImageTag
	metricsServerImage = ImageRegistry + "/metrics-server:" + ImageTag
)

// imageApps are this repository's apps the cluster runs, each built from ./apps/<name>/cmd/<name>
// with the node's probe (nodeprobePkg), all with CGO_ENABLED=0 and imageBuildFlags. .ci/run's
// background job compiles the same packages with the same flags, so that a cold CI run finds them
// in Go's build cache here; TestCIRunPrebuildsTheImageBinaries keeps the two in step.
var (
	imageApps       = []string{"tester", "httpapp", "grpcapp", "subscriber", "actorapp", "jobapp", "workflowapp"}
	imageBuildFlags = []string{"-trimpath", "-ldflags", "-s -w"}
)

const nodeprobePkg = "./kube/node/nodeprobe"

// imageSpec is one image to build: Go packages of this repository (built into the cache) or
// binaries already built, and where each goes.
type imageSpec struct {
	image Image
	build map[string]string // ImageFile.Source -> Go package of this repository to build there
}

// writeImages builds the repository's binaries (the apps, the pause/probe binary) with go
// build and writes every image tarball into <dir>/images.
func (c *Cluster) writeImages(ctx context.Context) error {
	bin := filepath.Join(c.dir, "images", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	daprTag := strings.TrimPrefix(c.cfg.DaprVersion, "v")
	user := "65532:65532"
	var specs []imageSpec
	for _, app := range imageApps {
		src := filepath.Join(bin, app)
		specs = append(specs, imageSpec{
			image: Image{Name: ImageRegistry + "/daprperf-" + app + ":" + ImageTag, Files: []ImageFile{{Path: "/app", Source: src}}, Entrypoint: []string{"/app"}, User: user},
			build: map[string]string{src: "./apps/" + app + "/cmd/" + app},
		})
	}
	probe := filepath.Join(bin, "nodeprobe")
	specs = append(specs,
		imageSpec{
			image: Image{Name: pauseImage, Files: []ImageFile{{Path: "/nodeprobe", Source: probe}}, Entrypoint: []string{"/nodeprobe"}, User: user},
			build: map[string]string{probe: nodeprobePkg},
		},
		imageSpec{image: Image{Name: ImageRegistry + "/daprd:" + daprTag, Files: []ImageFile{{Path: "/daprd", Source: c.cfg.Daprd}}, Entrypoint: []string{"/daprd"}, User: user}},
		// Dapr's chart names one image per part: <registry>/<part>:<tag>, run as /<part>.
		imageSpec{image: Image{Name: ImageRegistry + "/injector:" + daprTag, Files: []ImageFile{{Path: "/injector", Source: c.cfg.daprBin("injector")}}, Entrypoint: []string{"/injector"}, User: user}},
		imageSpec{image: Image{Name: ImageRegistry + "/sentry:" + daprTag, Files: []ImageFile{{Path: "/sentry", Source: c.cfg.daprBin("sentry")}}, Entrypoint: []string{"/sentry"}, User: user}},
		imageSpec{image: Image{Name: ImageRegistry + "/operator:" + daprTag, Files: []ImageFile{{Path: "/operator", Source: c.cfg.daprBin("operator")}}, Entrypoint: []string{"/operator"}, User: user}},
		// placement and the scheduler are the ones make daprd builds beside daprd (the local
		// platform's): the scheduler's module pin is scripts/build-daprd.sh's.
		imageSpec{image: Image{Name: ImageRegistry + "/placement:" + daprTag, Files: []ImageFile{{Path: "/placement", Source: c.cfg.daprdSibling("placement")}}, Entrypoint: []string{"/placement"}, User: user}},
		imageSpec{image: Image{Name: ImageRegistry + "/scheduler:" + daprTag, Files: []ImageFile{{Path: "/scheduler", Source: c.cfg.daprdSibling("scheduler")}}, Entrypoint: []string{"/scheduler"}, User: user}},
		imageSpec{image: Image{Name: metricsServerImage, Files: []ImageFile{{Path: "/metrics-server", Source: c.cfg.metricsServer()}}, Entrypoint: []string{"/metrics-server"}, User: user}},
	)
	// Debian's stores and brokers for BackendsUp, each when installed (make test-kube installs
	// redis-server).
	backendSpecs, err := c.backendImages(ctx)
	if err != nil {
		return &PartError{Part: "images", Err: err}
	}
	specs = append(specs, backendSpecs...)
	// One go build for every package of this repository: it compiles them in parallel.
	var pkgs []string
	for _, s := range specs {
		for _, pkg := range s.build {
			pkgs = append(pkgs, pkg)
		}
	}
	args := append(append([]string{"build"}, imageBuildFlags...), "-o", bin+"/")
	cmd := exec.CommandContext(ctx, "go", append(args, pkgs...)...)
	cmd.Dir = c.cfg.Root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return &PartError{Part: "images", Err: fmt.Errorf("go build %v: %w: %s", pkgs, err, out)}
	}
	cache := filepath.Join(c.cfg.NodeBin, "images")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	for _, s := range specs {
		tarball, err := cachedImage(cache, s.image)
		if err != nil {
			return &PartError{Part: "images", Err: err}
		}
		c.tarballs = append(c.tarballs, tarball)
	}
	return nil
}

// cachedImage is the tarball of im in cache, written unless there already: its file name
// carries the SHA-256 of im's description and files, so a changed binary gives a new tarball
// (and the older ones of the same image are removed).
func cachedImage(cache string, im Image) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%q\x00%s\x00", im.Name, im.Entrypoint, im.User)
	if len(im.Env) > 0 { // only then: the names of images without one stay as they were
		fmt.Fprintf(h, "env\x00%q\x00", im.Env)
	}
	for _, f := range im.Files {
		fmt.Fprintf(h, "%s\x00%o\x00", f.Path, f.Mode)
		if f.Source == "" {
			fmt.Fprintf(h, "data\x00%q\x00", f.Data)
			continue
		}
		src, err := os.Open(f.Source)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, src)
		src.Close()
		if err != nil {
			return "", err
		}
	}
	base := strings.NewReplacer("/", "_", ":", "_").Replace(im.Name)
	path := filepath.Join(cache, base+"-"+hex.EncodeToString(h.Sum(nil))[:16]+".tar")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	old, _ := filepath.Glob(filepath.Join(cache, base+"-*.tar"))
	for _, o := range old {
		os.Remove(o)
	}
	return path, WriteImageTarball(path, im)
}

// importImages imports every tarball into each node's containerd's k8s.io namespace, where
// the CRI plugin (the kubelet) finds them; the nodes import at the same time.
func (c *Cluster) importImages() error {
	errs := make([]error, len(c.nodes))
	var wg sync.WaitGroup
	for i, n := range c.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, t := range c.tarballs {
				if err := n.sb.run("ctr", "--address", n.containerdSocket(), "-n", "k8s.io", "images", "import", "--no-unpack=false", t); err != nil {
					errs[i] = &PartError{Part: n.part("images"), Err: err}
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// controlPlaneUp starts etcd, kube-apiserver, kube-controller-manager and kube-scheduler.
func (c *Cluster) controlPlaneUp(ctx context.Context, f *pkiFiles) error {
	etcd, err := c.startPart("etcd", c.cfg.kubeBin("etcd"),
		"--data-dir", filepath.Join(c.dir, "etcd"),
		"--listen-client-urls", "http://127.0.0.1:2379", "--advertise-client-urls", "http://127.0.0.1:2379",
		"--listen-peer-urls", "http://127.0.0.1:2380", "--initial-advertise-peer-urls", "http://127.0.0.1:2380",
		"--initial-cluster", "default=http://127.0.0.1:2380", "--listen-metrics-urls", "http://127.0.0.1:2381",
		"--unsafe-no-fsync", "--log-level", "warn")
	if err != nil {
		return err
	}
	if err := waitFor("etcd", etcd, 30*time.Second, func() error { return c.httpGet("http://127.0.0.1:2381/health") }); err != nil {
		return err
	}
	c.mark("etcd")
	api, err := c.startPart("kube-apiserver", c.cfg.kubeBin("kube-apiserver"),
		"--etcd-servers", "http://127.0.0.1:2379",
		"--bind-address", "0.0.0.0", "--secure-port", "6443", "--advertise-address", NodeIP,
		"--tls-cert-file", f.apiserverCrt, "--tls-private-key-file", f.apiserverK,
		"--client-ca-file", f.ca,
		"--service-account-issuer", "https://kubernetes.default.svc."+ClusterDomain,
		"--service-account-key-file", f.saKey, "--service-account-signing-key-file", f.saKey,
		"--service-cluster-ip-range", ServiceCIDR,
		"--authorization-mode", "Node,RBAC",
		"--kubelet-client-certificate", f.kubeletClientCrt, "--kubelet-client-key", f.kubeletClientK,
		// The node's address, never a name: the name would go to the machine's resolver.
		"--kubelet-preferred-address-types", "InternalIP",
		// Webhooks and aggregated APIs (the injector, metrics-server) by endpoint, not ClusterIP.
		"--enable-aggregator-routing=true",
		"--requestheader-client-ca-file", f.ca, "--requestheader-allowed-names", "front-proxy-client",
		"--requestheader-username-headers", "X-Remote-User", "--requestheader-group-headers", "X-Remote-Group",
		"--requestheader-extra-headers-prefix", "X-Remote-Extra-",
		"--proxy-client-cert-file", f.proxyClientCrt, "--proxy-client-key-file", f.proxyClientK,
		"--allow-privileged=true", "--profiling=false", "--v=1")
	if err != nil {
		return err
	}
	if err := waitFor("kube-apiserver", api, 90*time.Second, func() error {
		_, err := c.cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err
	}); err != nil {
		return err
	}
	c.mark("kube-apiserver")
	cm, err := c.startPart("kube-controller-manager", c.cfg.kubeBin("kube-controller-manager"),
		"--kubeconfig", f.kubeconfigs["controller-manager"],
		"--authentication-kubeconfig", f.kubeconfigs["controller-manager"], "--authorization-kubeconfig", f.kubeconfigs["controller-manager"],
		"--service-account-private-key-file", f.saKey, "--root-ca-file", f.ca,
		"--use-service-account-credentials=true", "--leader-elect=false",
		"--bind-address", "127.0.0.1", "--secure-port", "10257",
		"--controllers", "*,-nodeipam", "--v=1")
	if err != nil {
		return err
	}
	sched, err := c.startPart("kube-scheduler", c.cfg.kubeBin("kube-scheduler"),
		"--kubeconfig", f.kubeconfigs["scheduler"],
		"--authentication-kubeconfig", f.kubeconfigs["scheduler"], "--authorization-kubeconfig", f.kubeconfigs["scheduler"],
		"--leader-elect=false", "--bind-address", "127.0.0.1", "--secure-port", "10259", "--v=1")
	if err != nil {
		return err
	}
	if err := waitFor("kube-controller-manager", cm, 60*time.Second, func() error { return c.httpGet("https://127.0.0.1:10257/healthz") }); err != nil {
		return err
	}
	if err := waitFor("kube-scheduler", sched, 60*time.Second, func() error { return c.httpGet("https://127.0.0.1:10259/healthz") }); err != nil {
		return err
	}
	c.mark("control plane")
	return nil
}

// nodesUp starts every node's kubelet and kube-proxy and waits until each node is Ready and
// its kube-proxy healthy.
func (c *Cluster) nodesUp(ctx context.Context, f *pkiFiles) error {
	type started struct{ kubelet, proxy *proc }
	procs := make([]started, len(c.nodes))
	for i, n := range c.nodes {
		var err error
		if procs[i].kubelet, procs[i].proxy, err = c.nodeUp(n, f); err != nil {
			return err
		}
	}
	for i, n := range c.nodes {
		if err := waitFor(n.part("kubelet"), procs[i].kubelet, 90*time.Second, func() error { return c.nodeReady(ctx, n.Name) }); err != nil {
			return err
		}
		c.mark(n.part("node Ready"))
		if err := waitFor(n.part("kube-proxy"), procs[i].proxy, 30*time.Second, func() error {
			return n.sb.httpGet("http://127.0.0.1:10256/healthz")
		}); err != nil {
			return err
		}
		c.mark(n.part("kube-proxy"))
	}
	return nil
}

// nodeUp writes node n's kubelet's and kube-proxy's configurations and starts both in n's
// sandbox: the kubelet on n's address with its serving certificate, the cluster DNS on the first
// node as its pods' only resolver, cgroupRoot n.CgroupRoot, its containerd, its folder, and its
// role as the node label kube.NodeRoleLabel.
func (c *Cluster) nodeUp(n *node, f *pkiFiles) (kubelet, proxy *proc, err error) {
	resolv := filepath.Join(n.dir, "resolv.conf")
	// Pods with dnsPolicy Default get this: only the cluster DNS, never the machine's resolver.
	if err := os.WriteFile(resolv, []byte("nameserver "+NodeIP+"\n"), 0o644); err != nil {
		return nil, nil, err
	}
	kcfg := fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: %s
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: %s
tlsPrivateKeyFile: %s
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %s}
authorization:
  mode: Webhook
cgroupDriver: cgroupfs
cgroupRoot: %s
failCgroupV1: false
failSwapOn: false
clusterDNS: [%s]
clusterDomain: %s
resolvConf: %s
containerRuntimeEndpoint: unix://%s
podLogsDir: %s
evictionHard: {memory.available: "1Mi"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
localStorageCapacityIsolation: false
serializeImagePulls: false
rotateCertificates: false
serverTLSBootstrap: false
protectKernelDefaults: false
maxPods: 50
`, n.IP, f.serving[n.Name][0], f.serving[n.Name][1], f.ca, n.CgroupRoot,
		NodeIP, ClusterDomain, resolv, n.containerdSocket(), filepath.Join(n.dir, "pod-logs"))
	kpath := filepath.Join(n.dir, "kubelet-config.yaml")
	if err := os.WriteFile(kpath, []byte(kcfg), 0o644); err != nil {
		return nil, nil, err
	}
	kubelet, err = c.startNodePart(n, "kubelet", c.cfg.nodeBin("kubelet"),
		"--config", kpath, "--kubeconfig", f.kubeconfigs[n.Name+"/kubelet"],
		"--root-dir", filepath.Join(n.dir, "kubelet"), "--cert-dir", filepath.Join(n.dir, "kubelet", "pki"),
		"--node-ip", n.IP, "--hostname-override", n.Name,
		"--node-labels", kube.NodeRoleLabel+"="+n.Role, "--v=1")
	if err != nil {
		return nil, nil, err
	}
	// minSyncPeriod 100 ms, not the default 1 s (0 is defaulted to 1 s): a run's Service gets
	// its rules at once when its pod turns Ready, not up to a second after a previous sync,
	// during which kube-proxy rejects connections to it.
	pcfg := fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: %s}
mode: iptables
clusterCIDR: %s
hostnameOverride: %s
bindAddress: %s
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
nodePortAddresses: [%s/32]
iptables: {masqueradeAll: true, minSyncPeriod: 100ms}
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s, udpTimeout: 0s, udpStreamTimeout: 0s}
`, f.kubeconfigs[n.Name+"/kube-proxy"], ClusterPodCIDR, n.Name, n.IP, n.IP)
	ppath := filepath.Join(n.dir, "kube-proxy-config.yaml")
	if err := os.WriteFile(ppath, []byte(pcfg), 0o644); err != nil {
		return nil, nil, err
	}
	proxy, err = c.startNodePart(n, "kube-proxy", c.cfg.nodeBin("kube-proxy"), "--config", ppath, "--v=1")
	if err != nil {
		return nil, nil, err
	}
	return kubelet, proxy, nil
}

func repoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return perf.RepoRootFrom(wd)
}
