//go:build linux

package node

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/jackc/pgx/v5"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/redis/go-redis/v9"
	corev1 "k8s.io/api/core/v1"
)

// scratchChecks are, by backend, the ports its pod uses (each replaced by a free one on the
// loopback) and a client's round trip against it, which returns the server's version.
var scratchChecks = map[string]struct {
	ports []int32
	check func(ctx context.Context, l listenOn) (string, error)
}{
	RedisService:      {[]int32{RedisPort}, checkRedis},
	PostgreSQLService: {[]int32{PostgreSQLPort}, checkPostgres},
	MQTTService:       {[]int32{MQTTPort}, checkMQTT},
	RabbitMQService:   {[]int32{RabbitMQPort, rabbitmqEPMDPort, rabbitmqDistPort}, checkRabbitMQ},
}

// TestBackendImagesRunFromScratch runs each backend's image as the cluster would, without one:
// it writes the image's tarball, extracts its one layer into an empty folder, and runs the
// backend's pod there as a kubelet would (scratchPod.run): init containers to their end, then
// the container until its readiness probe passes, each in a PID and mount namespace of its own
// with the folder as its root, as the image's user. The pod listens on 127.0.0.1 only, at free
// ports. A client then makes a round trip: a key set and read back (Redis), SELECT 1 and a
// table written and read (PostgreSQL), a message published and received (MQTT, AMQP). Every
// container is stopped by PID at the end, SIGTERM then SIGKILL, and the test fails if a process
// is left in the folder (a daemon such as epmd, say). Needs root and
// unshare (util-linux); a backend whose Debian package is missing is skipped.
func TestBackendImagesRunFromScratch(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: it runs each backend's pod in a chroot with unshare (mknod, chroot, namespaces)")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skipf("unshare is missing (install Debian's util-linux): %v", err)
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			if !b.installed() {
				t.Skipf("%s is not installed (apt-get install %s, or make test-deps)", b.name, b.pkg)
			}
			sc, ok := scratchChecks[b.name]
			if !ok {
				t.Fatalf("no client check for backend %s", b.name)
			}
			t0 := time.Now()
			im, err := b.image(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			tarball := filepath.Join(dir, "image.tar")
			if err := WriteImageTarball(tarball, im); err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Stat(tarball)
			tImage := time.Since(t0)
			t1 := time.Now()
			root := filepath.Join(dir, "root")
			img, err := extractImage(tarball, root)
			if err != nil {
				t.Fatal(err)
			}
			tExtract := time.Since(t1)
			l := listenOn{addr: "127.0.0.1", ports: map[int32]int32{}}
			for _, p := range sc.ports {
				l.ports[p] = freePort(t)
			}
			var config map[string]string
			if b.config != nil {
				config = b.config(l)
			}
			sp := &scratchPod{t: t, unshare: unshare, root: root, img: img}
			timings := sp.run(b.pod(im, l), config, 3*time.Minute)
			t2 := time.Now()
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			version, err := sc.check(ctx, l)
			if err != nil {
				t.Fatalf("%s at %s: %v", b.name, net.JoinHostPort(l.addr, fmt.Sprint(l.port(b.port))), err)
			}
			t.Logf("%s (%s): image %.1f MB written in %v, extracted in %v; %s; client round trip %v",
				b.name, version, float64(fi.Size())/1e6, tImage.Round(time.Millisecond), tExtract.Round(time.Millisecond),
				timings, time.Since(t2).Round(time.Millisecond))
		})
	}
}

// extractImage reads the image tarball WriteImageTarball wrote and writes its layer's folders
// and files under root, with their modes, owned by root as containerd unpacks them.
func extractImage(tarball, root string) (*imageTarball, error) {
	img, err := readImageTarball(tarball)
	if err != nil {
		return nil, err
	}
	for _, d := range slices.Sorted(maps.Keys(img.dirs)) { // parents first
		p := filepath.Join(root, d)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, err
		}
		if err := os.Chmod(p, os.FileMode(img.dirs[d]&0o777)|modeBits(img.dirs[d])); err != nil {
			return nil, err
		}
	}
	for name, f := range img.files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, f.data, 0o600); err != nil {
			return nil, err
		}
		if err := os.Chmod(p, os.FileMode(f.mode&0o777)); err != nil {
			return nil, err
		}
	}
	return img, nil
}

// modeBits turns a tar mode's sticky bit (/tmp is 1777) into Go's.
func modeBits(mode int64) os.FileMode {
	if mode&0o1000 != 0 {
		return os.ModeSticky
	}
	return 0
}

// freePort is a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int32 {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return int32(ln.Addr().(*net.TCPAddr).Port)
}

// scratchPod runs a pod's containers in root, the extracted image img, with unshare.
type scratchPod struct {
	t       *testing.T
	unshare string
	root    string
	img     *imageTarball
	log     scratchLog
}

// run prepares root as a container's runtime and kubelet would (devices, /proc, /etc/hosts,
// the volumes: an emptyDir is an empty folder anyone may write, a ConfigMap's files come from
// config), runs the init containers to their end, then starts the one container and waits until
// its readiness probe passes, within timeout. The container runs until the test ends. It
// returns how long each step took.
func (p *scratchPod) run(pod corev1.PodSpec, config map[string]string, timeout time.Duration) string {
	t := p.t
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the pod's log:\n%s", p.log.String())
		}
	})
	// Registered before any process starts, so it runs after each is stopped.
	t.Cleanup(func() { p.noneLeft() })
	if err := p.prepare(pod, config); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(timeout)
	var timings []string
	for _, c := range pod.InitContainers {
		t0 := time.Now()
		if err := p.runToEnd(c.Name, p.argv(c), p.env(c), time.Until(deadline)); err != nil {
			t.Fatalf("init container %s: %v", c.Name, err)
		}
		timings = append(timings, fmt.Sprintf("init container %s %v", c.Name, time.Since(t0).Round(time.Millisecond)))
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("pod has %d containers; the backends have one", len(pod.Containers))
	}
	c := pod.Containers[0]
	t0 := time.Now()
	proc := p.start(c.Name, p.argv(c), p.env(c))
	var last error
	for {
		if last = p.probe(c); last == nil {
			break
		}
		select {
		case <-proc.done:
			t.Fatalf("container %s exited (%v) before its readiness probe passed: %v", c.Name, proc.err, last)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("container %s not ready after %v: %v", c.Name, timeout, last)
		}
	}
	p.checkCredentials(proc)
	return strings.Join(append(timings, fmt.Sprintf("ready %v after start", time.Since(t0).Round(time.Millisecond))), ", ")
}

// prepare makes what a pod's root has besides the image: the device nodes runc creates, the
// mount points of /proc and /dev/shm, the kubelet's /etc/hosts, and the volumes.
func (p *scratchPod) prepare(pod corev1.PodSpec, config map[string]string) error {
	for _, d := range []string{"dev", "dev/shm", "proc", "etc"} {
		if err := os.MkdirAll(filepath.Join(p.root, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.Chmod(filepath.Join(p.root, "dev/shm"), 0o777|os.ModeSticky); err != nil {
		return err
	}
	for name, minor := range map[string]int{"null": 3, "zero": 5, "full": 7, "random": 8, "urandom": 9} {
		path := filepath.Join(p.root, "dev", name)
		if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|minor); err != nil {
			return fmt.Errorf("mknod %s: %w", path, err)
		}
		if err := os.Chmod(path, 0o666); err != nil {
			return err
		}
	}
	hosts := "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
	if err := os.WriteFile(filepath.Join(p.root, "etc/hosts"), []byte(hosts), 0o644); err != nil {
		return err
	}
	mounts := map[string][]string{}
	for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		for _, m := range c.VolumeMounts {
			mounts[m.Name] = append(mounts[m.Name], m.MountPath)
		}
	}
	for _, v := range pod.Volumes {
		for _, mp := range mounts[v.Name] {
			dir := filepath.Join(p.root, mp)
			switch {
			case v.EmptyDir != nil:
				if err := os.MkdirAll(dir, 0o777); err != nil {
					return err
				}
				if err := os.Chmod(dir, 0o777); err != nil {
					return err
				}
			case v.ConfigMap != nil:
				if config == nil {
					return fmt.Errorf("volume %s: ConfigMap %s, and the backend has no config", v.Name, v.ConfigMap.Name)
				}
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return err
				}
				for name, text := range config {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
						return err
					}
				}
			default:
				return fmt.Errorf("volume %s: only emptyDir and ConfigMap volumes are supported here", v.Name)
			}
		}
	}
	return nil
}

// argv is what a container runs: its command, else the image's entrypoint, then its args (as
// for an image without Cmd).
func (p *scratchPod) argv(c corev1.Container) []string {
	if len(c.Command) == 0 {
		return append(slices.Clone(p.img.entrypoint), c.Args...)
	}
	return append(slices.Clone(c.Command), c.Args...)
}

// env is a container's environment: the image's, then the container's, which wins.
func (p *scratchPod) env(c corev1.Container) []string {
	env := slices.Clone(p.img.env)
	for _, v := range c.Env {
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, v.Name+"=") })
		env = append(env, v.Name+"="+v.Value)
	}
	return env
}

// command runs argv in root as the image's user, in new PID and mount namespaces with /proc
// mounted; unshare's death kills the namespace's first process, and the kernel then every other
// process of the namespace (daemons such as epmd too).
func (p *scratchPod) command(argv, env []string) *exec.Cmd {
	uid, gid, _ := strings.Cut(p.img.user, ":")
	args := []string{"--pid", "--fork", "--kill-child", "--mount-proc=/proc", "--root=" + p.root, "--wd=/",
		"--setuid", uid, "--setgid", gid, "--"}
	cmd := exec.Command(p.unshare, append(args, argv...)...)
	cmd.Env = env
	return cmd
}

// scratchProc is a running container: unshare, its child the container's first process.
type scratchProc struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// initPID is the container's first process, unshare's child (PID 1 of its namespace); 0 when
// there is none.
func (proc *scratchProc) initPID() int {
	pid := proc.cmd.Process.Pid
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	first, _, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
	child, _ := strconv.Atoi(first)
	return child
}

// start starts argv for the rest of the test; its output goes to the pod's log under name.
func (p *scratchPod) start(name string, argv, env []string) *scratchProc {
	p.t.Helper()
	cmd := p.command(argv, env)
	w := p.log.writer(name)
	cmd.Stdout, cmd.Stderr = w, w
	cmd.WaitDelay = 5 * time.Second // should a process outside the namespace hold the output
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("start %s: %v", name, err)
	}
	proc := &scratchProc{cmd: cmd, done: make(chan struct{})}
	go func() { proc.err = cmd.Wait(); w.Close(); close(proc.done) }()
	p.t.Cleanup(func() { p.stop(name, proc) })
	return proc
}

// stop stops a container as the kubelet does: SIGTERM to its first process (the namespace's
// init; unshare waits for it), then, after 10 s, SIGKILL, with which the kernel kills every
// other process of the namespace. By PID both: unshare's --kill-child does not hold once the
// child has switched to the image's user (a change of credentials clears the parent-death
// signal).
func (p *scratchPod) stop(name string, proc *scratchProc) {
	select {
	case <-proc.done:
		return
	default:
	}
	pid := proc.initPID()
	if pid == 0 { // not forked yet, or gone: unshare itself
		pid = proc.cmd.Process.Pid
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	select {
	case <-proc.done:
		return
	case <-time.After(10 * time.Second):
		p.t.Logf("%s (pid %d) still running 10 s after SIGTERM: SIGKILL", name, pid)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	select {
	case <-proc.done:
	case <-time.After(10 * time.Second):
		p.t.Errorf("%s (pid %d) still running 10 s after SIGKILL", name, pid)
	}
}

// runToEnd runs argv to its end, at most timeout; an exit other than 0 is an error.
func (p *scratchPod) runToEnd(name string, argv, env []string, timeout time.Duration) error {
	proc := p.start(name, argv, env)
	select {
	case <-proc.done:
		return proc.err
	case <-time.After(timeout):
		p.stop(name, proc)
		return fmt.Errorf("still running after %v", timeout)
	}
}

// probe runs c's readiness probe once: a TCP connection to the port on 127.0.0.1, or the
// command in root (exit 0, within 5 s).
func (p *scratchPod) probe(c corev1.Container) error {
	h := c.ReadinessProbe
	switch {
	case h == nil:
		return fmt.Errorf("container %s has no readiness probe", c.Name)
	case h.TCPSocket != nil:
		conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", h.TCPSocket.Port.String()), time.Second)
		if err != nil {
			return err
		}
		return conn.Close()
	case h.Exec != nil:
		cmd := p.command(h.Exec.Command, p.env(c))
		out := &limitedBuffer{max: 4 << 10}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			return err
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("%q: %v: %s", h.Exec.Command, err, strings.TrimSpace(out.String()))
			}
			return nil
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			return fmt.Errorf("%q: no answer within 5 s", h.Exec.Command)
		}
	}
	return fmt.Errorf("container %s: only TCP and exec probes are supported here", c.Name)
}

// checkCredentials checks that the container's first process (unshare's child) runs as the
// image's user, with no supplementary group: as the pod would, not as root.
func (p *scratchPod) checkCredentials(proc *scratchProc) {
	p.t.Helper()
	child := proc.initPID()
	if child == 0 {
		p.t.Fatalf("unshare (pid %d) has no child", proc.cmd.Process.Pid)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", child))
	if err != nil {
		p.t.Fatalf("the container's process %d: %v", child, err)
	}
	uid, gid, _ := strings.Cut(p.img.user, ":")
	fields := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(status)))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok {
			fields[k] = strings.Join(strings.Fields(v), " ")
		}
	}
	want := map[string]string{"Uid": strings.Repeat(uid+" ", 3) + uid, "Gid": strings.Repeat(gid+" ", 3) + gid, "Groups": ""}
	for k, v := range want {
		if fields[k] != v {
			p.t.Errorf("the container's process %d: %s %q, want %q", child, k, fields[k], v)
		}
	}
}

// noneLeft fails the test, and kills them by PID, if processes with root as their root remain.
func (p *scratchPod) noneLeft() {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		r, err := os.Readlink(fmt.Sprintf("/proc/%d/root", pid))
		if err != nil || (r != p.root && !strings.HasPrefix(r, p.root+"/")) {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		p.t.Errorf("process %d (%s) still runs in the pod's root: killing it", pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// scratchLog is the pod's output, each line prefixed with its container's name.
type scratchLog struct {
	mu    sync.Mutex
	lines []string
}

// writer adds what is written to it to the log, line by line, until it is closed.
func (l *scratchLog) writer(name string) io.WriteCloser {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			l.mu.Lock()
			l.lines = append(l.lines, name+": "+sc.Text())
			l.mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, pr) // after a line too long: never block the writer
	}()
	return pw
}

// String is the log's last 100 lines.
func (l *scratchLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines[max(0, len(l.lines)-100):], "\n")
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	max int
	b   []byte
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - len(b.b); room > 0 {
		b.b = append(b.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string { return string(b.b) }

func checkRedis(ctx context.Context, l listenOn) (string, error) {
	rdb := redis.NewClient(&redis.Options{Addr: net.JoinHostPort(l.addr, fmt.Sprint(l.port(RedisPort)))})
	defer rdb.Close()
	if err := rdb.Set(ctx, "daprperf", "scratch", 0).Err(); err != nil {
		return "", fmt.Errorf("SET: %w", err)
	}
	if v, err := rdb.Get(ctx, "daprperf").Result(); err != nil || v != "scratch" {
		return "", fmt.Errorf("GET: %q, %v; want scratch", v, err)
	}
	info, err := rdb.Info(ctx, "server").Result()
	if err != nil {
		return "", fmt.Errorf("INFO: %w", err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			return v, nil
		}
	}
	return "", nil
}

func checkPostgres(ctx context.Context, l listenOn) (string, error) {
	url := fmt.Sprintf("postgres://%s@%s/postgres?sslmode=disable", PostgreSQLUser, net.JoinHostPort(l.addr, fmt.Sprint(l.port(PostgreSQLPort))))
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		return "", fmt.Errorf("SELECT 1: %d, %v", one, err)
	}
	// What a state store does: a table of JSON values, written and read back.
	if _, err := conn.Exec(ctx, "CREATE TABLE state (key text PRIMARY KEY, value jsonb, updated timestamptz DEFAULT now())"); err != nil {
		return "", fmt.Errorf("CREATE TABLE: %w", err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO state (key, value) VALUES ($1, $2)", "k", `{"a": "b"}`); err != nil {
		return "", fmt.Errorf("INSERT: %w", err)
	}
	var v string
	if err := conn.QueryRow(ctx, "SELECT value->>'a' FROM state WHERE key = $1", "k").Scan(&v); err != nil || v != "b" {
		return "", fmt.Errorf("SELECT: %q, %v; want b", v, err)
	}
	var version, tz string
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('TimeZone')").Scan(&version, &tz); err != nil {
		return "", err
	}
	return version + " (TimeZone " + tz + ")", nil
}

func checkMQTT(ctx context.Context, l listenOn) (string, error) {
	opts := mqtt.NewClientOptions().AddBroker("tcp://" + net.JoinHostPort(l.addr, fmt.Sprint(l.port(MQTTPort)))).
		SetClientID("daprperf-scratch").SetConnectTimeout(5 * time.Second).SetAutoReconnect(false).SetCleanSession(true)
	c := mqtt.NewClient(opts)
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		return "", fmt.Errorf("connect: %v", tok.Error())
	}
	defer c.Disconnect(0)
	got := make(chan string, 2)
	handler := func(_ mqtt.Client, m mqtt.Message) { got <- m.Topic() + " " + string(m.Payload()) }
	for _, topic := range []string{"daprperf/scratch", mqttVersionTopic} {
		if tok := c.Subscribe(topic, 1, handler); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			return "", fmt.Errorf("subscribe %s: %v", topic, tok.Error())
		}
	}
	if tok := c.Publish("daprperf/scratch", 1, false, "hello"); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		return "", fmt.Errorf("publish: %v", tok.Error())
	}
	var version string
	received := false
	for !received || version == "" {
		select {
		case m := <-got:
			if v, ok := strings.CutPrefix(m, mqttVersionTopic+" "); ok {
				version = v
			} else if m == "daprperf/scratch hello" {
				received = true
			}
		case <-ctx.Done():
			return "", fmt.Errorf("message received %v, version %q: %w", received, version, ctx.Err())
		}
	}
	return version, nil
}

// mqttVersionTopic is where Mosquitto publishes its version, retained.
const mqttVersionTopic = "$SYS/broker/version"

func checkRabbitMQ(ctx context.Context, l listenOn) (string, error) {
	url := fmt.Sprintf("amqp://%s:%s@%s/", RabbitMQUser, RabbitMQPassword, net.JoinHostPort(l.addr, fmt.Sprint(l.port(RabbitMQPort))))
	conn, err := amqp.DialConfig(url, amqp.Config{Dial: amqp.DefaultDial(5 * time.Second)})
	if err != nil {
		return "", fmt.Errorf("dial: %w", err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return "", fmt.Errorf("channel: %w", err)
	}
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		return "", fmt.Errorf("declare queue: %w", err)
	}
	if err := ch.PublishWithContext(ctx, "", q.Name, false, false, amqp.Publishing{Body: []byte("hello")}); err != nil {
		return "", fmt.Errorf("publish: %w", err)
	}
	for {
		m, ok, err := ch.Get(q.Name, true)
		if err != nil {
			return "", fmt.Errorf("get: %w", err)
		}
		if ok {
			if string(m.Body) != "hello" {
				return "", fmt.Errorf("got %q, want hello", m.Body)
			}
			break
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("no message in %s: %w", q.Name, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	v, _ := conn.Properties["version"].(string)
	return v, nil
}
