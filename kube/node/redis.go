package node

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
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
)

// The in-cluster Redis that BackendsUp starts: Debian's redis-server in a pod, behind a
// ClusterIP Service, in its own namespace (the perf runs make and delete theirs).
const (
	BackendNamespace = "daprperf-backends"
	RedisService     = "redis"
	RedisPort        = 6379
)

// redisServer is Debian's redis-server (package redis-server), which the image carries.
const redisServer = "/usr/bin/redis-server"

// redisImageName is the image of redis-server with the shared libraries it loads.
var redisImageName = ImageRegistry + "/redis:" + ImageTag

// lddLine matches one line of ldd's output that names a file: "libssl.so.3 =>
// /lib/x86_64-linux-gnu/libssl.so.3 (0x...)" or "/lib64/ld-linux-x86-64.so.2 (0x...)".
var lddLine = regexp.MustCompile(`(?:=>\s*)?(/\S+)\s+\(0x[0-9a-f]+\)$`)

// libraryFiles parses ldd's output: the absolute paths of the shared objects a program loads,
// the dynamic loader among them, in order and once each. linux-vdso has no file and is left out.
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

// redisImage is an image of the host's redis-server: the binary at its own path and every
// shared object ldd names at theirs, started through the dynamic loader with an explicit
// library path (a FROM-scratch image has no ld.so.cache). It runs as an unprivileged user
// with no persistence (--save "", --appendonly no), so it needs no writable directory. The
// error names the package when redis-server is missing.
func redisImage(ctx context.Context) (Image, error) {
	out, err := exec.CommandContext(ctx, "ldd", redisServer).Output()
	if err != nil {
		return Image{}, fmt.Errorf("redis image: ldd %s: %w (install Debian's redis-server: make test-kube does)", redisServer, err)
	}
	libs := libraryFiles(out)
	var loader string
	dirs := map[string]bool{}
	var libPath []string
	files := []ImageFile{{Path: redisServer, Source: redisServer, Mode: 0o755}}
	for _, l := range libs {
		files = append(files, ImageFile{Path: l, Source: l, Mode: 0o755})
		if strings.Contains(filepath.Base(l), "ld-linux") {
			loader = l
		} else if d := filepath.Dir(l); !dirs[d] {
			dirs[d] = true
			libPath = append(libPath, d)
		}
	}
	if loader == "" {
		return Image{}, fmt.Errorf("redis image: ldd %s names no dynamic loader (ld-linux*): %s", redisServer, out)
	}
	return Image{
		Name:  redisImageName,
		Files: files,
		Entrypoint: []string{loader, "--library-path", strings.Join(libPath, ":"), redisServer,
			"--bind", "0.0.0.0", "--port", fmt.Sprint(RedisPort), "--protected-mode", "no",
			"--save", "", "--appendonly", "no", "--dir", "/"},
		User: "65532:65532",
	}, nil
}

// RedisAddr is the in-cluster address of BackendsUp's Redis (its Service's DNS name and port),
// the value of DAPR_PERF_REDIS_ADDR for a run on this cluster.
func RedisAddr() string {
	return net.JoinHostPort(RedisService+"."+BackendNamespace+".svc."+ClusterDomain, fmt.Sprint(RedisPort))
}

// BackendsUp starts the in-cluster Redis (Deployment and Service in BackendNamespace) and
// returns once it is available, within timeout. Stop removes it with the cluster; it also
// is an error when the image was not written (Start writes it when redis-server is installed).
func (c *Cluster) BackendsUp(ctx context.Context, timeout time.Duration) error {
	if !c.hasRedisImage {
		return errors.New("in-cluster redis: no image: redis-server was not installed when the cluster started (apt-get install redis-server)")
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: BackendNamespace}}
	if _, err := c.cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("namespace %s: %w", BackendNamespace, err)
	}
	labels := map[string]string{"app": RedisService}
	one := int32(1)
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: RedisService, Namespace: BackendNamespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &one,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name:            RedisService,
					Image:           redisImageName,
					ImagePullPolicy: corev1.PullNever,
					Ports:           []corev1.ContainerPort{{Name: "redis", ContainerPort: RedisPort}},
					ReadinessProbe: &corev1.Probe{
						ProbeHandler:  corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(RedisPort)}},
						PeriodSeconds: 1,
					},
				}}},
			},
		},
	}
	if _, err := c.cs.AppsV1().Deployments(BackendNamespace).Create(ctx, dep, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("deployment %s/%s: %w", BackendNamespace, RedisService, err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: RedisService, Namespace: BackendNamespace, Labels: labels},
		Spec: corev1.ServiceSpec{
			Selector: labels,
			Ports:    []corev1.ServicePort{{Name: "redis", Port: RedisPort, TargetPort: intstr.FromInt32(RedisPort)}},
		},
	}
	if _, err := c.cs.CoreV1().Services(BackendNamespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("service %s/%s: %w", BackendNamespace, RedisService, err)
	}
	if err := waitFor("in-cluster redis", nil, timeout, func() error { return c.deploymentAvailable(ctx, BackendNamespace, RedisService) }); err != nil {
		var pe *PartError
		if errors.As(err, &pe) {
			pe.Log = c.podLogs(ctx, BackendNamespace, RedisService)
		}
		return err
	}
	c.mark("in-cluster redis")
	return nil
}
