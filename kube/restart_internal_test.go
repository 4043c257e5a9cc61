package kube

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	"github.com/daprperf/daprperf/perf"
)

func TestBackendService(t *testing.T) {
	for addr, want := range map[string][2]string{
		"redis.daprperf-backends.svc.cluster.local:6379": {"redis", "daprperf-backends"},
		"redis-master.redis.svc:6379":                    {"redis-master", "redis"},
		"postgres.db:5432":                               {"postgres", "db"},
		"mqtt.brokers":                                   {"mqtt", "brokers"},
	} {
		name, ns, err := BackendService(addr)
		require.NoError(t, err, addr)
		assert.Equal(t, want, [2]string{name, ns}, addr)
	}
	for _, addr := range []string{"10.96.0.10:6379", "redis:6379", "redis.example.com:6379", ".ns:1", "[::1]:6379"} {
		_, _, err := BackendService(addr)
		assert.ErrorContains(t, err, "is not a Service of the cluster", addr)
	}
}

func TestCanRestartBackendNamesTheVariable(t *testing.T) {
	// canRestart asks a platform given the run's environment (WithEnv), as the runner builds it.
	canRestart := func() error {
		_, err := fromEnv(func(env perf.Env) (struct{}, error) {
			return struct{}{}, (&Platform{env: env}).CanRestartBackend(perf.BackendRedis)
		})
		return err
	}
	t.Setenv(EnvRedisAddr, "redis.backends.svc.cluster.local:6379")
	assert.NoError(t, canRestart())
	t.Setenv(EnvRedisAddr, "192.0.2.1:6379")
	assert.ErrorContains(t, canRestart(), EnvRedisAddr+": address \"192.0.2.1:6379\" is not a Service")
	t.Setenv(EnvRedisAddr, "")
	assert.ErrorContains(t, canRestart(), EnvRedisAddr+" is unset")
}

// endpointSlice is Service svc's slice in namespace backends with one endpoint per pod UID.
func endpointSlice(svc string, ready bool, uids ...types.UID) *discoveryv1.EndpointSlice {
	sl := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: svc + "-x", Namespace: "backends",
		Labels: map[string]string{discoveryv1.LabelServiceName: svc}}}
	for _, u := range uids {
		sl.Endpoints = append(sl.Endpoints, discoveryv1.Endpoint{Conditions: discoveryv1.EndpointConditions{Ready: &ready},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", UID: u}})
	}
	return sl
}

// backendObjects are a backend's Service in namespace backends, its one pod <name>-1 (UID
// "old") and the slice that lists that pod ready.
func backendObjects(name string) []runtime.Object {
	sel := map[string]string{"app": name}
	return []runtime.Object{
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "backends"}, Spec: corev1.ServiceSpec{Selector: sel}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name + "-1", Namespace: "backends", UID: "old", Labels: sel}},
		endpointSlice(name, true, "old"),
	}
}

// RestartBackend deletes the pods behind the backend's Service and returns once a new pod is a
// ready endpoint: the fake clients play the Deployment and EndpointSlice controllers, putting
// a not-yet-ready new pod in the slice at the delete and making it ready 300 ms later.
func TestRestartBackendWaitsForANewReadyPod(t *testing.T) {
	d, cs := fakeDeployment(t, siApps, backendObjects("redis")...)
	d.backends = []perf.BackendInfo{{Backend: perf.BackendRedis, Address: "redis.backends.svc.cluster.local:6379"}}
	var deleted []string
	cs.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		deleted = append(deleted, a.(k8stesting.DeleteAction).GetName())
		_ = cs.Tracker().Update(discoveryv1.SchemeGroupVersion.WithResource("endpointslices"), endpointSlice("redis", false, "new"), "backends")
		time.AfterFunc(300*time.Millisecond, func() {
			_ = cs.Tracker().Update(discoveryv1.SchemeGroupVersion.WithResource("endpointslices"), endpointSlice("redis", true, "new"), "backends")
		})
		return false, nil, nil
	})
	down, err := d.RestartBackend(context.Background(), perf.BackendRedis)
	require.NoError(t, err)
	assert.Equal(t, []string{"redis-1"}, deleted)
	assert.GreaterOrEqual(t, down, 300*time.Millisecond, "not before the new pod is ready")

	_, err = d.RestartBackend(context.Background(), perf.BackendPostgreSQL)
	assert.ErrorContains(t, err, "restart backend postgresql: the deployment does not use it")
}

// A Service whose pods never come back ends in an error naming it, when the context ends.
func TestRestartBackendTimesOut(t *testing.T) {
	d, _ := fakeDeployment(t, siApps, backendObjects("mqtt")...)
	d.backends = []perf.BackendInfo{{Backend: perf.BackendMQTT, Address: "mqtt.backends:1883"}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := d.RestartBackend(ctx, perf.BackendMQTT)
	assert.ErrorContains(t, err, "restart service backends/mqtt: no new pod ready")
}
