package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
)

// The in-cluster RabbitMQ that BackendsUp starts: Debian's rabbitmq-server, whose guest user may
// log in from other pods (loopback_users is empty), since the tester's direct publisher logs in
// as guest/guest, as on the local platform's broker.
const (
	RabbitMQService  = "rabbitmq"
	RabbitMQPort     = 5672
	RabbitMQUser     = "guest"
	RabbitMQPassword = "guest"
)

// The node's Erlang ports: epmd's and the distribution's, both on the pod's loopback only.
const (
	rabbitmqEPMDPort = 4369
	rabbitmqDistPort = 25672
)

// rabbitmqScript is the start script of Debian's rabbitmq-server (a link to the release's
// sbin/rabbitmq-server; /usr/sbin/rabbitmq-server wraps it to switch users), and erlangRoot the
// Erlang release it runs (erlang-base).
const (
	rabbitmqScript = "/usr/lib/rabbitmq/bin/rabbitmq-server"
	erlangRoot     = "/usr/lib/erlang"
)

// rabbitmqHome is the pod's emptyDir: HOME (the Erlang cookie), the Mnesia database and logs.
const rabbitmqHome = "/var/lib/rabbitmq"

var rabbitmqImageName = ImageRegistry + "/rabbitmq:" + ImageTag

// rabbitmqBackend runs rabbitmq-server, its settings in the environment (rabbitmqEnv).
var rabbitmqBackend = &backend{
	name: RabbitMQService,
	port: RabbitMQPort,
	pkg:  "rabbitmq-server",
	installed: func() bool {
		_, err := os.Stat(rabbitmqScript)
		_, errErl := os.Stat(erlangRoot)
		return err == nil && errErl == nil
	},
	image: rabbitmqImage,
	pod: func(im Image, l listenOn) corev1.PodSpec {
		port := l.port(RabbitMQPort)
		return corev1.PodSpec{
			Volumes: []corev1.Volume{emptyDir("data")},
			Containers: []corev1.Container{backendContainer(RabbitMQService, im, port, tcpProbe(port), nil, rabbitmqEnv(l),
				corev1.VolumeMount{Name: "data", MountPath: rabbitmqHome})},
		}
	},
}

// rabbitmqImage is an image of the host's RabbitMQ (hostImage) started by its own scripts: the
// release's folder, the Erlang release, dash as /bin/sh with the programs the scripts and the
// broker run (dirname, basename; df for the free disk space, getconf for the page size), and
// an /etc/nsswitch.conf that reads /etc/hosts before DNS (the node's host, localhost, is in the
// pod's /etc/hosts; glibc's default without the file asks DNS first and stops at its "no such
// name").
func rabbitmqImage(ctx context.Context) (Image, error) {
	script, err := filepath.EvalSymlinks(rabbitmqScript)
	if err != nil {
		return Image{}, fmt.Errorf("rabbitmq image: %w (install Debian's rabbitmq-server)", err)
	}
	release := filepath.Dir(filepath.Dir(script)) // <release>/sbin/rabbitmq-server
	return hostImage(ctx, hostImageSpec{
		name:     rabbitmqImageName,
		pkg:      "rabbitmq-server",
		programs: []string{"/bin/sh", "/usr/bin/dirname", "/usr/bin/basename", "/usr/bin/df", "/usr/bin/getconf"},
		args:     []string{script},
		trees:    []string{release, erlangRoot},
		files:    []ImageFile{{Path: "/etc/nsswitch.conf", Mode: 0o644, Data: []byte("hosts: files dns\n")}},
		env:      []string{"PATH=" + erlangRoot + "/bin:/usr/bin:/bin"},
		user:     backendUser,
	})
}

// rabbitmqEnv configures the broker as rabbit_env reads it: node rabbit@localhost, AMQP at l,
// epmd and the distribution on loopback (nothing outside the pod joins the node), its files in
// rabbitmqHome, the log on stdout (the image has no /etc/rabbitmq: no configuration files),
// RabbitMQUser created at the first start and let in from any host (rabbit's loopback_users
// empty). RABBITMQ_ALLOW_INPUT makes the script exec the VM (it stays the container's
// process, which gets the kubelet's signals) and -noinput keeps the Erlang shell off.
func rabbitmqEnv(l listenOn) []corev1.EnvVar {
	vars := [][2]string{
		{"HOME", rabbitmqHome},
		{"RABBITMQ_NODENAME", "rabbit@localhost"},
		{"RABBITMQ_NODE_IP_ADDRESS", l.addr},
		{"RABBITMQ_NODE_PORT", fmt.Sprint(l.port(RabbitMQPort))},
		{"RABBITMQ_DIST_PORT", fmt.Sprint(l.port(rabbitmqDistPort))},
		{"ERL_EPMD_ADDRESS", "127.0.0.1"},
		{"ERL_EPMD_PORT", fmt.Sprint(l.port(rabbitmqEPMDPort))},
		{"RABBITMQ_MNESIA_BASE", rabbitmqHome + "/mnesia"},
		{"RABBITMQ_LOG_BASE", rabbitmqHome + "/log"},
		{"RABBITMQ_LOGS", "-"},
		{"RABBITMQ_DEFAULT_USER", RabbitMQUser},
		{"RABBITMQ_DEFAULT_PASS", RabbitMQPassword},
		{"RABBITMQ_ALLOW_INPUT", "true"},
		{"RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS", "-noinput -kernel inet_dist_use_interface {127,0,0,1} -rabbit loopback_users []"},
	}
	env := make([]corev1.EnvVar, len(vars))
	for i, v := range vars {
		env[i] = corev1.EnvVar{Name: v[0], Value: v[1]}
	}
	return env
}

// RabbitMQAddr is the in-cluster address of BackendsUp's RabbitMQ, the value of
// DAPR_PERF_RABBITMQ_ADDR for a run on this cluster, with RabbitMQUser and RabbitMQPassword.
func RabbitMQAddr() string { return backendAddr(RabbitMQService, RabbitMQPort) }
