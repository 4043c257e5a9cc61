package kube

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/daprperf/daprperf/perf"
)

// ComponentResource is Dapr's Component custom resource. Its CRD comes with Dapr's control
// plane (helm chart dapr/dapr), like ConfigurationResource's.
var ComponentResource = schema.GroupVersionResource{Group: "dapr.io", Version: "v1alpha1", Resource: "components"}

// BackendSecret is the Secret, in the run's namespace, that holds the backends' credentials
// (passwords, and connection strings that carry one); the Component resources reference its
// keys through secretKeyRef, read by Dapr's built-in Kubernetes secret store. It exists only
// when some backend has a credential, and teardown deletes it before the namespace.
const BackendSecret = "daprperf-backends"

// The environment variables of the backends. The address variables are perf.EnvBackendAddr's
// names, the ones the local platform gives an app that asks for a backend (DAPR_PERF_<BACKEND>_ADDR).
const (
	EnvRedisAddr          = "DAPR_PERF_REDIS_ADDR"
	EnvRedisPassword      = "DAPR_PERF_REDIS_PASSWORD"
	EnvPostgreSQLAddr     = "DAPR_PERF_POSTGRESQL_ADDR"
	EnvPostgreSQLUsername = "DAPR_PERF_POSTGRESQL_USERNAME"
	EnvPostgreSQLPassword = "DAPR_PERF_POSTGRESQL_PASSWORD"
	EnvPostgreSQLDatabase = "DAPR_PERF_POSTGRESQL_DATABASE"
	EnvRabbitMQAddr       = "DAPR_PERF_RABBITMQ_ADDR"
	EnvRabbitMQUsername   = "DAPR_PERF_RABBITMQ_USERNAME"
	EnvRabbitMQPassword   = "DAPR_PERF_RABBITMQ_PASSWORD"
	EnvMQTTAddr           = "DAPR_PERF_MQTT_ADDR"
	EnvMQTTUsername       = "DAPR_PERF_MQTT_USERNAME"
	EnvMQTTPassword       = "DAPR_PERF_MQTT_PASSWORD"
	EnvKafkaAddr          = "DAPR_PERF_KAFKA_ADDR"
	EnvKafkaUsername      = "DAPR_PERF_KAFKA_USERNAME"
	EnvKafkaPassword      = "DAPR_PERF_KAFKA_PASSWORD"
	EnvPulsarAddr         = "DAPR_PERF_PULSAR_ADDR"
	EnvPulsarToken        = "DAPR_PERF_PULSAR_TOKEN"
)

// BackendConn is where one backend is on the cluster and how to log in, as the environment
// says (BackendsFromEnv). The platform does not start or reach it; daprd does.
type BackendConn struct {
	Backend perf.Backend
	// Address is host:port (Kafka: one or more, comma-separated), as daprd in the cluster
	// reaches it: a Service's DNS name such as redis-master.redis.svc.cluster.local:6379.
	Address string
	// From is the variable Address came from.
	From string
	// Username and Password log in; "" for none (Redis has no username here: Bitnami's chart
	// sets the default user's password).
	Username, Password string
	// Database is PostgreSQL's database name.
	Database string
	// Token is Pulsar's JWT; "" for none.
	Token string
}

// envOf maps each backend to its variables in env: address, user, password.
func envOf(env perf.Env, b perf.Backend) (addr, user, pass *string, addrVar, userVar, passVar string) {
	switch b {
	case perf.BackendRedis:
		return env.RedisAddr, nil, env.RedisPassword, EnvRedisAddr, "", EnvRedisPassword
	case perf.BackendPostgreSQL:
		return env.PostgreSQLAddr, env.PostgreSQLUsername, env.PostgreSQLPassword, EnvPostgreSQLAddr, EnvPostgreSQLUsername, EnvPostgreSQLPassword
	case perf.BackendRabbitMQ:
		return env.RabbitMQAddr, env.RabbitMQUsername, env.RabbitMQPassword, EnvRabbitMQAddr, EnvRabbitMQUsername, EnvRabbitMQPassword
	case perf.BackendMQTT:
		return env.MQTTAddr, env.MQTTUsername, env.MQTTPassword, EnvMQTTAddr, EnvMQTTUsername, EnvMQTTPassword
	case perf.BackendKafka:
		return env.KafkaAddr, env.KafkaUsername, env.KafkaPassword, EnvKafkaAddr, EnvKafkaUsername, EnvKafkaPassword
	case perf.BackendPulsar:
		return env.PulsarAddr, nil, nil, EnvPulsarAddr, "", ""
	}
	return nil, nil, nil, "", "", ""
}

// helmHints says, in an error about a missing address, which chart provides the backend and
// the address its Service has with release name and namespace both <backend>
// (docs/kubernetes.md, "Backends on Kubernetes").
var helmHints = map[perf.Backend]string{
	perf.BackendRedis:      "bitnami/redis: redis-master.redis.svc.cluster.local:6379",
	perf.BackendPostgreSQL: "bitnami/postgresql: postgresql.postgresql.svc.cluster.local:5432",
	perf.BackendRabbitMQ:   "bitnami/rabbitmq: rabbitmq.rabbitmq.svc.cluster.local:5672",
	perf.BackendMQTT:       "t3n/mosquitto: mosquitto.mosquitto.svc.cluster.local:1883",
	perf.BackendKafka:      "bitnami/kafka: kafka.kafka.svc.cluster.local:9092",
	perf.BackendPulsar:     "apache/pulsar: pulsar-broker.pulsar.svc.cluster.local:6650",
}

// BackendsFromEnv reads, from env, the connection of each backend in needed. The
// error names every variable that is missing or malformed, with what it accepts: an address
// that is not host:port (a scheme, no port, a port outside 1..65535), a user without a password
// or the reverse, and for RabbitMQ a missing user (its guest user is let in from loopback only).
// who says, per backend, which component needs it, for the error.
func BackendsFromEnv(env perf.Env, needed []perf.Backend, who map[perf.Backend]string) ([]BackendConn, error) {
	var conns []BackendConn
	var errs []error
	for _, b := range needed {
		c, err := backendFromEnv(env, b, who[b])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		conns = append(conns, c)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return conns, nil
}

func backendFromEnv(env perf.Env, b perf.Backend, who string) (BackendConn, error) {
	addrP, userP, passP, addrVar, userVar, passVar := envOf(env, b)
	if addrVar == "" {
		return BackendConn{}, fmt.Errorf("%s: the kubernetes platform knows no %q backend", who, b)
	}
	c := BackendConn{Backend: b, Address: strings.TrimSpace(perf.Val(addrP)), From: addrVar,
		Username: perf.Val(userP), Password: perf.Val(passP)}
	var errs []error
	if c.Address == "" {
		errs = append(errs, fmt.Errorf("%s is not set: %s needs the %s address on kubernetes, host:port as daprd in the cluster reaches it (%s)",
			addrVar, who, b, helmHints[b]))
	} else {
		list := []string{c.Address}
		if b == perf.BackendKafka {
			list = strings.Split(c.Address, ",")
		}
		for _, a := range list {
			if err := checkHostPort(strings.TrimSpace(a)); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: %v; want host:port (%s)", addrVar, c.Address, err, helmHints[b]))
				break
			}
		}
	}
	switch b {
	case perf.BackendPostgreSQL:
		c.Database = strings.TrimSpace(perf.Val(env.PostgreSQLDatabase))
		if c.Database == "" {
			c.Database = "postgres"
		}
		if c.Username == "" {
			c.Username = "postgres"
		}
	case perf.BackendRabbitMQ:
		if c.Username == "" || c.Password == "" {
			errs = append(errs, fmt.Errorf("%s and %s must both be set: RabbitMQ lets its guest user in from loopback only unless loopback_users is emptied (Bitnami's chart creates user %q; its password is key rabbitmq-password of Secret rabbitmq)",
				userVar, passVar, "user"))
		}
	case perf.BackendMQTT, perf.BackendKafka:
		if (c.Username == "") != (c.Password == "") {
			errs = append(errs, fmt.Errorf("%s and %s: set both (a login) or neither (anonymous)", userVar, passVar))
		}
	case perf.BackendPulsar:
		c.Token = perf.Val(env.PulsarToken)
	}
	return c, errors.Join(errs...)
}

// checkHostPort accepts host:port with a non-empty host and a port in 1..65535.
func checkHostPort(a string) error {
	if strings.Contains(a, "://") {
		return fmt.Errorf("a URL, not an address")
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return err
	}
	if host == "" {
		return fmt.Errorf("no host")
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %q is not in 1..65535", port)
	}
	return nil
}

// directLogin says whether c takes a login other than the tester's direct clients' (no
// password; PostgreSQL user and database "postgres"; RabbitMQ guest/guest, apps/tester), which
// they then cannot reach c with.
func (c BackendConn) directLogin() bool {
	if c.Backend == perf.BackendRabbitMQ {
		return c.Username != "guest" || c.Password != "guest"
	}
	if c.Password != "" || c.Token != "" {
		return true
	}
	if c.Backend == perf.BackendPostgreSQL {
		return (c.Username != "" && c.Username != "postgres") || (c.Database != "" && c.Database != "postgres")
	}
	return c.Username != ""
}

// directAddrs are the host:port addresses of the backends the tester's direct clients can
// reach (directLogin false), for its allow-list; Kafka's comma-separated lists are left out
// (the tester has no Kafka client).
func (cp *componentPlan) directAddrs() []string {
	var out []string
	for _, c := range cp.conns {
		if !c.directLogin() && !strings.Contains(c.Address, ",") {
			out = append(out, c.Address)
		}
	}
	return out
}

// connMetadata is the spec.metadata that points a component at c: plain values,
// and the values that carry a credential, which go into BackendSecret under the key secretKey
// names. Keys are those of dapr/components-contrib v1.17 (perf.componentTypes' connection keys).
func (c BackendConn) connMetadata() (plain, secret map[string]string) {
	plain, secret = map[string]string{}, map[string]string{}
	put := func(k, v string, isSecret bool) {
		if isSecret {
			secret[k] = v
		} else {
			plain[k] = v
		}
	}
	switch c.Backend {
	case perf.BackendRedis:
		plain["redisHost"] = c.Address
		if c.Password != "" {
			secret["redisPassword"] = c.Password
		}
	case perf.BackendPostgreSQL:
		host, port, _ := net.SplitHostPort(c.Address)
		dsn := fmt.Sprintf("host=%s port=%s user=%s dbname=%s sslmode=disable", pgQuote(host), port, pgQuote(c.Username), pgQuote(c.Database))
		if c.Password != "" {
			dsn += " password=" + pgQuote(c.Password)
		}
		put("connectionString", dsn, c.Password != "")
	case perf.BackendRabbitMQ:
		u := url.URL{Scheme: "amqp", User: url.UserPassword(c.Username, c.Password), Host: c.Address, Path: "/"}
		secret["connectionString"] = u.String()
	case perf.BackendMQTT:
		u := url.URL{Scheme: "tcp", Host: c.Address}
		if c.Username != "" {
			u.User = url.UserPassword(c.Username, c.Password)
		}
		put("url", u.String(), c.Username != "")
	case perf.BackendKafka:
		plain["brokers"] = c.Address
		plain["disableTls"] = "true" // the charts' client listeners are plaintext (SASL_PLAINTEXT) by default
		if c.Username != "" {
			plain["authType"], plain["saslUsername"] = "password", c.Username
			secret["saslPassword"] = c.Password
		} else {
			plain["authType"] = "none"
		}
	case perf.BackendPulsar:
		plain["host"] = c.Address
		if c.Token != "" {
			secret["token"] = c.Token
		}
	}
	return plain, secret
}

// pgQuote quotes v for a libpq key=value connection string: in single quotes, with \ and '
// escaped by a backslash.
func pgQuote(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// secretKey is the key in BackendSecret of metadata key k of component comp.
func secretKey(comp, k string) string { return comp + "." + k }

// componentDefs collects the components of every sidecar of apps: each sidecar's list valid
// (perf.ValidateComponents), one definition per name across the deployment (every Component
// resource of the namespace is one object), and for each name the apps that load it (its scopes).
// It also says, per backend, which component first needs it.
func componentDefs(apps []perf.App) (defs []perf.Component, scopes map[string][]string, who map[perf.Backend]string, err error) {
	byName := map[string]perf.Component{}
	owner := map[string]string{}
	scopes = map[string][]string{}
	who = map[perf.Backend]string{}
	for _, a := range apps {
		if a.Sidecar == nil {
			continue
		}
		if err := perf.ValidateComponents(a.Sidecar.Components); err != nil {
			return nil, nil, nil, fmt.Errorf("app %s: %w", a.Name, err)
		}
		for _, c := range a.Sidecar.Components {
			if prev, ok := byName[c.Name]; ok {
				if prev.Type != c.Type || prev.SpecVersion() != c.SpecVersion() || !maps.Equal(prev.Metadata, c.Metadata) {
					return nil, nil, nil, fmt.Errorf("app %s: component %s (%s) is defined differently by app %s (%s): one name, one definition per deployment",
						a.Name, c.Name, c.Type, owner[c.Name], prev.Type)
				}
			} else {
				byName[c.Name], owner[c.Name] = c, a.Name
				defs = append(defs, c)
			}
			scopes[c.Name] = append(scopes[c.Name], a.Name)
			if b := c.Backend(); b != perf.NoBackend && who[b] == "" {
				who[b] = fmt.Sprintf("component %s (%s) of app %s", c.Name, c.Type, a.Name)
			}
		}
	}
	return defs, scopes, who, nil
}

// ComponentObjects are the Dapr Component resources (dapr.io/v1alpha1) of the components the
// sidecars of apps load, in namespace ns, sorted by name, and the data of BackendSecret (nil
// when no backend has a credential). Each has spec.type, spec.version, spec.metadata (the
// platform's connection keys, then the component's own, each sorted by name; a credential as a
// secretKeyRef into BackendSecret, with auth.secretStore "kubernetes"), scopes (the app ids that
// load it) and labels. conns gives each backend the components need; a missing one is an error.
func ComponentObjects(ns string, apps []perf.App, labels map[string]string, conns []BackendConn) ([]*unstructured.Unstructured, map[string][]byte, error) {
	defs, scopes, _, err := componentDefs(apps)
	if err != nil {
		return nil, nil, err
	}
	slices.SortFunc(defs, func(a, b perf.Component) int { return strings.Compare(a.Name, b.Name) })
	var objs []*unstructured.Unstructured
	var secret map[string][]byte
	for _, c := range defs {
		var plain, sec map[string]string
		if be := c.Backend(); be != perf.NoBackend {
			i := slices.IndexFunc(conns, func(bc BackendConn) bool { return bc.Backend == be })
			if i < 0 {
				return nil, nil, fmt.Errorf("component %s (%s): no %s backend from the environment", c.Name, c.Type, be)
			}
			plain, sec = conns[i].connMetadata()
		}
		var md []any
		for _, k := range slices.Sorted(slices.Values(append(slices.Collect(maps.Keys(plain)), slices.Collect(maps.Keys(sec))...))) {
			if v, ok := plain[k]; ok {
				md = append(md, map[string]any{"name": k, "value": v})
				continue
			}
			if secret == nil {
				secret = map[string][]byte{}
			}
			secret[secretKey(c.Name, k)] = []byte(sec[k])
			md = append(md, map[string]any{"name": k, "secretKeyRef": map[string]any{"name": BackendSecret, "key": secretKey(c.Name, k)}})
		}
		for _, k := range slices.Sorted(maps.Keys(c.Metadata)) {
			md = append(md, map[string]any{"name": k, "value": c.Metadata[k]})
		}
		scope := make([]any, 0, len(scopes[c.Name]))
		for _, s := range slices.Sorted(slices.Values(scopes[c.Name])) {
			scope = append(scope, s)
		}
		u := &unstructured.Unstructured{Object: map[string]any{
			"spec": map[string]any{
				"type":     string(c.Type),
				"version":  c.SpecVersion(),
				"metadata": md,
			},
			"scopes": scope,
		}}
		if len(sec) > 0 {
			u.Object["auth"] = map[string]any{"secretStore": "kubernetes"}
		}
		if md == nil {
			_ = unstructured.SetNestedSlice(u.Object, []any{}, "spec", "metadata")
		}
		u.SetAPIVersion(ComponentResource.GroupVersion().String())
		u.SetKind("Component")
		u.SetName(c.Name)
		u.SetNamespace(ns)
		u.SetLabels(labels)
		objs = append(objs, u)
	}
	return objs, secret, nil
}

// BackendSecretObject is BackendSecret in ns holding data, immutable, with labels.
func BackendSecretObject(ns string, labels map[string]string, data map[string][]byte) *corev1.Secret {
	immutable := true
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: BackendSecret, Namespace: ns, Labels: labels},
		Type:       corev1.SecretTypeOpaque,
		Immutable:  &immutable,
		Data:       data,
	}
}

// planComponents checks the components of apps and reads the backends they need from the
// environment, before anything is created: an error names the component or the variable.
func planComponents(env perf.Env, ns string, apps []perf.App) (*componentPlan, error) {
	_, _, who, err := componentDefs(apps)
	if err != nil {
		return nil, err
	}
	var needed []perf.Backend
	for _, a := range apps {
		bs := a.Backends
		if a.Sidecar != nil {
			bs = append(perf.Backends(a.Sidecar.Components), bs...)
		}
		for _, b := range bs {
			if !slices.Contains(needed, b) {
				needed = append(needed, b)
			}
		}
		for _, b := range a.Backends {
			if who[b] == "" {
				who[b] = fmt.Sprintf("app %s (its own client)", a.Name)
			}
		}
	}
	conns, err := BackendsFromEnv(env, needed, who)
	if err != nil {
		return nil, err
	}
	appEnv, err := appBackendEnv(apps, conns)
	if err != nil {
		return nil, err
	}
	labels := map[string]string{LabelRun: ns, LabelPartOf: "daprperf"}
	objs, secret, err := ComponentObjects(ns, apps, labels, conns)
	if err != nil {
		return nil, err
	}
	return &componentPlan{objs: objs, secret: secret, labels: labels, conns: conns, appEnv: appEnv}, nil
}

// appBackendEnv is, per app with perf.App.Backends, the variables that give the app each
// backend's address (perf.EnvBackendAddr), as the local platform gives them. The apps' own
// clients take an address only, so a backend with a login is an error naming it.
func appBackendEnv(apps []perf.App, conns []BackendConn) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	for _, a := range apps {
		for _, b := range a.Backends {
			i := slices.IndexFunc(conns, func(c BackendConn) bool { return c.Backend == b })
			if i < 0 {
				return nil, fmt.Errorf("app %s: Backends: no %s backend from the environment", a.Name, b)
			}
			if conns[i].directLogin() {
				return nil, fmt.Errorf("app %s: Backends: its own %s client logs in without credentials, and %s is set with a login: give it a %s without a password", a.Name, b, conns[i].From, b)
			}
			if out[a.Name] == nil {
				out[a.Name] = map[string]string{}
			}
			out[a.Name][perf.EnvBackendAddr(b)] = conns[i].Address
		}
	}
	return out, nil
}

// componentPlan is what createComponents writes.
type componentPlan struct {
	objs   []*unstructured.Unstructured
	secret map[string][]byte
	labels map[string]string
	conns  []BackendConn
	appEnv map[string]map[string]string // appBackendEnv's
}

// backends is the report's view of the plan's backends: each address and the variable it came
// from; no credential.
func (cp *componentPlan) backends() []perf.BackendInfo {
	var out []perf.BackendInfo
	for _, c := range cp.conns {
		out = append(out, perf.BackendInfo{Backend: c.Backend, Address: c.Address, From: c.From, Login: c.directLogin()})
	}
	return out
}

// createComponents writes BackendSecret (when a backend has a credential), then each Component.
func createComponents(ctx context.Context, cs kubernetes.Interface, dyn dynamic.Interface, ns string, cp *componentPlan) error {
	if len(cp.secret) > 0 {
		if _, err := cs.CoreV1().Secrets(ns).Create(ctx, BackendSecretObject(ns, cp.labels, cp.secret), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create Secret %s: %w", BackendSecret, err)
		}
	}
	for _, u := range cp.objs {
		if _, err := dyn.Resource(ComponentResource).Namespace(ns).Create(ctx, u, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create Component %s (%s): %w", u.GetName(), ComponentResource.GroupVersion(), err)
		}
	}
	return nil
}

// deleteBackendSecret deletes BackendSecret from ns; one that is gone, or never made, is no error.
func deleteBackendSecret(ctx context.Context, cs kubernetes.Interface, ns string) error {
	err := cs.CoreV1().Secrets(ns).Delete(ctx, BackendSecret, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete Secret %s/%s: %w", ns, BackendSecret, err)
	}
	return nil
}
