package node

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/daprperf/daprperf/perf"

	corev1 "k8s.io/api/core/v1"
)

// The in-cluster MQTT broker that BackendsUp starts: Debian's Mosquitto (package mosquitto),
// anonymous clients allowed.
const (
	MQTTService = "mosquitto"
	MQTTPort    = 1883
)

// mosquitto is Debian's broker, which the image carries.
const mosquitto = "/usr/sbin/mosquitto"

// mqttImageName is the image of mosquitto with the shared libraries it loads.
var mqttImageName = ImageRegistry + "/mosquitto:" + ImageTag

// mqttConfigDir is where the pod mounts the ConfigMap with mosquitto.conf.
const mqttConfigDir = "/etc/mosquitto"

// mqttBackend runs mosquitto with the configuration of its ConfigMap (mqttConfig).
var mqttBackend = &backend{
	name:      MQTTService,
	port:      MQTTPort,
	pkg:       "mosquitto",
	installed: func() bool { _, err := os.Stat(mosquitto); return err == nil },
	image: func(ctx context.Context) (Image, error) {
		return hostImage(ctx, hostImageSpec{name: mqttImageName, pkg: "mosquitto", programs: []string{mosquitto}, user: backendUser})
	},
	pod: func(im Image, l listenOn) corev1.PodSpec {
		port := l.port(MQTTPort)
		config := corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: MQTTService}}}}
		return corev1.PodSpec{
			Volumes: []corev1.Volume{config},
			Containers: []corev1.Container{backendContainer(MQTTService, im, port, tcpProbe(port),
				[]string{"-c", mqttConfigDir + "/mosquitto.conf"}, nil, corev1.VolumeMount{Name: "config", MountPath: mqttConfigDir})},
		}
	},
	config: mqttConfig,
}

// mqttConfig is mosquitto.conf: one listener at l, anonymous clients, no persistence (no
// writable folder), a per-client queue of perf.MQTTMaxQueuedMessages, the log on stderr.
// Started unprivileged, mosquitto switches to no user.
func mqttConfig(l listenOn) map[string]string {
	return map[string]string{"mosquitto.conf": strings.Join([]string{
		fmt.Sprintf("listener %d %s", l.port(MQTTPort), l.addr),
		"allow_anonymous true",
		"persistence false",
		"max_queued_messages " + strconv.Itoa(perf.MQTTMaxQueuedMessages),
		"log_dest stderr",
	}, "\n") + "\n"}
}

// MQTTAddr is the in-cluster address of BackendsUp's Mosquitto, the value of
// DAPR_PERF_MQTT_ADDR for a run on this cluster (anonymous: no user or password).
func MQTTAddr() string { return backendAddr(MQTTService, MQTTPort) }
