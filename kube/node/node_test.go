//go:build kubenode

// The end-to-end tests of the kube platform on a real two-node cluster (the testers on one
// node, the apps they load on the other). They need root, the Debian packages containerd,
// runc, containernetworking-plugins, iptables and conntrack, and the built parts (make
// kube-bin kube-node daprd); make test-kube runs them:
//
//	go test -tags kubenode -count=1 -v -timeout 40m ./kube/node/
package node_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/daprperf/daprperf/kube/node"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/growth"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"
)

// TestNode brings one cluster up, runs every check on it in order, tears it down and compares
// the host's network and kernel configuration with what it was before.
func TestNode(t *testing.T) {
	before, err := node.HostState()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := node.Start(ctx, node.Config{Logf: t.Logf, Keep: os.Getenv("DAPR_PERF_KUBE_NODE_KEEP") != ""})
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
		t.Logf("bring-up: %-36s %6.1f s", tm.Part, tm.After.Seconds())
	}

	t.Run("network stays on the node", func(t *testing.T) { testNetwork(t, c) })
	t.Run("service invocation scenarios", func(t *testing.T) { testScenarios(t, c) })
	t.Run("service invocation from three tester pods, by a kubeconfig context", func(t *testing.T) { testThreeTesters(t, c) })
	t.Run("restart verdict from a killed container", func(t *testing.T) { testRestart(t, c) })
	t.Run("memory growth", func(t *testing.T) { testGrowth(t, c) })
	t.Run("scenarios on an in-cluster redis", func(t *testing.T) { testBackends(t, c) })
	t.Run("broker restarted mid-run", func(t *testing.T) { testBrokerRestart(t, c) })
	t.Run("scenario packages on in-cluster backends", func(t *testing.T) { testPackages(t, c) })

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

// testNetwork runs, on each node, a probe pod that resolves and dials names and addresses
// inside and outside the cluster: inside ones (the cluster DNS, the API server's Service and
// address on the first node) must work, outside ones must fail at once.
func testNetwork(t *testing.T, c *node.Cluster) {
	nodes := c.Nodes()
	if len(nodes) != node.DefaultNodes {
		t.Errorf("%d nodes, want %d", len(nodes), node.DefaultNodes)
	}
	for _, n := range nodes {
		t.Run(n.Name, func(t *testing.T) { probeNetwork(t, c, n) })
	}
	if n := c.DNSRefused(); n == 0 {
		t.Errorf("the cluster DNS refused no query: the outside names did not reach it")
	} else {
		t.Logf("the cluster DNS refused %d queries for outside names (it never forwards)", n)
	}
}

// probeNetwork runs the probe pod on node n and checks its results.
func probeNetwork(t *testing.T, c *node.Cluster, n node.NodeSpec) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := c.Clientset()
	name := "netprobe-" + n.Name
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
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{
			NodeName:      n.Name,
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
		p, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if phase = p.Status.Phase; phase == corev1.PodSucceeded || phase == corev1.PodFailed {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	logs, err := cs.CoreV1().Pods("default").GetLogs(name, &corev1.PodLogOptions{}).DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("probe pod on %s (%s) %s, its log (through the kubelet):\n%s", n.Name, n.IP, phase, logs)
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
	_ = cs.CoreV1().Pods("default").Delete(ctx, name, metav1.DeleteOptions{})
}

// envOr is the environment variable k, or def when it is unset.
func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// runID is the run id of this test's scenario runs: DAPR_PERF_RUN_ID when set, else
// kube-<UTC time>.
var runID = envOr(runner.EnvRunID, "kube-"+time.Now().UTC().Format("20060102T150405Z"))

// lockHeld is the line perfRun's command prints once it holds the perf lock.
const lockHeld = "kube e2e: perf lock held"

// perfRun runs scripts/perf.sh on pkgs against the cluster, under the machine's perf lock, with
// extra environment env, logging its output; it returns perf.sh's exit code.
func perfRun(t *testing.T, c *node.Cluster, id string, onLine func(string), env []string, pkgs ...string) int {
	t.Helper()
	wd, _ := os.Getwd()
	root, err := perf.RepoRootFrom(wd)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	// flock: every perf run on this machine holds /tmp/perf.lock (they measure the cores).
	// The first line says when the lock is held, so the log shows the wait for other runs.
	cmd := exec.CommandContext(ctx, "flock", append([]string{"/tmp/perf.lock", "sh", "-c", `echo "` + lockHeld + `"; exec ./scripts/perf.sh "$@"`, "sh"}, pkgs...)...)
	asked := time.Now()
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"KUBECONFIG="+c.Kubeconfig,
		"DAPR_PERF_PLATFORM=kubernetes",
		"DAPR_PERF_IMAGE_REGISTRY="+node.ImageRegistry,
		"DAPR_PERF_IMAGE_TAG="+node.ImageTag,
		runner.EnvRunID+"="+id,
		runner.EnvReportDir+"="+reportDir(t, root),
		// Short phases in CI; Dapr's full ones when the caller sets them.
		perf.EnvDuration+"="+envOr(perf.EnvDuration, "10s"),
		perf.EnvWarmupDuration+"="+envOr(perf.EnvWarmupDuration, "3s"),
		// 100 QPS as the local smoke of .ci/run, so both sit in one table at the same load
		// (at 200 QPS a gRPC baseline can fall behind on 2 shared cores).
		perf.EnvQPS+"="+envOr(perf.EnvQPS, "100"),
		perf.EnvPreflight+"="+envOr(perf.EnvPreflight, "off"),
		runner.EnvCommand+"=make test-kube",
		perf.EnvOverheadGate+"="+envOr(perf.EnvOverheadGate, "warn"),
		// Anything the run writes to the temporary folder goes with t (a failed scenario keeps its
		// containers' logs beside its result file, in the report dir).
		"TMPDIR="+t.TempDir(),
	)
	cmd.Env = append(cmd.Env, env...)
	// Its own process group, stopped whole if a signal tears the cluster down under it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.OnSignal(func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		}
	})
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if sc.Text() == lockHeld {
				t.Logf("waited %.1f s for /tmp/perf.lock", time.Since(asked).Seconds())
				continue
			}
			t.Log(sc.Text())
			if onLine != nil {
				onLine(sc.Text())
			}
		}
	}()
	err = cmd.Run()
	pw.Close()
	<-done
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("perf.sh: %v", err)
	}
	return 0
}

// reportDir is DAPR_PERF_REPORT_DIR (absolute), or <root>/reports.
func reportDir(t *testing.T, root string) string {
	d := envOr(runner.EnvReportDir, filepath.Join(root, "reports"))
	abs, err := filepath.Abs(d)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// latencyJSON is a latency's percentiles as a result file holds them.
type latencyJSON struct {
	Percentiles []struct {
		P       float64 `json:"p"`
		Seconds float64 `json:"seconds"`
	} `json:"percentiles"`
}

// resultFile is the parts of a result file the tests read.
type resultFile struct {
	RunID       string `json:"runID"`
	Pass        bool   `json:"pass"`
	Incomplete  bool   `json:"incomplete"`
	Environment struct {
		Platform string            `json:"platform"`
		Nodes    map[string]string `json:"nodes"`
		Backends []struct {
			Backend string `json:"backend"`
			Address string `json:"address"`
			From    string `json:"from"`
		} `json:"backends"`
	} `json:"environment"`
	Validity struct {
		Valid bool `json:"valid"`
	} `json:"validity"`
	Verdicts []struct {
		Figure string  `json:"figure"`
		Got    float64 `json:"got"`
		Pass   bool    `json:"pass"`
	} `json:"verdicts"`
	Rounds []struct {
		Main struct {
			ActualQPS float64     `json:"actualQPS"`
			Latency   latencyJSON `json:"latency"`
		} `json:"main"`
	} `json:"rounds"`
	Resources []struct {
		Process      string  `json:"process"`
		MeanCPUCores float64 `json:"meanCPUCores"`
		PeakRSSBytes uint64  `json:"peakRSSBytes"`
		Readings     int     `json:"readings"`
	} `json:"resources"`
}

func readResult(t *testing.T, path string) resultFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no result file: %v", err)
	}
	var r resultFile
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// summary is one line of figures of r: p50/p90/p99 of round 1's main phase, QPS, and each
// process's CPU and peak RSS (from the metrics API on this platform).
func summary(r resultFile) string {
	var b strings.Builder
	if len(r.Rounds) > 0 {
		m := r.Rounds[0].Main
		for _, p := range m.Latency.Percentiles {
			if p.P == 50 || p.P == 90 || p.P == 99 {
				fmt.Fprintf(&b, "p%g %.2f ms, ", p.P, p.Seconds*1000)
			}
		}
		fmt.Fprintf(&b, "%.1f QPS", m.ActualQPS)
	}
	for _, res := range r.Resources {
		if res.Readings == 0 {
			fmt.Fprintf(&b, "; %s no readings", res.Process)
			continue
		}
		fmt.Fprintf(&b, "; %s %.0f mCPU %.1f MiB (%d readings)", res.Process, 1e3*res.MeanCPUCores, float64(res.PeakRSSBytes)/(1<<20), res.Readings)
	}
	return b.String()
}

// testScenarios runs Dapr's HTTP and gRPC service-invocation scenarios on the cluster, the
// apps as Deployments with injected sidecars, the tester reached by port-forward, usage from
// the metrics API; both must pass and write complete result files of platform kubernetes.
func testScenarios(t *testing.T, c *node.Cluster) {
	wd, _ := os.Getwd()
	root, _ := perf.RepoRootFrom(wd)
	var (
		mu     sync.Mutex
		specs  []string     // one error or "ok ..." per main phase
		placed []runPlacing // one per main phase
		wg     sync.WaitGroup
	)
	onLine := func(l string) {
		if isMainStart(l) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := checkPodResources(c)
				pl := readPlacing(c)
				mu.Lock()
				specs = append(specs, res)
				placed = append(placed, pl)
				mu.Unlock()
			}()
		}
	}
	code := perfRun(t, c, runID, onLine, nil, "./tests/service_invocation_http", "./tests/service_invocation_grpc")
	wg.Wait()
	// The pods as the API server has them, injected sidecars included, carry Dapr's resource
	// defaults (scenarios.DaprResources): read in each run's main phase.
	if len(specs) != 2 {
		t.Errorf("pod specs read in %d main phases, want 2 (http, grpc)", len(specs))
	}
	for _, sp := range specs {
		if strings.HasPrefix(sp, "ok") {
			t.Logf("pod resources: %s", sp)
		} else {
			t.Errorf("pod resources: %s", sp)
		}
	}
	for _, pl := range placed {
		checkPlacing(t, c, pl)
	}
	for _, tr := range []string{"http", "grpc"} {
		path := filepath.Join(perf.RunDir(reportDir(t, root), runID), "service_invocation", tr, "result.json")
		r := readResult(t, path)
		t.Logf("%s: %s: pass=%v valid=%v: %s", tr, path, r.Pass, r.Validity.Valid, summary(r))
		if r.Environment.Platform != "kubernetes" || r.RunID != runID || r.Incomplete || len(r.Rounds) == 0 {
			t.Errorf("%s: platform %q, run %q, incomplete %v, %d rounds: want kubernetes, %s, complete", tr, r.Environment.Platform, r.RunID, r.Incomplete, len(r.Rounds), runID)
		}
		if !r.Pass || !r.Validity.Valid {
			t.Errorf("%s: pass=%v valid=%v", tr, r.Pass, r.Validity.Valid)
		}
		// The gating verdicts must pass; the overhead bounds come from 8-vCPU nodes and are
		// reported only (DAPR_PERF_OVERHEAD_GATE=warn, as make perf on this machine).
		for _, v := range r.Verdicts {
			switch {
			case !v.Pass && (v.Figure == "errors" || v.Figure == "restarts" || v.Figure == "qps.ratio"):
				t.Errorf("%s: verdict %s missed (got %g)", tr, v.Figure, v.Got)
			case !v.Pass:
				t.Logf("%s: verdict %s missed, reported only (got %g)", tr, v.Figure, v.Got)
			}
		}
		if len(r.Resources) == 0 {
			t.Errorf("%s: no resource usage recorded (the metrics API)", tr)
		}
		checkReadings(t, tr, path)
		checkRecordedNodes(t, c, tr, r)
	}
	if code != 0 {
		t.Errorf("perf.sh exited %d", code)
	}
}

// testThreeTesters runs the HTTP service-invocation scenario with DAPR_PERF_TESTER_REPLICAS=3:
// three tester pods, each with its injected daprd, share every phase. It reaches the cluster
// as a user of a remote one would: KUBECONFIG is a file whose current context is a cluster that
// does not answer, and DAPR_PERF_KUBE_CONTEXT names this cluster's (remoteKubeconfig). The
// result must pass, record the three testers' pods on the cluster's nodes, and hold, for the
// main phase, each tester's share (a third of the rate) and their merge, whose requests add up.
// The three testers go to the load node, the target to the other.
func testThreeTesters(t *testing.T, c *node.Cluster) {
	wd, _ := os.Getwd()
	root, _ := perf.RepoRootFrom(wd)
	id := runID + "-testers"
	kubeconfig := remoteKubeconfig(t, c)
	// The pods in the main phase, as kubectl get pods -o wide lists them: three testers on the
	// load node, the target on the other.
	placed := make(chan runPlacing, 1)
	var once sync.Once
	onLine := func(l string) {
		if isMainStart(l) {
			once.Do(func() { go func() { placed <- readPlacing(c) }() })
		}
	}
	code := perfRun(t, c, id, onLine, []string{perf.EnvTesterReplicas + "=3", "KUBECONFIG=" + kubeconfig,
		"DAPR_PERF_KUBE_CONTEXT=" + remoteContext}, "./tests/service_invocation_http")
	select {
	case pl := <-placed:
		checkPlacing(t, c, pl)
	case <-time.After(30 * time.Second): // readPlacing's own bound is 20 s
		t.Error("the pods were not listed: no main phase seen")
	}
	path := filepath.Join(perf.RunDir(reportDir(t, root), id), "service_invocation", "http", "result.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no result file: %v", err)
	}
	var r struct {
		Pass        bool `json:"pass"`
		Environment struct {
			Nodes map[string]string `json:"nodes"`
		} `json:"environment"`
		Rounds []struct {
			Main struct {
				Requests           int64   `json:"requests"`
				StartSpreadSeconds float64 `json:"startSpreadSeconds"`
				Testers            []struct {
					Requests int64 `json:"requests"`
					Params   struct {
						QPS int `json:"qps"`
					} `json:"params"`
				} `json:"testers"`
			} `json:"main"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	t.Logf("%s: pass=%v, nodes %v", path, r.Pass, r.Environment.Nodes)
	if code != 0 || !r.Pass {
		t.Errorf("perf.sh exited %d, pass=%v: want 0 and a pass", code, r.Pass)
	}
	load := c.Nodes()[0].Name // labelled load: the testers' node
	for _, name := range []string{"tester", "tester-2", "tester-3"} {
		if got := r.Environment.Nodes[name]; got != load {
			t.Errorf("%s recorded on node %q, want %s (the load node): %v", name, got, load, r.Environment.Nodes)
		}
	}
	if got := r.Environment.Nodes["testapp"]; got == "" || got == load {
		t.Errorf("testapp recorded on node %q, want a node other than the testers' %s", got, load)
	}
	if len(r.Rounds) == 0 {
		t.Fatal("no round recorded")
	}
	if len(r.Rounds[0].Main.Testers) != 3 {
		t.Fatalf("the main phase holds %d testers' results, want 3", len(r.Rounds[0].Main.Testers))
	}
	m := r.Rounds[0].Main
	var sum int64
	for i, s := range m.Testers {
		sum += s.Requests
		t.Logf("tester %d: %d QPS, %d requests", i+1, s.Params.QPS, s.Requests)
	}
	if sum != m.Requests || sum == 0 {
		t.Errorf("merged requests %d, the testers' sum %d", m.Requests, sum)
	}
	t.Logf("the testers' starts were %.1f ms apart", m.StartSpreadSeconds*1e3)
}

// remoteContext is the context of remoteKubeconfig that reaches the cluster.
const remoteContext = "daprperf-remote"

// remoteKubeconfig writes a kubeconfig with two contexts: remoteContext, the cluster's admin
// access, and the current one, "unreachable", whose server is a closed port on loopback. A run
// that ignored DAPR_PERF_KUBE_CONTEXT would fail at once, naming that server.
func remoteKubeconfig(t *testing.T, c *node.Cluster) string {
	cfg, err := clientcmd.LoadFromFile(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cur := cfg.Contexts[cfg.CurrentContext]
	if cur == nil {
		t.Fatalf("%s: no current context", c.Kubeconfig)
	}
	cfg.Contexts = map[string]*clientcmdapi.Context{remoteContext: cur}
	cfg.Clusters["unreachable"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"}
	cfg.Contexts["unreachable"] = &clientcmdapi.Context{Cluster: "unreachable", AuthInfo: cur.AuthInfo}
	cfg.CurrentContext = "unreachable"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// isMainStart says whether l is the log line of a run's main phase starting ("[12s elapsed,
// about 20s left] round 1/1: main, 100 QPS to ..."), not the plan's listing of that phase.
func isMainStart(l string) bool {
	return strings.Contains(l, " left] round 1/1: main")
}

// testRestart runs the HTTP scenario and kills the target app's container 3 s into the main
// phase (when the run logs "round 1/1: main"): the run must miss the restarts bound (perf.sh
// exit 3), and its result file must be written, complete, with a failed restarts verdict.
func testRestart(t *testing.T, c *node.Cluster) {
	wd, _ := os.Getwd()
	root, _ := perf.RepoRootFrom(wd)
	id := runID + "-restart"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	killed := make(chan string, 1)
	mainPhase := make(chan struct{})
	var once sync.Once
	var keptLogs string
	onLine := func(l string) {
		if isMainStart(l) {
			once.Do(func() { close(mainPhase) })
		}
		if _, dir, ok := strings.Cut(l, "containers kept in "); ok {
			keptLogs = strings.TrimSpace(dir)
		}
	}
	go func() {
		defer close(killed)
		select {
		case <-mainPhase:
		case <-ctx.Done():
			return
		}
		time.Sleep(3 * time.Second)
		cs := c.Clientset()
		nss, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			killed <- "error: " + err.Error()
			return
		}
		for _, ns := range nss.Items {
			if !strings.HasPrefix(ns.Name, "daprperf-") || ns.DeletionTimestamp != nil {
				continue
			}
			pods, err := cs.CoreV1().Pods(ns.Name).List(ctx, metav1.ListOptions{LabelSelector: "app=testapp"})
			if err != nil || len(pods.Items) == 0 {
				continue
			}
			p := pods.Items[0]
			cid, err := c.KillContainer(ctx, ns.Name, p.Name, "testapp")
			if err != nil {
				killed <- "error: " + err.Error()
			} else {
				killed <- fmt.Sprintf("%s/%s container testapp (%.12s) at %s", ns.Name, p.Name, cid, time.Now().UTC().Format(time.RFC3339))
			}
			return
		}
		killed <- "error: no running testapp pod"
	}()
	code := perfRun(t, c, id, onLine, nil, "./tests/service_invocation_http")
	cancel()
	what := <-killed
	t.Logf("killed: %s", what)
	if what == "" || strings.HasPrefix(what, "error") {
		t.Fatalf("no container was killed: %s", what)
	}
	path := filepath.Join(perf.RunDir(reportDir(t, root), id), "service_invocation", "http", "result.json")
	r := readResult(t, path)
	t.Logf("result %s: pass=%v: %s", path, r.Pass, summary(r))
	found := false
	for _, v := range r.Verdicts {
		if v.Figure == "restarts" {
			found = true
			if v.Pass || v.Got < 1 {
				t.Errorf("restarts verdict: pass=%v got %g; want missed with at least 1", v.Pass, v.Got)
			}
		}
	}
	if !found {
		t.Errorf("the result file has no restarts verdict")
	}
	if r.Pass {
		t.Errorf("the run passed despite the killed container")
	}
	if code != 3 {
		t.Errorf("perf.sh exited %d; want 3 (a missed bound)", code)
	}
	// The failed run kept its containers' logs, the killed one's from before its restart too.
	prev, _ := filepath.Glob(filepath.Join(keptLogs, "testapp-*_testapp.previous.log"))
	if keptLogs == "" || len(prev) != 1 {
		t.Errorf("kept logs %q: want the killed container's testapp-*_testapp.previous.log there, have %v", keptLogs, prev)
	} else if b, err := os.ReadFile(prev[0]); err != nil || !strings.Contains(string(b), "listening on") {
		t.Errorf("%s: want the killed instance's log (\"listening on\"), have %q (%v)", prev[0], b, err)
	}
}

// growthVariants are the memory-growth variants testGrowth runs, one of each way the kube
// platform reads a sidecar's RSS and series: the control and b-unique (daprd's /metrics, flat
// and growing) and c-unique-enable-metrics-false (no /metrics: the metrics API). The other three
// differ from b-unique only in daprd's metrics configuration, read the same way, and run in make
// perf and make test-kube-all. Under DAPR_PERF_INVALID_RETRIES the variants are subtests of
// attempt_<n>: the pattern matches either.
const growthVariants = "^TestMemoryGrowthPerformance$/^(attempt_[0-9]+|a-fixed|b-unique|c-unique-enable-metrics-false)$/^(a-fixed|b-unique|c-unique-enable-metrics-false)$"

// testGrowth runs the memory-growth scenario (growthVariants, each with profiling sidecars
// whose heap and series the platform reads by port-forward) with the scenario's rounds (3 of
// 3,000 requests; fewer leave start-up growth in the control's slope) and a short idle window
// unless the caller sets DAPR_PERF_GROWTH_*: its result file must be written, complete, valid, of platform
// kubernetes, with every variant and both sidecars, no errors or restarts, and every detector
// check passing. On Kubernetes the sidecars' RSS is daprd's own process_resident_memory_bytes,
// read at the call through the port-forward (the metrics API's working set comes in 15 s
// samples, too coarse for rounds of seconds): each variant must say so, but the one whose
// sidecars serve no /metrics. The test also asserts
// what it reads itself from the /metrics series: the control's flat (under
// growth.SeriesFlatPerRequest per request) and b-unique's growing past it.
func testGrowth(t *testing.T, c *node.Cluster) {
	wd, _ := os.Getwd()
	root, _ := perf.RepoRootFrom(wd)
	id := runID + "-growth"
	env := []string{
		perf.EnvGrowthRounds + "=" + envOr(perf.EnvGrowthRounds, "3"),
		perf.EnvGrowthRequests + "=" + envOr(perf.EnvGrowthRequests, "3000"),
		perf.EnvGrowthIdle + "=" + envOr(perf.EnvGrowthIdle, "6s"),
	}
	code := perfRun(t, c, id, nil, env, "-run", growthVariants, "./tests/memory_growth")
	path := filepath.Join(perf.RunDir(reportDir(t, root), id), "memory_growth", "http", "result.json")
	r := readResult(t, path)
	b, _ := os.ReadFile(path)
	var g struct {
		Growth struct {
			Variants []struct {
				Name      string `json:"name"`
				Control   bool   `json:"control"`
				Errors    int    `json:"errors"`
				RSSSource string `json:"rssSource"`
				Sidecars  []struct {
					Role             string  `json:"role"`
					SeriesPerRequest float64 `json:"seriesPerRequest"`
				} `json:"sidecars"`
			} `json:"variants"`
			Checks []struct {
				Check, Variant, Sidecar, Detail string
				Pass                            bool
			} `json:"checks"`
		} `json:"growth"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	t.Logf("result %s: pass=%v valid=%v, perf.sh exit %d, %d variants", path, r.Pass, r.Validity.Valid, code, len(g.Growth.Variants))
	if r.Environment.Platform != "kubernetes" || r.Incomplete || !r.Validity.Valid {
		t.Errorf("platform %q, incomplete %v, valid %v: want kubernetes, complete, valid", r.Environment.Platform, r.Incomplete, r.Validity.Valid)
	}
	if len(g.Growth.Variants) != 3 {
		t.Errorf("%d variants in the result file, want 3 (%s)", len(g.Growth.Variants), growthVariants)
	}
	sawControl, sawUnique := false, false
	for _, v := range g.Growth.Variants {
		source := "daprd metrics"
		if v.Name == "c-unique-enable-metrics-false" { // no /metrics: the metrics API's samples
			source = "platform"
		}
		if v.Errors != 0 || len(v.Sidecars) != 2 || v.RSSSource != source {
			t.Errorf("variant %s: %d errors, %d sidecars, RSS from %q; want 0, 2 and %s", v.Name, v.Errors, len(v.Sidecars), v.RSSSource, source)
		}
		for _, sc := range v.Sidecars {
			switch {
			case v.Control:
				sawControl = true
				if sc.SeriesPerRequest >= growth.SeriesFlatPerRequest {
					t.Errorf("control %s %s: series %+.3f per request, want flat (under %g)", v.Name, sc.Role, sc.SeriesPerRequest, growth.SeriesFlatPerRequest)
				}
			case v.Name == "b-unique":
				sawUnique = true
				if sc.SeriesPerRequest < growth.SeriesFlatPerRequest {
					t.Errorf("%s %s: series %+.3f per request, want growing (one method name per request)", v.Name, sc.Role, sc.SeriesPerRequest)
				}
			}
		}
	}
	if !sawControl || !sawUnique {
		t.Errorf("variants %+v: want the control and b-unique", g.Growth.Variants)
	}
	for _, v := range r.Verdicts {
		if !v.Pass && (v.Figure == "errors" || v.Figure == "restarts") {
			t.Errorf("verdict %s missed (got %g)", v.Figure, v.Got)
		}
	}
	for _, ch := range g.Growth.Checks {
		if !ch.Pass {
			t.Errorf("check %q %s %s failed: %s", ch.Check, ch.Variant, ch.Sidecar, ch.Detail)
		}
	}
	if code != 0 && code != 3 {
		t.Errorf("perf.sh exited %d; want 0 (pass) or 3 (a threshold missed)", code)
	}
}

// checkPodResources reads the pods of the one live daprperf-* namespace from the API server
// and checks that each has its app container and an injected daprd container, all with
// Dapr's requests and limits (CPU 0.1 / 4, memory 250Mi / 512Mi). It returns "ok" and what it
// saw, or what differs.
func checkPodResources(c *node.Cluster) string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs := c.Clientset()
	nss, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return "error: " + err.Error()
	}
	want := map[corev1.ResourceName][2]string{ // request, limit
		corev1.ResourceCPU: {"100m", "4"}, corev1.ResourceMemory: {"250Mi", "512Mi"},
	}
	var seen []string
	var bad []string
	for _, ns := range nss.Items {
		if !strings.HasPrefix(ns.Name, "daprperf-") || ns.DeletionTimestamp != nil {
			continue
		}
		pods, err := cs.CoreV1().Pods(ns.Name).List(ctx, metav1.ListOptions{})
		if err != nil {
			return "error: " + err.Error()
		}
		for _, p := range pods.Items {
			if p.DeletionTimestamp != nil {
				continue
			}
			app := p.Labels["app"]
			hasApp, hasDaprd := false, false
			for _, ct := range p.Spec.Containers {
				switch ct.Name {
				case app:
					hasApp = true
				case "daprd":
					hasDaprd = true
				}
				for res, rl := range want {
					req, lim := ct.Resources.Requests[res], ct.Resources.Limits[res]
					if req.Cmp(resource.MustParse(rl[0])) != 0 || lim.Cmp(resource.MustParse(rl[1])) != 0 {
						bad = append(bad, fmt.Sprintf("%s/%s container %s: %s request %s limit %s, want %s / %s", ns.Name, p.Name, ct.Name, res, req.String(), lim.String(), rl[0], rl[1]))
					}
				}
				seen = append(seen, fmt.Sprintf("%s/%s cpu %s/%s memory %s/%s", app, ct.Name,
					ct.Resources.Requests.Cpu(), ct.Resources.Limits.Cpu(), ct.Resources.Requests.Memory(), ct.Resources.Limits.Memory()))
			}
			if !hasApp || !hasDaprd {
				bad = append(bad, fmt.Sprintf("%s/%s: app container %v, injected daprd container %v; want both", ns.Name, p.Name, hasApp, hasDaprd))
			}
		}
	}
	if len(seen) < 4 {
		bad = append(bad, fmt.Sprintf("%d containers seen (%s), want 4: tester, testapp and their sidecars", len(seen), strings.Join(seen, "; ")))
	}
	if len(bad) > 0 {
		return strings.Join(bad, "; ")
	}
	return "ok: " + strings.Join(seen, "; ")
}

// checkReadings checks the resource summaries of the result file at path as the run's summary
// (report.Summary, what perf.sh prints) shows them: a process without a metrics-API reading in
// the main phases (metrics-server has none of a new pod for its first 15 s or more) has CPU
// and RSS 0 in the file and reads "no readings" in its summary row, never a 0; a process with
// readings has an RSS above 0 and figures in its row.
func checkReadings(t *testing.T, tr, path string) {
	t.Helper()
	rep, err := report.ReadReport(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, l := range strings.Split(report.Summary(rep), "\n") {
		if f := strings.Fields(l); len(f) > 1 {
			rows[f[0]] = l
		}
	}
	none := 0
	for _, res := range rep.Resources {
		row, ok := rows[res.Process]
		switch {
		case !ok:
			t.Errorf("%s: no summary row for %s", tr, res.Process)
		case res.Readings == 0:
			none++
			if res.PeakRSSBytes != 0 || res.MeanCPUCores != 0 {
				t.Errorf("%s: %s has no readings but CPU %g cores, RSS %d bytes in the file", tr, res.Process, res.MeanCPUCores, res.PeakRSSBytes)
			}
			if !strings.Contains(row, "no readings") {
				t.Errorf("%s: %s has no readings, but its summary row does not say so: %q", tr, res.Process, row)
			}
			t.Logf("%s: %s had no metrics-API reading; its summary row: %s", tr, res.Process, strings.TrimSpace(row))
		case res.PeakRSSBytes == 0:
			t.Errorf("%s: %s has %d readings and RSS 0", tr, res.Process, res.Readings)
		case strings.Contains(row, "no readings"):
			t.Errorf("%s: %s has %d readings, but its summary row says no readings: %q", tr, res.Process, res.Readings, row)
		}
	}
	t.Logf("%s: %d of %d processes had no metrics-API reading in the main phase", tr, none, len(rep.Resources))
}

// testBackends starts Debian's redis-server as a pod behind a Service (Cluster.BackendsUp) and
// runs two of Dapr's scenarios on it with DAPR_PERF_REDIS_ADDR naming it: pubsub_subscribe_redis
// (the tester publishes through its injected sidecar, the subscriber's sidecar delivers over
// HTTP, the test process reads the subscriber's counts through a port-forward), which must
// deliver every message once; and state_get_redis over HTTP, whose baseline the tester pod sends
// straight to Redis (the backend has no password, so the platform allows the tester its
// address). Both must pass, valid, with complete result files of platform kubernetes.
func testBackends(t *testing.T, c *node.Cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t0 := time.Now()
	if err := c.BackendsUp(ctx, 90*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("in-cluster redis available after %.1f s at %s", time.Since(t0).Seconds(), node.RedisAddr())
	env := []string{"DAPR_PERF_REDIS_ADDR=" + node.RedisAddr()}
	t.Run("pubsub_subscribe_redis", func(t *testing.T) {
		id := runID + "-subscribe"
		code := perfRun(t, c, id, nil, env, "-run", "TestPubsubBulkPublishSubscribeHttpPerformance/^dapr-perf-test-redis-pubsub-subs-http$", "./tests/pubsub_subscribe_http")
		var r struct {
			resultFile
			Delivery *struct {
				Sent       int64       `json:"sent"`
				Received   int64       `json:"received"`
				Lost       int64       `json:"lost"`
				Duplicated int64       `json:"duplicated"`
				Latency    latencyJSON `json:"latency"`
			} `json:"delivery"`
		}
		readBackendResult(t, id, "pubsub_subscribe_redis", &r)
		d := r.Delivery
		if d == nil {
			t.Fatal("no delivery report")
		}
		var lat []string
		for _, p := range d.Latency.Percentiles {
			if p.P == 50 || p.P == 90 || p.P == 95 || p.P == 99 {
				lat = append(lat, fmt.Sprintf("p%g %.2f ms", p.P, p.Seconds*1000))
			}
		}
		t.Logf("sent %d, received %d, lost %d, duplicated %d; delivery %s", d.Sent, d.Received, d.Lost, d.Duplicated, strings.Join(lat, ", "))
		if d.Sent == 0 || d.Received != d.Sent || d.Lost != 0 || d.Duplicated != 0 {
			t.Errorf("delivery: sent %d, received %d, lost %d, duplicated %d: want every message once", d.Sent, d.Received, d.Lost, d.Duplicated)
		}
		if len(lat) == 0 {
			t.Error("delivery: no latency percentiles")
		}
		r.checkOnRedis(t, id, code, "delivery.p95")
	})
	t.Run("state_get_redis", func(t *testing.T) {
		id := runID + "-state"
		code := perfRun(t, c, id, nil, env, "-run", "TestStateGetHTTPPerformance/^state_get_redis$", "./tests/state_get_http")
		var (
			r    resultFile
			base struct {
				Rounds []struct {
					Baseline struct {
						Baseline string `json:"baseline"`
						Params   struct {
							Target    string `json:"target"`
							Operation struct {
								Direct string `json:"direct"`
							} `json:"operation"`
						} `json:"params"`
					} `json:"baseline"`
				} `json:"rounds"`
			}
		)
		readBackendResult(t, id, "state_get_redis", &r, &base)
		t.Logf("%s", summary(r))
		if len(base.Rounds) == 0 || len(r.Rounds) == 0 || r.Rounds[0].Main.ActualQPS == 0 {
			t.Fatal("no round recorded")
		}
		b := base.Rounds[0].Baseline
		t.Logf("baseline %s: direct %s to %s", b.Baseline, b.Params.Operation.Direct, b.Params.Target)
		if b.Baseline != "store" || b.Params.Operation.Direct != "redis" || b.Params.Target != node.RedisAddr() {
			t.Errorf("baseline %q direct %q target %q: want the direct-to-store baseline on redis at %s", b.Baseline, b.Params.Operation.Direct, b.Params.Target, node.RedisAddr())
		}
		r.checkOnRedis(t, id, code, "overhead.p90")
	})
}

// readBackendResult decodes the one result file of test in run id into each of rs.
func readBackendResult(t *testing.T, id, test string, rs ...any) {
	t.Helper()
	wd, _ := os.Getwd()
	root, _ := perf.RepoRootFrom(wd)
	paths, _ := filepath.Glob(filepath.Join(perf.RunDir(reportDir(t, root), id), test, "*", "result.json"))
	if len(paths) != 1 {
		t.Fatalf("result files of %s in run %s: %q, want one", test, id, paths)
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if err := json.Unmarshal(b, r); err != nil {
			t.Fatalf("%s: %v", paths[0], err)
		}
	}
	t.Logf("result file %s", paths[0])
}

// checkOnRedis fails t unless the run is complete, valid and passed on kubernetes with the in-cluster
// Redis as its backend and perf.sh exited 0; a missed latency bound named in warnOnly (bounds
// from Dapr's 8-vCPU nodes, warn-only under make test-kube) is logged instead.
func (r resultFile) checkOnRedis(t *testing.T, id string, code int, warnOnly ...string) {
	t.Helper()
	if r.Environment.Platform != "kubernetes" || r.RunID != id || r.Incomplete {
		t.Errorf("platform %q, run %q, incomplete %v: want kubernetes, %s, complete", r.Environment.Platform, r.RunID, r.Incomplete, id)
	}
	found := false
	for _, b := range r.Environment.Backends {
		found = found || (b.Backend == "redis" && b.Address == node.RedisAddr() && b.From == "DAPR_PERF_REDIS_ADDR")
	}
	if !found {
		t.Errorf("environment backends %+v: want redis at %s from DAPR_PERF_REDIS_ADDR", r.Environment.Backends, node.RedisAddr())
	}
	for _, v := range r.Verdicts {
		switch {
		case !v.Pass && slices.Contains(warnOnly, v.Figure):
			t.Logf("verdict %s missed, reported only (got %g)", v.Figure, v.Got)
		case !v.Pass:
			t.Errorf("verdict %s missed (got %g)", v.Figure, v.Got)
		}
	}
	if !r.Validity.Valid || code != 0 {
		t.Errorf("valid=%v pass=%v, perf.sh exited %d", r.Validity.Valid, r.Pass, code)
	}
}

// runPlacing is where the pods of one run were, as the API server had them in its main phase.
type runPlacing struct {
	ns    string
	table string            // as kubectl get pods -o wide shows it: NAME READY STATUS NODE IP
	nodes map[string]string // app (LabelApp) -> spec.nodeName
	err   error
}

// readPlacing reads the pods of the one live daprperf-* namespace (the run in its main phase).
func readPlacing(c *node.Cluster) runPlacing {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs := c.Clientset()
	nss, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return runPlacing{err: err}
	}
	for _, ns := range nss.Items {
		if !strings.HasPrefix(ns.Name, "daprperf-") || ns.DeletionTimestamp != nil {
			continue
		}
		pods, err := cs.CoreV1().Pods(ns.Name).List(ctx, metav1.ListOptions{})
		if err != nil {
			return runPlacing{ns: ns.Name, err: err}
		}
		pl := runPlacing{ns: ns.Name, nodes: map[string]string{}}
		var b strings.Builder
		w := tabwriter.NewWriter(&b, 0, 8, 3, ' ', 0)
		fmt.Fprintln(w, "NAME\tREADY\tSTATUS\tNODE\tIP")
		for _, p := range pods.Items {
			ready := 0
			for _, st := range p.Status.ContainerStatuses {
				if st.Ready {
					ready++
				}
			}
			fmt.Fprintf(w, "%s\t%d/%d\t%s\t%s\t%s\n", p.Name, ready, len(p.Spec.Containers), p.Status.Phase, p.Spec.NodeName, p.Status.PodIP)
			pl.nodes[p.Labels["app"]] = p.Spec.NodeName
		}
		w.Flush()
		pl.table = b.String()
		return pl
	}
	return runPlacing{err: fmt.Errorf("no live daprperf-* namespace")}
}

// checkPlacing logs a run's pods table and, on a cluster of two or more nodes, checks that the
// tester ran on the first node (labelled load) and the target app on another (labelled target).
func checkPlacing(t *testing.T, c *node.Cluster, pl runPlacing) {
	t.Helper()
	if pl.err != nil {
		t.Errorf("pods of the run %s: %v", pl.ns, pl.err)
		return
	}
	t.Logf("kubectl -n %s get pods -o wide:\n%s", pl.ns, pl.table)
	tester, target := pl.nodes["tester"], pl.nodes["testapp"]
	if tester == "" || target == "" {
		t.Errorf("run %s: tester on %q, testapp on %q: want both scheduled", pl.ns, tester, target)
		return
	}
	if nodes := c.Nodes(); len(nodes) >= 2 && (tester != nodes[0].Name || target == tester) {
		t.Errorf("run %s: tester on %s, testapp on %s: want the tester on %s (role load) and testapp on another node", pl.ns, tester, target, nodes[0].Name)
	}
}

// checkRecordedNodes checks the result file's record of where each process ran: the tester,
// the target app and their sidecars each on a node of the cluster, the tester's side apart from
// the target's when there are two or more nodes.
func checkRecordedNodes(t *testing.T, c *node.Cluster, tr string, r resultFile) {
	t.Helper()
	known := map[string]bool{}
	var names []string
	for _, n := range c.Nodes() {
		known[n.Name] = true
		names = append(names, n.Name)
	}
	nodes := r.Environment.Nodes
	if len(nodes) == 0 {
		t.Errorf("%s: the result records no node", tr)
		return
	}
	for _, proc := range []string{"tester", perf.SidecarName("tester"), "testapp", perf.SidecarName("testapp")} {
		if !known[nodes[proc]] {
			t.Errorf("%s: result records %s on node %q, want one of %v", tr, proc, nodes[proc], names)
		}
	}
	if len(known) >= 2 && nodes["tester"] == nodes["testapp"] {
		t.Errorf("%s: result records tester and testapp both on %s, want different nodes", tr, nodes["tester"])
	}
	t.Logf("%s: the result records the nodes %v", tr, nodes)
}
