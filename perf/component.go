package perf

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// ComponentType is a Dapr component type, "<kind>.<name>" as in a Component resource's
// spec.type: "state.redis", "pubsub.mqtt3".
type ComponentType string

// The component types a scenario can name. Each is compiled into daprd's stablecomponents
// build (daprd v1.17.5, cmd/daprd/components). The in-memory ones are what Dapr's own perf
// suite uses; the others are served by a real store or broker that the platform provides.
const (
	StateInMemory   ComponentType = "state.in-memory"
	StateRedis      ComponentType = "state.redis"
	StatePostgreSQL ComponentType = "state.postgresql" // v2 by default, as Dapr's CI uses for actors and workflows
	PubSubInMemory  ComponentType = "pubsub.in-memory"
	PubSubRedis     ComponentType = "pubsub.redis"
	PubSubRabbitMQ  ComponentType = "pubsub.rabbitmq"
	PubSubMQTT3     ComponentType = "pubsub.mqtt3"
	// PubSubKafka and PubSubPulsar are for the kubernetes platform only: no registry here
	// serves a real Kafka or Pulsar broker, so the local platform starts neither (and a
	// protocol fake is never reported as one).
	PubSubKafka  ComponentType = "pubsub.kafka"
	PubSubPulsar ComponentType = "pubsub.pulsar"
	// ConfigurationRedis is Dapr's Redis configuration store: each configuration item is one
	// Redis string key holding "<value>" or "<value>||<version>"; a subscription listens to
	// Redis keyspace notifications, which the component turns on itself (CONFIG SET
	// notify-keyspace-events KA; components-contrib v1.17 configuration/redis).
	ConfigurationRedis ComponentType = "configuration.redis"
)

// Backend names the store or broker a component needs. The platform provides one of each kind
// per deployment, shared by every component that needs it (local: a server started for the run
// on loopback; kubernetes: an address from the environment).
type Backend string

// The backends.
const (
	NoBackend         Backend = ""           // in-memory components run inside daprd
	BackendRedis      Backend = "redis"      // Redis 7 (Debian package redis-server)
	BackendPostgreSQL Backend = "postgresql" // PostgreSQL 15 (Debian package postgresql)
	BackendRabbitMQ   Backend = "rabbitmq"   // RabbitMQ 3.10 (Debian package rabbitmq-server)
	BackendMQTT       Backend = "mqtt"       // an MQTT 3.1.1 broker: Mosquitto 2.0 (Debian package mosquitto)
	BackendKafka      Backend = "kafka"      // Apache Kafka (kubernetes only)
	BackendPulsar     Backend = "pulsar"     // Apache Pulsar (kubernetes only)
)

// MQTTMaxQueuedMessages is the per-client queue the platforms give Mosquitto
// (max_queued_messages): the QoS 1 messages it holds for a subscriber beyond those in flight.
// Mosquitto's default, 1000 (EMQX's max_mqueue_len, the broker of Dapr's weekly run, has the
// same default), drops messages once a subscriber falls that far behind, and Dapr's subscribe
// load keeps up to 500 VUs x 100 messages unanswered at once: on the default the broker, not
// daprd, loses them ("Outgoing messages are being dropped" in its log). The queue is sized
// for that backlog twice over, so that a lost message is the sidecar's.
const MQTTMaxQueuedMessages = 100_000

// componentType is what the framework knows of one ComponentType.
type componentType struct {
	backend  Backend
	versions []string // accepted spec.version values; the first is the default
	// connection lists the metadata keys the platform fills in with the backend's address and
	// credentials; a scenario may not set them.
	connection []string
}

// componentTypes is every type a scenario can name. Metadata key names are those of
// dapr/components-contrib v1.17 (state/redis, state/postgresql/v2, pubsub/redis,
// pubsub/rabbitmq, pubsub/mqtt3 metadata.yaml).
var componentTypes = map[ComponentType]componentType{
	StateInMemory:   {backend: NoBackend, versions: []string{"v1"}},
	StateRedis:      {backend: BackendRedis, versions: []string{"v1"}, connection: redisConnection},
	StatePostgreSQL: {backend: BackendPostgreSQL, versions: []string{"v2", "v1"}, connection: []string{"connectionString"}},
	PubSubInMemory:  {backend: NoBackend, versions: []string{"v1"}},
	PubSubRedis:     {backend: BackendRedis, versions: []string{"v1"}, connection: redisConnection},
	PubSubRabbitMQ: {backend: BackendRabbitMQ, versions: []string{"v1"},
		connection: []string{"connectionString", "host", "hostname", "username", "password", "port", "protocol"}},
	PubSubMQTT3: {backend: BackendMQTT, versions: []string{"v1"}, connection: []string{"url"}},
	PubSubKafka: {backend: BackendKafka, versions: []string{"v1"},
		connection: []string{"brokers", "authType", "saslUsername", "saslPassword", "disableTls"}},
	PubSubPulsar: {backend: BackendPulsar, versions: []string{"v1"}, connection: []string{"host", "token", "enableTLS"}},
	// configuration/redis metadata.yaml: redisHost and redisPassword (no redisUsername in v1.17,
	// still refused so a scenario cannot point it elsewhere).
	ConfigurationRedis: {backend: BackendRedis, versions: []string{"v1"}, connection: redisConnection},
}

var redisConnection = []string{"redisHost", "redisUsername", "redisPassword"}

// ComponentTypes returns every accepted component type, sorted.
func ComponentTypes() []ComponentType { return slices.Sorted(maps.Keys(componentTypes)) }

// Component is one Dapr component a sidecar loads, as data (see Sidecar.Components). The
// platform writes it as a Component resource, scoped to the app, and points it at the backend
// it needs:
//
//	perf.Component{Name: "statestore", Type: perf.StateRedis}
//	perf.Component{Name: "pubsub", Type: perf.PubSubMQTT3, Metadata: map[string]string{"qos": "1"}}
type Component struct {
	// Name is the component's name, the one the API calls use (/v1.0/state/<name>): a DNS
	// label, lowercase letters, digits and '-', at most 63 characters.
	Name string `json:"name"`
	// Type is one of ComponentTypes.
	Type ComponentType `json:"type"`
	// Version is the component's spec.version; "" means the type's default: v2 for
	// state.postgresql, v1 for the others.
	Version string `json:"version,omitempty"`
	// Metadata are more spec.metadata entries, such as {"qos": "1"} or {"actorStateStore":
	// "true"}. The keys that say where the backend is (redisHost, connectionString, url, ...)
	// are the platform's, and an error here.
	Metadata map[string]string `json:"metadata,omitempty"`
}

// componentName is what Component.Name accepts: an RFC 1123 DNS label, which a Kubernetes
// Component resource needs too.
var componentName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// Validate checks c: a valid Name, a known Type, a Version that type has, and Metadata without
// empty keys or the keys the platform sets. Each error names the field and what it accepts.
func (c Component) Validate() error {
	if !componentName.MatchString(c.Name) {
		return fmt.Errorf("component %q: Name must be a DNS label (lowercase letters, digits and '-', at most 63, matching %s)",
			c.Name, componentName)
	}
	ct, ok := componentTypes[c.Type]
	if !ok {
		return fmt.Errorf("component %s: unknown Type %q (want one of %s)", c.Name, c.Type, joinTypes(ComponentTypes()))
	}
	if c.Version != "" && !slices.Contains(ct.versions, c.Version) {
		return fmt.Errorf("component %s: Version %q of %s (want %s, or \"\" for %s)",
			c.Name, c.Version, c.Type, strings.Join(ct.versions, " or "), ct.versions[0])
	}
	for _, k := range slices.Sorted(maps.Keys(c.Metadata)) {
		if strings.TrimSpace(k) == "" {
			return fmt.Errorf("component %s: Metadata has an empty key", c.Name)
		}
		if slices.Contains(ct.connection, k) {
			return fmt.Errorf("component %s: Metadata key %q is set by the platform, which points %s at its %s (the platform's keys: %s)",
				c.Name, k, c.Type, ct.backend, strings.Join(ct.connection, ", "))
		}
	}
	return nil
}

// Backend is the store or broker c needs; NoBackend for the in-memory types and for an
// unknown Type (which Validate reports).
func (c Component) Backend() Backend { return componentTypes[c.Type].backend }

// SpecVersion is the spec.version c is written with: Version, or the type's default.
func (c Component) SpecVersion() string {
	if c.Version != "" {
		return c.Version
	}
	if ct, ok := componentTypes[c.Type]; ok {
		return ct.versions[0]
	}
	return ""
}

// ValidateComponents checks each of one sidecar's components (Component.Validate) and that
// their names are distinct.
func ValidateComponents(cs []Component) error {
	seen := map[string]bool{}
	var errs []error
	for _, c := range cs {
		if err := c.Validate(); err != nil {
			errs = append(errs, err)
			continue
		}
		if seen[c.Name] {
			errs = append(errs, fmt.Errorf("component %s: Name used twice in one sidecar's Components", c.Name))
		}
		seen[c.Name] = true
	}
	return errors.Join(errs...)
}

// Backends returns the distinct backends that cs need, in the order first needed.
func Backends(cs []Component) []Backend {
	var bs []Backend
	for _, c := range cs {
		if b := c.Backend(); b != NoBackend && !slices.Contains(bs, b) {
			bs = append(bs, b)
		}
	}
	return bs
}

func joinTypes(ts []ComponentType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// BackendInfo describes one store or broker a platform provided for a deployment, for the
// report's environment.
type BackendInfo struct {
	Backend Backend `json:"backend"`
	// Process is its process name in Exits and Usage (local), e.g. "redis"; "" when the platform
	// did not start it.
	Process string `json:"process,omitempty"`
	// Version is what the server itself reports over its protocol: "7.0.15" (Redis INFO),
	// "15.18 (Debian 15.18-0+deb12u1)" (PostgreSQL server_version), "3.10.8 (Erlang/OTP 25)"
	// (RabbitMQ's connection properties), "mosquitto version 2.0.11" ($SYS/broker/version).
	Version string `json:"version"`
	// Package is the Debian package the binary belongs to, when the platform ran one.
	Package string `json:"package,omitempty"`
	// Address is where the components reach it, host:port.
	Address string `json:"address"`
	// ReadySeconds is the time from its start to its first successful protocol ping, in
	// seconds; 0 when the platform did not start it.
	ReadySeconds float64 `json:"readySeconds,omitempty"`
	// From is the environment variable Address came from, when the platform took it from the
	// environment (kubernetes: "DAPR_PERF_REDIS_ADDR"); "" when the platform started the
	// backend. Credentials are never recorded.
	From string `json:"from,omitempty"`
	// Login is set when the backend takes a login other than the one the tester's direct
	// clients use (apps/tester: no password; PostgreSQL user and database "postgres"), so a
	// direct-to-store baseline cannot reach it; the login itself is never recorded.
	Login bool `json:"login,omitempty"`
}

// BackendLister is a Deployment that can say which backends it provided (local.Deployment).
type BackendLister interface {
	Backends() []BackendInfo
}

// BackendsOf returns dep's backends when dep is a BackendLister, and nil otherwise.
func BackendsOf(dep Deployment) []BackendInfo {
	if bl, ok := dep.(BackendLister); ok {
		return bl.Backends()
	}
	return nil
}
