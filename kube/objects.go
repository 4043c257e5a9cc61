package kube

import (
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daprperf/daprperf/perf"
)

// Service port names; the sidecar's exist only for apps with Dapr enabled.
const (
	PortApp            = "app"
	PortSidecarHTTP    = "dapr-http"
	PortSidecarGRPC    = "dapr-grpc"
	PortSidecarMetrics = "dapr-metrics"
	PortSidecarProfile = "dapr-profile"
)

// DeploymentObject is d's Deployment in namespace ns: d.Replicas pods, each with one container
// named d.Name running d.Image with d.Args, a readiness probe on the app's health check, d's
// resources on the container, d.Env, env perf.EnvTesterToken from d.TokenSecret when set, the
// dapr.io annotations on the pod template, d.Placement's pod (anti-)affinity,
// and d.NodeSelector with d.Placement.NodeSelector.
func DeploymentObject(ns string, d AppDescription) *appsv1.Deployment {
	replicas := d.Replicas
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: ns, Labels: d.Labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{LabelApp: d.Name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: d.Labels, Annotations: DaprAnnotations(d)},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name:           d.Name,
						Image:          d.Image,
						Args:           d.Args,
						Ports:          []corev1.ContainerPort{{Name: PortApp, ContainerPort: d.AppPort, Protocol: corev1.ProtocolTCP}},
						Resources:      containerResources(d.Resources),
						ReadinessProbe: readinessProbe(d),
						Env:            append(plainEnv(d.Env), tokenEnv(d)...),
					}},
					Affinity:     podAffinity(d.Placement),
					NodeSelector: mergeSelectors(d.NodeSelector, d.Placement.NodeSelector),
				},
			},
		},
	}
}

// plainEnv is env as container variables, sorted by name; nil when empty.
func plainEnv(env map[string]string) []corev1.EnvVar {
	var out []corev1.EnvVar
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, corev1.EnvVar{Name: k, Value: env[k]})
	}
	return out
}

// tokenEnv is the tester's token variable, read from d.TokenSecret; nil without one.
func tokenEnv(d AppDescription) []corev1.EnvVar {
	if d.TokenSecret == "" {
		return nil
	}
	return []corev1.EnvVar{{
		Name: perf.EnvTesterToken,
		ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: d.TokenSecret},
			Key:                  TokenSecretKey,
		}},
	}}
}

// TokenSecretObject is d's TokenSecret in namespace ns, holding token under TokenSecretKey:
// immutable, with d's labels. The namespace's deletion deletes it; teardown deletes it first.
func TokenSecretObject(ns string, d AppDescription, token string) *corev1.Secret {
	immutable := true
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: d.TokenSecret, Namespace: ns, Labels: d.Labels},
		Type:       corev1.SecretTypeOpaque,
		Immutable:  &immutable,
		Data:       map[string][]byte{TokenSecretKey: []byte(token)},
	}
}

// readinessProbe is the app's own health check: HTTP GET healthPath, or the gRPC health service.
func readinessProbe(d AppDescription) *corev1.Probe {
	p := &corev1.Probe{PeriodSeconds: 2, TimeoutSeconds: 1, FailureThreshold: 3}
	if d.AppProtocol == perf.GRPC {
		p.GRPC = &corev1.GRPCAction{Port: d.AppPort}
	} else {
		p.HTTPGet = &corev1.HTTPGetAction{Path: d.Kind.HealthPath(), Port: intstr.FromInt32(d.AppPort)}
	}
	return p
}

// ServiceObject is d's Service in namespace ns, of type typ, selecting d's pods: the app port
// and, with Dapr enabled, daprd's HTTP, gRPC, metrics and profile ports (named Port*).
func ServiceObject(ns string, d AppDescription, typ corev1.ServiceType) *corev1.Service {
	ports := []corev1.ServicePort{servicePort(PortApp, d.AppPort)}
	if d.DaprEnabled {
		ports = append(ports,
			servicePort(PortSidecarHTTP, SidecarHTTPPort),
			servicePort(PortSidecarGRPC, SidecarGRPCPort),
			servicePort(PortSidecarMetrics, SidecarMetricsPort),
			servicePort(PortSidecarProfile, SidecarProfilePort))
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: ns, Labels: d.Labels},
		Spec: corev1.ServiceSpec{
			Type:     typ,
			Selector: map[string]string{LabelApp: d.Name},
			Ports:    ports,
		},
	}
}

func servicePort(name string, port int32) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Port: port, TargetPort: intstr.FromInt32(port), Protocol: corev1.ProtocolTCP}
}
