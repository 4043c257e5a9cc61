package kube_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/daprperf/daprperf/kube"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
)

// backendVars are every backend variable; setBackendEnv clears the ones env leaves out.
var backendVars = []string{
	kube.EnvRedisAddr, kube.EnvRedisPassword,
	kube.EnvPostgreSQLAddr, kube.EnvPostgreSQLUsername, kube.EnvPostgreSQLPassword, kube.EnvPostgreSQLDatabase,
	kube.EnvRabbitMQAddr, kube.EnvRabbitMQUsername, kube.EnvRabbitMQPassword,
	kube.EnvMQTTAddr, kube.EnvMQTTUsername, kube.EnvMQTTPassword,
	kube.EnvKafkaAddr, kube.EnvKafkaUsername, kube.EnvKafkaPassword,
	kube.EnvPulsarAddr, kube.EnvPulsarToken,
}

func setBackendEnv(t *testing.T, env map[string]string) {
	t.Helper()
	for _, k := range backendVars {
		t.Setenv(k, env[k])
	}
}

// The addresses of Helm releases named as docs/kubernetes.md's "Backends on Kubernetes"
// installs them.
var chartEnv = map[string]string{
	kube.EnvRedisAddr:          "redis-master.redis.svc.cluster.local:6379",
	kube.EnvRedisPassword:      "r3dis pass",
	kube.EnvPostgreSQLAddr:     "postgresql.postgresql.svc.cluster.local:5432",
	kube.EnvPostgreSQLPassword: `pg'pass\`,
	kube.EnvRabbitMQAddr:       "rabbitmq.rabbitmq.svc.cluster.local:5672",
	kube.EnvRabbitMQUsername:   "user",
	kube.EnvRabbitMQPassword:   "rabbit@pass",
	kube.EnvMQTTAddr:           "mosquitto.mosquitto.svc.cluster.local:1883",
}

// backendApps are a tester and an httpapp whose sidecars load a Redis state store (the
// tester's, with its own metadata), a PostgreSQL state store and a RabbitMQ and an MQTT pub/sub
// (both apps'), and an in-memory store (no backend).
func backendApps() []perf.App {
	pubsubs := []perf.Component{
		{Name: "orders", Type: perf.PubSubRabbitMQ, Metadata: map[string]string{"durable": "true"}},
		{Name: "events", Type: perf.PubSubMQTT3, Metadata: map[string]string{"qos": "1"}},
	}
	return []perf.App{
		{Name: "tester", Kind: perf.Tester, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Components: append([]perf.Component{
			{Name: "cache", Type: perf.StateRedis, Metadata: map[string]string{"keyPrefix": "none"}},
			{Name: "statestore", Type: perf.StatePostgreSQL},
			{Name: "mem", Type: perf.StateInMemory},
		}, pubsubs...)}},
		{Name: "testapp", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Components: pubsubs}},
	}
}

// TestBackendsFromEnvOnControlPlane deploys apps whose sidecars name Redis, PostgreSQL,
// RabbitMQ and MQTT components, with the backends' addresses and credentials from the
// environment, on a real API server; it checks every Component resource (type, version,
// metadata, secret references, scopes), the credentials Secret, what the report records, that
// teardown deletes the Secret, and that a missing or malformed variable fails the start by
// name before any namespace exists.
func TestBackendsFromEnvOnControlPlane(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	c := startCluster(t)
	dyn := dynamic.NewForConfigOrDie(c.cfg)
	// platform is the kube platform given the environment t's subtest set, as a run reads it.
	platform := func(t *testing.T) *kube.Platform {
		t.Helper()
		p, err := kube.New(kube.WithEnv(runner.EnvFor(t)), kube.WithRESTConfig(c.cfg), kube.WithImages(testImages))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	var ns string
	t.Run("components", func(t *testing.T) {
		setBackendEnv(t, chartEnv)
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		d, err := platform(t).StartE(ctx, t, backendApps()...)
		if err != nil {
			t.Fatal(err)
		}
		ns = d.Namespace()
		list, err := dyn.Resource(kube.ComponentResource).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]unstructured.Unstructured{}
		for _, u := range list.Items {
			got[u.GetName()] = u
		}
		want := map[string]struct {
			typ, version string
			md           []string // name=value, or name<-key for a secretKeyRef into daprperf-backends
			scopes       []string
			auth         bool
		}{
			"cache":      {"state.redis", "v1", []string{"redisHost=redis-master.redis.svc.cluster.local:6379", "redisPassword<-cache.redisPassword", "keyPrefix=none"}, []string{"tester"}, true},
			"statestore": {"state.postgresql", "v2", []string{"connectionString<-statestore.connectionString"}, []string{"tester"}, true},
			"mem":        {"state.in-memory", "v1", nil, []string{"tester"}, false},
			"orders":     {"pubsub.rabbitmq", "v1", []string{"connectionString<-orders.connectionString", "durable=true"}, []string{"testapp", "tester"}, true},
			"events":     {"pubsub.mqtt3", "v1", []string{"url=tcp://mosquitto.mosquitto.svc.cluster.local:1883", "qos=1"}, []string{"testapp", "tester"}, false},
		}
		if len(got) != len(want) {
			t.Errorf("%d Components, want %d: %v", len(got), len(want), slices.Sorted(maps.Keys(got)))
		}
		for name, w := range want {
			u, ok := got[name]
			if !ok {
				t.Errorf("no Component %s", name)
				continue
			}
			typ, _, _ := unstructured.NestedString(u.Object, "spec", "type")
			ver, _, _ := unstructured.NestedString(u.Object, "spec", "version")
			if typ != w.typ || ver != w.version {
				t.Errorf("Component %s: type %s version %s, want %s %s", name, typ, ver, w.typ, w.version)
			}
			items, _, _ := unstructured.NestedSlice(u.Object, "spec", "metadata")
			var md []string
			for _, it := range items {
				m := it.(map[string]any)
				if ref, ok := m["secretKeyRef"].(map[string]any); ok {
					if ref["name"] != kube.BackendSecret {
						t.Errorf("Component %s: %s refers to Secret %v, want %s", name, m["name"], ref["name"], kube.BackendSecret)
					}
					md = append(md, m["name"].(string)+"<-"+ref["key"].(string))
					continue
				}
				md = append(md, m["name"].(string)+"="+m["value"].(string))
			}
			if !slices.Equal(md, w.md) {
				t.Errorf("Component %s metadata\n got  %q\n want %q", name, md, w.md)
			}
			scopes, _, _ := unstructured.NestedStringSlice(u.Object, "scopes")
			if !slices.Equal(scopes, w.scopes) {
				t.Errorf("Component %s scopes %v, want %v", name, scopes, w.scopes)
			}
			store, _, _ := unstructured.NestedString(u.Object, "auth", "secretStore")
			if (store == "kubernetes") != w.auth {
				t.Errorf("Component %s auth.secretStore %q, want kubernetes: %v", name, store, w.auth)
			}
			if u.GetLabels()["daprperf.io/run"] != ns {
				t.Errorf("Component %s labels %v, want daprperf.io/run=%s", name, u.GetLabels(), ns)
			}
			raw, _ := json.Marshal(u.Object)
			for _, secret := range []string{"r3dis pass", "pg'pass", "rabbit@pass"} {
				if strings.Contains(string(raw), secret) {
					t.Errorf("Component %s holds the credential %q in clear: %s", name, secret, raw)
				}
			}
		}
		sec, err := c.cs.CoreV1().Secrets(ns).Get(ctx, kube.BackendSecret, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("Secret %s: %v", kube.BackendSecret, err)
		}
		wantSecret := map[string]string{
			"cache.redisPassword":         "r3dis pass",
			"statestore.connectionString": `host='postgresql.postgresql.svc.cluster.local' port=5432 user='postgres' dbname='postgres' sslmode=disable password='pg\'pass\\'`,
			"orders.connectionString":     "amqp://user:rabbit%40pass@rabbitmq.rabbitmq.svc.cluster.local:5672/",
		}
		if len(sec.Data) != len(wantSecret) {
			t.Errorf("Secret keys %d, want %d", len(sec.Data), len(wantSecret))
		}
		for k, v := range wantSecret {
			if string(sec.Data[k]) != v {
				t.Errorf("Secret %s[%s] = %q, want %q", kube.BackendSecret, k, sec.Data[k], v)
			}
		}
		if sec.Immutable == nil || !*sec.Immutable || sec.Labels["daprperf.io/run"] != ns {
			t.Errorf("Secret immutable %v labels %v, want immutable, daprperf.io/run=%s", sec.Immutable, sec.Labels, ns)
		}
		// The report's environment: each backend's address and variable, no credential.
		infos := perf.BackendsOf(d)
		var gotInfos []string
		for _, b := range infos {
			gotInfos = append(gotInfos, fmt.Sprintf("%s %s %s login=%v", b.Backend, b.Address, b.From, b.Login))
		}
		wantInfos := []string{
			"redis redis-master.redis.svc.cluster.local:6379 DAPR_PERF_REDIS_ADDR login=true",
			"postgresql postgresql.postgresql.svc.cluster.local:5432 DAPR_PERF_POSTGRESQL_ADDR login=true",
			"rabbitmq rabbitmq.rabbitmq.svc.cluster.local:5672 DAPR_PERF_RABBITMQ_ADDR login=true",
			"mqtt mosquitto.mosquitto.svc.cluster.local:1883 DAPR_PERF_MQTT_ADDR login=false",
		}
		// The tester may load, besides its sidecar, the one backend its direct clients can log
		// in to (MQTT here: no login), and no other.
		dep, err := c.cs.AppsV1().Deployments(ns).Get(ctx, "tester", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		args := strings.Join(dep.Spec.Template.Spec.Containers[0].Args, " ")
		if !strings.Contains(args, "-allow mosquitto.mosquitto.svc.cluster.local:1883") || strings.Contains(args, "redis-master") || strings.Contains(args, "postgresql.postgresql") || strings.Contains(args, "rabbitmq.rabbitmq") {
			t.Errorf("tester args %q: want -allow of the MQTT backend only", args)
		}
		if !slices.Equal(gotInfos, wantInfos) {
			t.Errorf("Backends()\n got  %q\n want %q", gotInfos, wantInfos)
		}
		raw, _ := json.Marshal(infos)
		if strings.Contains(string(raw), "pass") {
			t.Errorf("the report's backends hold a credential: %s", raw)
		}
	})
	t.Run("teardown", func(t *testing.T) {
		if ns == "" {
			t.Skip("components failed")
		}
		_, err := c.cs.CoreV1().Secrets(ns).Get(t.Context(), kube.BackendSecret, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("Secret %s after teardown: %v, want NotFound", kube.BackendSecret, err)
		}
		checkGone(t, c, ns)
	})
	for _, tc := range []struct {
		name  string
		unset []string
		set   map[string]string
		want  []string
	}{
		{"rabbitmq address missing", []string{kube.EnvRabbitMQAddr}, nil,
			[]string{"DAPR_PERF_RABBITMQ_ADDR is not set", "component orders (pubsub.rabbitmq) of app tester", "bitnami/rabbitmq"}},
		{"two missing", []string{kube.EnvRedisAddr, kube.EnvMQTTAddr}, nil,
			[]string{"DAPR_PERF_REDIS_ADDR is not set", "component cache (state.redis)", "DAPR_PERF_MQTT_ADDR is not set"}},
		{"malformed address", nil, map[string]string{kube.EnvPostgreSQLAddr: "postgres://postgresql:5432"},
			[]string{`DAPR_PERF_POSTGRESQL_ADDR="postgres://postgresql:5432": a URL, not an address; want host:port`}},
		{"no port", nil, map[string]string{kube.EnvRedisAddr: "redis-master"},
			[]string{`DAPR_PERF_REDIS_ADDR="redis-master"`, "missing port"}},
		{"rabbitmq user missing", []string{kube.EnvRabbitMQUsername}, nil,
			[]string{"DAPR_PERF_RABBITMQ_USERNAME and DAPR_PERF_RABBITMQ_PASSWORD must both be set"}},
		{"mqtt password without user", nil, map[string]string{kube.EnvMQTTPassword: "x"},
			[]string{"DAPR_PERF_MQTT_USERNAME and DAPR_PERF_MQTT_PASSWORD: set both"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range chartEnv {
				env[k] = v
			}
			for _, k := range tc.unset {
				delete(env, k)
			}
			for k, v := range tc.set {
				env[k] = v
			}
			setBackendEnv(t, env)
			before := runNamespaces(t, c)
			_, err := platform(t).StartE(t.Context(), t, backendApps()...)
			if err == nil {
				t.Fatal("StartE: no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q: %v", w, err)
				}
			}
			if after := runNamespaces(t, c); after != before {
				t.Errorf("%d run namespaces after a failed start, %d before: the start must fail before it creates one", after, before)
			}
		})
	}
}

// runNamespaces counts the namespaces of runs (daprperf-*), terminating or not.
func runNamespaces(t *testing.T, c *cluster) int {
	t.Helper()
	l, err := c.cs.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/part-of=daprperf"})
	if err != nil {
		t.Fatal(err)
	}
	return len(l.Items)
}

// TestComponentObjectsKafkaAndPulsar checks the Components of the Kubernetes-only brokers
// without a cluster: Kafka with and without SASL, Pulsar with a token.
func TestComponentObjectsKafkaAndPulsar(t *testing.T) {
	apps := []perf.App{{Name: "tester", Kind: perf.Tester, Sidecar: &perf.Sidecar{Components: []perf.Component{
		{Name: "kafka", Type: perf.PubSubKafka, Metadata: map[string]string{"consumerGroup": "perf"}},
		{Name: "pulsar", Type: perf.PubSubPulsar},
	}}}}
	for _, tc := range []struct {
		name       string
		env        map[string]string
		wantKafka  []string
		wantPulsar []string
		wantSecret map[string]string
	}{
		{"anonymous", map[string]string{kube.EnvKafkaAddr: "kafka-0.kafka:9092, kafka-1.kafka:9092", kube.EnvPulsarAddr: "pulsar-broker.pulsar.svc.cluster.local:6650"},
			[]string{"authType=none", "brokers=kafka-0.kafka:9092, kafka-1.kafka:9092", "disableTls=true", "consumerGroup=perf"},
			[]string{"host=pulsar-broker.pulsar.svc.cluster.local:6650"}, nil},
		{"logins", map[string]string{kube.EnvKafkaAddr: "kafka.kafka.svc.cluster.local:9092", kube.EnvKafkaUsername: "user1", kube.EnvKafkaPassword: "kpw",
			kube.EnvPulsarAddr: "pulsar-broker.pulsar.svc.cluster.local:6650", kube.EnvPulsarToken: "eyJ.x.y"},
			[]string{"authType=password", "brokers=kafka.kafka.svc.cluster.local:9092", "disableTls=true", "saslPassword<-kafka.saslPassword", "saslUsername=user1", "consumerGroup=perf"},
			[]string{"host=pulsar-broker.pulsar.svc.cluster.local:6650", "token<-pulsar.token"},
			map[string]string{"kafka.saslPassword": "kpw", "pulsar.token": "eyJ.x.y"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setBackendEnv(t, tc.env)
			conns, err := kube.BackendsFromEnv(runner.EnvFor(t), []perf.Backend{perf.BackendKafka, perf.BackendPulsar}, nil)
			if err != nil {
				t.Fatal(err)
			}
			objs, secret, err := kube.ComponentObjects("ns", apps, nil, conns)
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != 2 || objs[0].GetName() != "kafka" || objs[1].GetName() != "pulsar" {
				t.Fatalf("objects %v, want kafka and pulsar", objs)
			}
			for i, want := range [][]string{tc.wantKafka, tc.wantPulsar} {
				items, _, _ := unstructured.NestedSlice(objs[i].Object, "spec", "metadata")
				var md []string
				for _, it := range items {
					m := it.(map[string]any)
					if ref, ok := m["secretKeyRef"].(map[string]any); ok {
						md = append(md, m["name"].(string)+"<-"+ref["key"].(string))
					} else {
						md = append(md, m["name"].(string)+"="+m["value"].(string))
					}
				}
				if !slices.Equal(md, want) {
					t.Errorf("%s metadata\n got  %q\n want %q", objs[i].GetName(), md, want)
				}
			}
			if len(secret) != len(tc.wantSecret) {
				t.Errorf("secret %v, want %v", secret, tc.wantSecret)
			}
			for k, v := range tc.wantSecret {
				if string(secret[k]) != v {
					t.Errorf("secret[%s] = %q, want %q", k, secret[k], v)
				}
			}
		})
	}
	setBackendEnv(t, map[string]string{kube.EnvKafkaAddr: "kafka:9092,kafka:0", kube.EnvKafkaUsername: "u"})
	_, err := kube.BackendsFromEnv(runner.EnvFor(t), []perf.Backend{perf.BackendKafka, perf.BackendPulsar}, map[perf.Backend]string{perf.BackendPulsar: "component pulsar"})
	for _, w := range []string{`DAPR_PERF_KAFKA_ADDR="kafka:9092,kafka:0": port "0" is not in 1..65535`,
		"DAPR_PERF_KAFKA_USERNAME and DAPR_PERF_KAFKA_PASSWORD: set both", "DAPR_PERF_PULSAR_ADDR is not set: component pulsar needs"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("BackendsFromEnv: %v, want an error with %q", err, w)
		}
	}
}
