package node

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daprperf/daprperf/kube"
)

// BackendNamespace holds the in-cluster stores and brokers BackendsUp starts, each a
// Deployment of one pod behind a ClusterIP Service (the perf runs make and delete namespaces
// of their own).
const BackendNamespace = "daprperf-backends"

// backendUser is the user every backend image runs as: unprivileged (postgres refuses root,
// and the others need no privilege).
const backendUser = "65532:65532"

// backend is one in-cluster store or broker: a Debian program of this machine in a FROM-scratch
// image, run by a Deployment of one pod behind a ClusterIP Service, both named name.
type backend struct {
	name string // the Deployment's, Service's and container's name, and the pods' app label
	port int32  // the Service's port: the program's usual one
	pkg  string // the Debian package that installs the program, for messages
	// installed says whether the program is on this machine (writeImages builds the image then).
	installed func() bool
	image     func(ctx context.Context) (Image, error)
	// pod runs im listening at l. Its probes and ports name l's ports.
	pod func(im Image, l listenOn) corev1.PodSpec
	// config is the data of the ConfigMap named name that pod mounts; nil when it mounts none.
	config func(l listenOn) map[string]string
}

// backends are every backend BackendsUp knows, in start order.
var backends = []*backend{redisBackend, postgresBackend, mqttBackend, rabbitmqBackend}

// builtBackend is a backend whose image writeImages wrote.
type builtBackend struct {
	*backend
	image Image
}

// listenOn is where a backend's pod listens. In the cluster (inCluster) that is every interface
// of the pod at the program's usual ports; the chroot tests run the same pod on the host's
// loopback, each usual port replaced by a free one.
type listenOn struct {
	addr  string          // the address the program binds, such as "0.0.0.0"
	ports map[int32]int32 // usual port -> the one to use; a missing one is kept
}

// inCluster is how every backend listens in its pod.
var inCluster = listenOn{addr: "0.0.0.0"}

// port is the port to use in place of usual.
func (l listenOn) port(usual int32) int32 {
	if p, ok := l.ports[usual]; ok {
		return p
	}
	return usual
}

// backendAddr is the in-cluster address of a backend's Service: its DNS name and port.
func backendAddr(service string, port int32) string {
	return net.JoinHostPort(service+"."+BackendNamespace+".svc."+ClusterDomain, fmt.Sprint(port))
}

// backendImages describes the image of every backend whose program is installed, records them
// for BackendsUp and logs the others with the package to install.
func (c *Cluster) backendImages(ctx context.Context) ([]imageSpec, error) {
	var specs []imageSpec
	for _, b := range backends {
		if !b.installed() {
			c.logf("in-cluster %s: no image, BackendsUp will not start it (apt-get install %s)", b.name, b.pkg)
			continue
		}
		im, err := b.image(ctx)
		if err != nil {
			return nil, err
		}
		specs = append(specs, imageSpec{image: im})
		c.backends = append(c.backends, builtBackend{backend: b, image: im})
	}
	return specs, nil
}

// BackendsUp starts every in-cluster backend whose image the cluster imported (Start writes one
// per Debian program installed: redis-server, postgresql, mosquitto, rabbitmq-server), each a
// Deployment and Service in BackendNamespace, and returns once all are available, within
// timeout. Their addresses are RedisAddr, PostgreSQLAddr, MQTTAddr and RabbitMQAddr. Stop removes
// them with the cluster. It is an error when no backend's image was written.
func (c *Cluster) BackendsUp(ctx context.Context, timeout time.Duration) error {
	if len(c.backends) == 0 {
		var pkgs []string
		for _, b := range backends {
			pkgs = append(pkgs, b.pkg)
		}
		return fmt.Errorf("in-cluster backends: no image: none of them was installed when the cluster started (apt-get install %s)", strings.Join(pkgs, " "))
	}
	deadline := time.Now().Add(timeout)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: BackendNamespace}}
	if _, err := c.cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("namespace %s: %w", BackendNamespace, err)
	}
	for _, b := range c.backends {
		if err := c.createBackend(ctx, b); err != nil {
			return err
		}
	}
	// They start together; each is marked when the wait reaches it and it is available.
	for _, b := range c.backends {
		part := "in-cluster " + b.name
		if err := waitFor(part, nil, time.Until(deadline), func() error { return c.deploymentAvailable(ctx, BackendNamespace, b.name) }); err != nil {
			var pe *PartError
			if errors.As(err, &pe) {
				pe.Log = c.podLogs(ctx, BackendNamespace, b.name)
			}
			return err
		}
		c.mark(part)
	}
	return nil
}

// createBackend creates b's ConfigMap (when it has one), Deployment and Service; those that
// exist already are left as they are.
func (c *Cluster) createBackend(ctx context.Context, b builtBackend) error {
	labels := map[string]string{"app": b.name}
	meta := metav1.ObjectMeta{Name: b.name, Namespace: BackendNamespace, Labels: labels}
	if b.config != nil {
		cm := &corev1.ConfigMap{ObjectMeta: meta, Data: b.config(inCluster)}
		if _, err := c.cs.CoreV1().ConfigMaps(BackendNamespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("configmap %s/%s: %w", BackendNamespace, b.name, err)
		}
	}
	one := int32(1)
	dep := &appsv1.Deployment{
		ObjectMeta: meta,
		Spec: appsv1.DeploymentSpec{
			Replicas: &one,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: c.onTargetNodes(b.pod(b.image, inCluster))},
		},
	}
	if _, err := c.cs.AppsV1().Deployments(BackendNamespace).Create(ctx, dep, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("deployment %s/%s: %w", BackendNamespace, b.name, err)
	}
	svc := &corev1.Service{
		ObjectMeta: meta,
		Spec: corev1.ServiceSpec{
			Selector: labels,
			Ports:    []corev1.ServicePort{{Name: b.name, Port: b.port, TargetPort: intstr.FromInt32(b.port)}},
		},
	}
	if _, err := c.cs.CoreV1().Services(BackendNamespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("service %s/%s: %w", BackendNamespace, b.name, err)
	}
	return nil
}

// onTargetNodes is spec kept on the nodes labelled kube.NodeRoleTarget when the cluster has
// any (two nodes or more): a backend is on the side of the apps the testers load, whose
// sidecars use it, so that a tester's calls to it cross the network between nodes as its calls
// to the apps do. On one node it goes there.
func (c *Cluster) onTargetNodes(spec corev1.PodSpec) corev1.PodSpec {
	for _, n := range c.nodes {
		if n.Role == kube.NodeRoleTarget {
			spec.NodeSelector = map[string]string{kube.NodeRoleLabel: kube.NodeRoleTarget}
		}
	}
	return spec
}

// backendContainer is the container of a backend's pod: image im's entrypoint with args, env,
// and the volumes mounted; it is ready once probe succeeds, polled every second.
func backendContainer(name string, im Image, port int32, probe corev1.ProbeHandler, args []string, env []corev1.EnvVar, mounts ...corev1.VolumeMount) corev1.Container {
	return corev1.Container{
		Name:            name,
		Image:           im.Name,
		ImagePullPolicy: corev1.PullNever,
		Args:            args,
		Env:             env,
		Ports:           []corev1.ContainerPort{{Name: name, ContainerPort: port}},
		VolumeMounts:    mounts,
		ReadinessProbe:  &corev1.Probe{ProbeHandler: probe, PeriodSeconds: 1},
	}
}

// tcpProbe is ready once port accepts a connection.
func tcpProbe(port int32) corev1.ProbeHandler {
	return corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(port)}}
}

// emptyDir is a pod volume of that name, empty at the pod's start and gone with it.
func emptyDir(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
}

// command runs program of im (one of hostImage's programs) as im's entrypoint does: through
// the dynamic loader with the image's library path.
func command(im Image, program string, args ...string) []string {
	return append(append(append([]string(nil), im.Entrypoint[:3]...), program), args...)
}

// hostImageSpec describes an image of programs installed on this machine.
type hostImageSpec struct {
	name string // the image's name
	pkg  string // the Debian package(s) to install when a file is missing, for errors
	// programs are files of this machine (ELF programs), each at its own path in the image;
	// the entrypoint runs programs[0] with args.
	programs []string
	args     []string
	// trees are folders of this machine copied whole, at their own paths, but for the files and
	// folders in skip (and the libraries only they load). A symbolic link to a file becomes a copy of it; one to a folder, or a dangling
	// one, is left out (zoneinfo's posix -> .).
	trees, skip []string
	files       []ImageFile // generated files (Data)
	env         []string    // after LD_LIBRARY_PATH
	user        string
}

// hostImage is the image s describes: its programs, trees and files, and every shared object
// ldd names for the programs and for the ELF files of the trees (the modules they load), each
// at its path on this machine. A FROM-scratch image has no ld.so.cache: the entrypoint starts
// programs[0] through the dynamic loader with an explicit library path, and LD_LIBRARY_PATH
// holds the same folders for the programs it execs (initdb execs postgres; shell scripts run
// erl). The error names the package when a file is missing.
func hostImage(ctx context.Context, s hostImageSpec) (Image, error) {
	im := Image{Name: s.name, User: s.user}
	seen := map[string]bool{}
	var elfs []string
	add := func(path string, mode fs.FileMode) {
		if seen[path] {
			return
		}
		seen[path] = true
		im.Files = append(im.Files, ImageFile{Path: path, Source: path, Mode: int64(mode.Perm())})
		if isELF(path) {
			elfs = append(elfs, path)
		}
	}
	missing := func(err error) error {
		return fmt.Errorf("%s image: %w (install Debian's %s)", s.name, err, s.pkg)
	}
	for _, p := range s.programs {
		fi, err := os.Stat(p)
		if err != nil {
			return Image{}, missing(err)
		}
		add(p, fi.Mode())
	}
	skip := map[string]bool{}
	for _, d := range s.skip {
		skip[d] = true
	}
	for _, t := range s.trees {
		err := filepath.WalkDir(t, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case skip[p] && d.IsDir():
				return filepath.SkipDir
			case skip[p] || d.IsDir():
				return nil
			}
			fi, err := os.Stat(p) // a symbolic link's target
			if err != nil || !fi.Mode().IsRegular() {
				return nil
			}
			add(p, fi.Mode())
			return nil
		})
		if err != nil {
			return Image{}, missing(err)
		}
	}
	// One ldd for all: it exits 1 when one of them is not dynamic (a static helper), and
	// prints the libraries of the others all the same.
	out, err := exec.CommandContext(ctx, "ldd", elfs...).Output()
	var exitErr *exec.ExitError
	if err != nil && !(errors.As(err, &exitErr) && len(out) > 0) {
		return Image{}, fmt.Errorf("%s image: ldd %s: %w", s.name, strings.Join(elfs, " "), err)
	}
	var loader string
	var libPath []string
	dirs := map[string]bool{}
	for _, l := range libraryFiles(out) {
		if strings.HasPrefix(filepath.Base(l), "ld-linux") {
			loader = l
		} else if d := filepath.Dir(l); !dirs[d] {
			dirs[d] = true
			libPath = append(libPath, d)
		}
		if !seen[l] {
			seen[l] = true
			im.Files = append(im.Files, ImageFile{Path: l, Source: l, Mode: 0o755})
		}
	}
	if loader == "" {
		return Image{}, fmt.Errorf("%s image: ldd %s names no dynamic loader (ld-linux*): %s", s.name, s.programs[0], out)
	}
	for _, f := range s.files {
		if !seen[f.Path] {
			seen[f.Path] = true
			im.Files = append(im.Files, f)
		}
	}
	lp := strings.Join(libPath, ":")
	im.Entrypoint = append([]string{loader, "--library-path", lp, s.programs[0]}, s.args...)
	im.Env = append([]string{"LD_LIBRARY_PATH=" + lp}, s.env...)
	return im, nil
}

// isELF says whether path is an ELF file (a program or a shared object).
func isELF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 4)
	_, err = io.ReadFull(f, magic)
	return err == nil && string(magic) == "\x7fELF"
}

// lddLine matches one line of ldd's output that names a file: "libssl.so.3 =>
// /lib/x86_64-linux-gnu/libssl.so.3 (0x...)" or "/lib64/ld-linux-x86-64.so.2 (0x...)".
var lddLine = regexp.MustCompile(`(?:=>\s*)?(/\S+)\s+\(0x[0-9a-f]+\)$`)

// libraryFiles parses ldd's output: the absolute paths of the shared objects a program loads,
// the dynamic loader among them, in order and once each. linux-vdso has no file and is left out,
// and so is a library ldd did not find ("=> not found": a module's optional dependency).
func libraryFiles(lddOutput []byte) []string {
	var out []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(lddOutput))
	for sc.Scan() {
		m := lddLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil || seen[m[1]] {
			continue
		}
		seen[m[1]] = true
		out = append(out, m[1])
	}
	return out
}

// passwdFile is an /etc/passwd naming backendUser name (programs that look their user up, such
// as initdb, find none in a FROM-scratch image otherwise).
func passwdFile(name, home string) ImageFile {
	uid, gid, _ := strings.Cut(backendUser, ":")
	return ImageFile{Path: "/etc/passwd", Mode: 0o644, Data: []byte(name + ":x:" + uid + ":" + gid + "::" + home + ":/bin/sh\n")}
}
