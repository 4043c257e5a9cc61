package perf

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Env is every environment variable daprperf's Go code reads (perf, local, kube and the
// scenarios' platform choice), in one place, parsed by envconfig (LoadEnv). A nil field was
// not set. Each field's tags say, as docs/configuration.md's variable table must (a test
// compares them):
// envconfig, the name; accepts, the unit and range; unset, what applies when it is not set
// (not envconfig's default tag: the defaults live in the code that owns them);
// desc, what it does. Ranges are checked by LoadEnv from the tags min and max (numbers and
// durations, inclusive; gt for an exclusive lower bound) and oneof (words); the few values with
// a grammar (a URL, a run id, an image registry) are checked where they are used, with an error
// naming the variable too.
type Env struct {
	// The load of the main phase (Dapr's names) and of the warmup.
	QPS            *int           `envconfig:"DAPR_PERF_QPS" min:"1" max:"1000000" accepts:"an integer from 1 to 1000000 (requests/s)" unset:"the scenario's (1000)" desc:"main-phase target rate"`
	Connections    *int           `envconfig:"DAPR_PERF_CONNECTIONS" min:"1" max:"10000" accepts:"an integer from 1 to 10000" unset:"the scenario's (16)" desc:"concurrent connections"`
	Duration       *time.Duration `envconfig:"DAPR_TEST_DURATION" min:"1s" max:"24h" accepts:"a Go duration from 1s to 24h, such as 1m" unset:"1m" desc:"main-phase duration"`
	PayloadSize    *int           `envconfig:"DAPR_PAYLOAD_SIZE" min:"0" max:"10485760" accepts:"a size in bytes from 0 to 10485760" unset:"the scenario's (1024)" desc:"generated payload size"`
	Payload        *string        `envconfig:"DAPR_PAYLOAD" maxlen:"10485760" accepts:"text of at most 10485760 bytes" unset:"unset" desc:"literal payload; wins over the size"`
	WarmupQPS      *int           `envconfig:"DAPR_PERF_WARMUP_QPS" min:"1" max:"1000000" accepts:"an integer from 1 to 1000000 (requests/s)" unset:"100" desc:"warmup rate (the main-phase variables never touch the warmup)"`
	TesterReplicas *int           `envconfig:"DAPR_PERF_TESTER_REPLICAS" min:"1" max:"16" accepts:"an integer from 1 to 16" unset:"the scenario's (1)" desc:"testers sharing each load, each with its daprd; their histograms are merged exactly"`
	HostReplicas   *int           `envconfig:"DAPR_PERF_HOST_REPLICAS" min:"1" max:"16" accepts:"an integer from 1 to 16" unset:"the scenario's (Dapr's: actor_timer 4, actor_id_scale 10)" desc:"actor host replicas of the scenarios that spread actors over several hosts on one placement"`
	WarmupDuration *time.Duration `envconfig:"DAPR_PERF_WARMUP_DURATION" min:"1s" max:"24h" accepts:"a Go duration from 1s to 24h, such as 10s" unset:"10s" desc:"warmup duration"`

	// The overhead plan.
	Repeats     *int           `envconfig:"DAPR_PERF_REPEATS" min:"1" max:"50" accepts:"an integer from 1 to 50 (interleaved baseline/main rounds)" unset:"1" desc:"interleaved baseline/main rounds"`
	IdleWindow  *time.Duration `envconfig:"DAPR_PERF_IDLE_WINDOW" min:"0s" max:"1h" accepts:"a Go duration from 0s to 1h, such as 10s" unset:"10s" desc:"resources sampled with no load after the last main phase; never shorter than a scenario's own checks need (actor_timer: 15s)"`
	Preflight   *string        `envconfig:"DAPR_PERF_PREFLIGHT" oneof:"ladder off" accepts:"ladder or off" unset:"off (ladder under make perf)" desc:"without DAPR_PERF_QPS, pick the highest load of 1000, 500, 250, 100 QPS (or the scenario's own ladder: bulk publish, jobs scheduling) a short preflight keeps on schedule"`
	ABMaxRounds *int           `envconfig:"DAPR_PERF_AB_MAX_ROUNDS" min:"1" max:"100" accepts:"an integer from 1 to 100, at least DAPR_PERF_REPEATS" unset:"16, or DAPR_PERF_REPEATS when that is more" desc:"A/B runs (DAPR_PERF_DAPRD_B): while the B − A difference of latency p50 or p90 is undecided after the rounds asked for, add interleaved round pairs up to this many rounds in all; DAPR_PERF_REPEATS's value adds none"`
	ABGate      *string        `envconfig:"DAPR_PERF_AB_GATE" oneof:"p50+p90 p50 p90 p99" accepts:"p50+p90, p50, p90 or p99" unset:"p50+p90 (make bisect: its figure's percentile)" desc:"A/B runs: the latency percentiles whose B − A difference must be decided before DAPR_PERF_AB_MAX_ROUNDS stops adding rounds; every figure is judged and reported either way"`
	ABSetAside  *int           `envconfig:"DAPR_PERF_AB_SET_ASIDE" min:"0" max:"20" accepts:"an integer from 0 to 20" unset:"one per 8 rounds of DAPR_PERF_AB_MAX_ROUNDS, at least 1" desc:"A/B runs: a round in which a measured phase fell behind its schedule or missed its rate is set aside (kept in the result file, never counted) and run again under its number, at most this many times per run; 0: none, the first such phase makes the run invalid"`

	// The curve plan.
	CurveP99 *time.Duration `envconfig:"DAPR_PERF_CURVE_P99" min:"1ms" max:"10s" accepts:"a Go duration from 1ms to 10s, such as 25ms" unset:"the scenario's (service_invocation_curve: 25ms)" desc:"the cost curve's bound: the response-time p99 a load must keep (with no error and its rate kept) to count as within it; the searches find the highest rate that keeps it"`

	// The bounds.
	MaxErrors       *int           `envconfig:"DAPR_PERF_MAX_ERRORS" min:"0" accepts:"a count >= 0" unset:"0" desc:"failed requests allowed (every non-2xx, socket error, non-OK gRPC status)"`
	MaxRestarts     *int           `envconfig:"DAPR_PERF_MAX_RESTARTS" min:"0" accepts:"a count >= 0" unset:"0" desc:"unexpected exits and restarts allowed"`
	MinQPSRatio     *float64       `envconfig:"DAPR_PERF_MIN_QPS_RATIO" gt:"0" max:"1" accepts:"a ratio in (0, 1], such as 0.99" unset:"0.99" desc:"lowest achieved/target QPS of the main phases, where the plan has a target rate"`
	OverheadGate    *string        `envconfig:"DAPR_PERF_OVERHEAD_GATE" oneof:"enforce warn" accepts:"enforce or warn" unset:"enforce (warn under make perf)" desc:"whether overhead, latency and trigger-rate bounds fail the test"`
	InvalidRetries  *int           `envconfig:"DAPR_PERF_INVALID_RETRIES" min:"0" max:"3" accepts:"an integer from 0 to 3" unset:"0" desc:"runs again at the same load, with a fresh deployment, a run that was invalid (its generator fell behind), at most this many times; each invalid attempt is kept as attempt-<n>.json (CI's smoke: 1)"`
	MaxOverheadP50  *time.Duration `envconfig:"DAPR_PERF_MAX_OVERHEAD_P50" min:"0s" accepts:"a Go duration >= 0, such as 2ms" unset:"none" desc:"bound on the p50 overhead"`
	MaxOverheadP75  *time.Duration `envconfig:"DAPR_PERF_MAX_OVERHEAD_P75" min:"0s" accepts:"a Go duration >= 0, such as 2ms" unset:"none" desc:"bound on the p75 overhead"`
	MaxOverheadP90  *time.Duration `envconfig:"DAPR_PERF_MAX_OVERHEAD_P90" min:"0s" accepts:"a Go duration >= 0, such as 2ms" unset:"2ms (HTTP), 2.5ms (gRPC)" desc:"bound on the p90 overhead (Dapr's)"`
	MaxOverheadP99  *time.Duration `envconfig:"DAPR_PERF_MAX_OVERHEAD_P99" min:"0s" accepts:"a Go duration >= 0, such as 2ms" unset:"none" desc:"bound on the p99 overhead"`
	MaxOverheadP999 *time.Duration `envconfig:"DAPR_PERF_MAX_OVERHEAD_P999" min:"0s" accepts:"a Go duration >= 0, such as 2ms" unset:"none" desc:"bound on the p99.9 overhead"`

	// The delivery plan (the subscribe scenarios).
	AwaitTimeout  *time.Duration `envconfig:"DAPR_PERF_AWAIT_TIMEOUT" min:"1s" max:"10m" accepts:"a Go duration from 1s to 10m, such as 10s" unset:"the scenario's (Dapr's 1m)" desc:"how long each iteration of the subscribe scenarios waits for its messages (or its configuration update) to reach the subscriber before it counts as a timeout"`
	RestartBroker *time.Duration `envconfig:"DAPR_PERF_RESTART_BROKER" min:"0s" max:"24h" accepts:"a Go duration inside the main load, such as 3s; 0s for none" unset:"the scenario's (none)" desc:"restart the subscribe scenarios' broker this long into the main load (local: its process; kubernetes: the pods behind its Service) and report what was lost"`

	// The growth plan.
	GrowthRounds    *int           `envconfig:"DAPR_PERF_GROWTH_ROUNDS" min:"2" max:"20" accepts:"an integer from 2 to 20" unset:"3" desc:"memory-growth rounds K"`
	GrowthRequests  *int           `envconfig:"DAPR_PERF_GROWTH_REQUESTS" min:"100" max:"1000000" accepts:"an integer from 100 to 1000000, a multiple of the connections" unset:"3000" desc:"memory-growth requests per round M"`
	GrowthIdle      *time.Duration `envconfig:"DAPR_PERF_GROWTH_IDLE" min:"0s" max:"1h" accepts:"a Go duration from 0s to 1h, such as 30s" unset:"30s" desc:"memory-growth idle window"`
	GrowthThreshold *float64       `envconfig:"DAPR_PERF_GROWTH_THRESHOLD_KIB" gt:"0" accepts:"a number > 0 (KiB of RSS per 1,000 requests)" unset:"derived (2 x the control's noise, within 512 to 729)" desc:"memory-growth threshold"`

	// Dapr's environment.
	Profiles *string `envconfig:"DAPR_PERF_PROFILES" oneof:"on off b-every-round" accepts:"on, off or b-every-round" unset:"off" desc:"on: read each daprd's CPU, heap and goroutine profiles during its first measured load (its profiling port turned on), stored beside the result file and summed up in it; b-every-round: in an A/B run, build B's in every round and build A's never, to measure what profiling costs (docs/method.md#profiles)"`
	MTLS     *string `envconfig:"DAPR_PERF_MTLS" oneof:"on off" accepts:"on or off" unset:"on (Dapr's perf suite runs with mTLS)" desc:"sentry and mTLS between the sidecars and the control plane (local platform; on kubernetes the installed control plane decides, and the result records it)"`

	// Dapr's pubsub_subscribe_http variables (tests/pubsub_subscribe_http, read by its scenarios).
	PubSubSubscribeThreshold     *int           `envconfig:"DAPR_PERF_PUBSUB_SUBSCRIBE_HTTP_THRESHOLD" min:"1" max:"600000" accepts:"milliseconds, an integer from 1 to 600000" unset:"the broker's (Dapr's: 1500, RabbitMQ 3000)" desc:"Dapr's bound on the publish request's p95 of normal subscribe, every broker"`
	PubSubBulkSubscribeThreshold *int           `envconfig:"DAPR_PERF_PUBSUB_BULK_SUBSCRIBE_HTTP_THRESHOLD" min:"1" max:"600000" accepts:"milliseconds, an integer from 1 to 600000" unset:"500 (Dapr's)" desc:"Dapr's bound on the publish request's p95 of bulk subscribe, every broker"`
	PubSubSubsConfigFile         *string        `envconfig:"DAPR_PERF_PUBSUB_SUBS_HTTP_TEST_CONFIG_FILE_NAME" oneof:"test_all.yaml test_kafka.yaml" accepts:"test_all.yaml or test_kafka.yaml (Dapr's files)" unset:"every broker the platform starts (Dapr's default is test_kafka.yaml)" desc:"Dapr's choice of brokers for the subscribe tests: test_all.yaml runs every broker here (Kafka and Pulsar have none, and the run says so), test_kafka.yaml only Kafka, which the subscribe tests skip, saying why"`
	BulkSubscribeMaxAwait        *time.Duration `envconfig:"DAPR_PERF_BULK_SUBSCRIBE_MAX_AWAIT" min:"1ms" max:"10s" accepts:"a Go duration from 1ms to 10s, such as 40ms" unset:"1s (daprd's default, which Dapr's app keeps)" desc:"how long the bulk subscribe scenarios' subscription waits to fill a bulk (maxAwaitDurationMs); another value is not Dapr's load, and the result's appWork says it"`

	// The workflow scenarios (tests/workflows).
	WorkflowBackend     *string `envconfig:"DAPR_PERF_WORKFLOW_BACKEND" oneof:"in-memory redis postgresql" accepts:"in-memory, redis or postgresql" unset:"postgresql (v2, as Dapr's CI)" desc:"the workflows' actor state store"`
	WorkflowBackendName *string `envconfig:"DAPR_PERF_WORKFLOW_BACKEND_NAME" accepts:"an app-id suffix: lowercase letters, digits and '-', at most 40 characters, such as -actors (checked by the workflow scenarios, which alone read it)" unset:"unset (no suffix)" desc:"Dapr's suffix of the workflow app's id (Dapr: perf-workflowsapp<suffix>; here workflowapp<suffix>); the store is DAPR_PERF_WORKFLOW_BACKEND's"`

	// The run's record and its push.
	RunID              *string `envconfig:"DAPR_PERF_RUN_ID" accepts:"letters, digits, '.', '_' or '-', starting with a letter or digit, at most 128 characters" unset:"UTC time and 4 hex digits (one per make perf, or per test binary)" desc:"the run's id and folder"`
	ReportDir          *string `envconfig:"DAPR_PERF_REPORT_DIR" accepts:"a directory path" unset:"<repo>/reports" desc:"report root: runs write to <root>/runs/<run id>/, references live in <root>/v<version>/"`
	Command            *string `envconfig:"DAPR_PERF_COMMAND" accepts:"text" unset:"unset (make perf sets it)" desc:"the command recorded in the result file"`
	NightlySet         *string `envconfig:"DAPR_PERF_NIGHTLY_SET" oneof:"default si short" accepts:"default, si or short" unset:"default" desc:"make nightly's scenarios and settings (cmd/perfnightly/sets.go): default, Dapr's service invocation HTTP and gRPC, state get, pub/sub publish, actor activation and memory growth in about 30 minutes; si, service invocation at 500 QPS with 6 rounds of 10 s in about 6 minutes (the release history's); short, service invocation at 100 QPS in about 2 minutes"`
	PerfTest           *string `envconfig:"DAPR_PERF_TEST" accepts:"Dapr's package names separated by spaces (configuration: the four configuration_* packages)" unset:"unset: every package" desc:"Dapr's selection of make perf's and make perf-plan's packages; read by the Makefile, not by the tests"`
	PlanOnly           *string `envconfig:"DAPR_PERF_PLAN_ONLY" oneof:"1 true 0 false" accepts:"1 or true (print the plan, start nothing), 0 or false" unset:"0 (make perf-plan sets 1)" desc:"print each scenario's plan and expected time as one daprperf-plan line and return without starting a process"`
	PushURL            *string `envconfig:"DAPR_PERF_METRICS_PROMETHEUS_PUSHGATEWAY_URL" accepts:"an http or https URL such as http://127.0.0.1:9091 (host:port means http)" unset:"unset: no push" desc:"Pushgateway to push every result to"`
	PushUsername       *string `envconfig:"DAPR_PERF_METRICS_PROMETHEUS_PUSHGATEWAY_USERNAME" accepts:"text" unset:"unset" desc:"Pushgateway basic-auth user (with the password)"`
	PushPassword       *string `envconfig:"DAPR_PERF_METRICS_PROMETHEUS_PUSHGATEWAY_PASSWORD" accepts:"text" unset:"unset" desc:"Pushgateway basic-auth password (with the user)"`
	PrometheusWriteURL *string `envconfig:"DAPR_PERF_PROMETHEUS_WRITE_URL" accepts:"an http or https URL of a remote-write endpoint, such as http://127.0.0.1:9090/api/v1/write (host:port means http; no path means /api/v1/write)" unset:"unset: no write" desc:"Prometheus remote-write endpoint every result is also written to, its samples stamped with the run's start time (a failed write is a warning)"`

	// The platform.
	Platform         *string        `envconfig:"DAPR_PERF_PLATFORM" oneof:"local kubernetes" accepts:"local or kubernetes" unset:"local" desc:"the platform the scenarios run on"`
	Daprd            *string        `envconfig:"DAPR_PERF_DAPRD" accepts:"the path of an executable daprd" unset:"unset" desc:"use this daprd binary instead of the built one (local)"`
	DaprVersion      *string        `envconfig:"DAPR_VERSION" accepts:"a daprd release tag such as v1.16.5" unset:"v1.18.3 (Makefile)" desc:"daprd version to build and run (local)"`
	DaprdB           *string        `envconfig:"DAPR_PERF_DAPRD_B" accepts:"the path of an executable daprd, or a version such as v1.16.5" unset:"unset" desc:"a second daprd build for an A/B run (local)"`
	ABDelay          *time.Duration `envconfig:"DAPR_PERF_AB_DELAY" min:"0s" max:"100ms" accepts:"a Go duration from 0s to 100ms, such as 500us" unset:"unset: no proxy" desc:"an A/B run on the local platform with a known slowdown of build B: every sidecar's HTTP and gRPC port is reached through a proxy in the test process, B's holding what the client sends for this long, A's forwarding only; for measuring what the verdict detects"`
	Kubeconfig       *string        `envconfig:"KUBECONFIG" accepts:"a kubeconfig path, or a list of them" unset:"unset: in-cluster" desc:"the cluster (kubernetes)"`
	KubeContext      *string        `envconfig:"DAPR_PERF_KUBE_CONTEXT" accepts:"the name of a context in the kubeconfig" unset:"the kubeconfig's current context" desc:"the cluster's context, as kubectl --context (kubernetes)"`
	ImageRegistry    *string        `envconfig:"DAPR_PERF_IMAGE_REGISTRY" accepts:"a registry host and path without scheme or trailing slash, such as ghcr.io/me" unset:"unset" desc:"where the daprperf-* images are (kubernetes)"`
	ImageTag         *string        `envconfig:"DAPR_PERF_IMAGE_TAG" accepts:"an image tag (letters, digits, _ . -; at most 128)" unset:"unset" desc:"the images' tag (kubernetes)"`
	DaprTestRegistry *string        `envconfig:"DAPR_TEST_REGISTRY" accepts:"as DAPR_PERF_IMAGE_REGISTRY" unset:"unset" desc:"Dapr's name for DAPR_PERF_IMAGE_REGISTRY, used when that is unset"`
	DaprTestTag      *string        `envconfig:"DAPR_TEST_TAG" accepts:"as DAPR_PERF_IMAGE_TAG" unset:"unset" desc:"Dapr's name for DAPR_PERF_IMAGE_TAG, used when that is unset"`
	KubePlacement    *string        `envconfig:"DAPR_PERF_KUBE_PLACEMENT" oneof:"auto labels spread none" accepts:"auto, labels, spread or none" unset:"auto" desc:"where the tester and target pods go (kubernetes): by the nodes (auto), on nodes labelled daprperf.io/role=load and =target (labels), preferably apart (spread), anywhere (none)"`
	ServiceType      *string        `envconfig:"DAPR_PERF_SERVICE_TYPE" oneof:"ClusterIP LoadBalancer" accepts:"ClusterIP or LoadBalancer" unset:"ClusterIP" desc:"type of the apps' Services (kubernetes)"`
	SidecarCPULimit  *string        `envconfig:"DAPR_SIDECAR_CPU_LIMIT" accepts:"a Kubernetes quantity, such as 4.0 or 500m" unset:"the scenario's, else Dapr's injector default" desc:"every sidecar's CPU limit, where the scenario sets none (kubernetes; Dapr's name)"`
	SidecarCPUReq    *string        `envconfig:"DAPR_SIDECAR_CPU_REQUEST" accepts:"a Kubernetes quantity, such as 0.5" unset:"the scenario's, else Dapr's injector default" desc:"every sidecar's CPU request, where the scenario sets none (kubernetes; Dapr's name)"`
	SidecarMemLimit  *string        `envconfig:"DAPR_SIDECAR_MEMORY_LIMIT" accepts:"a Kubernetes quantity, such as 512Mi" unset:"the scenario's, else Dapr's injector default" desc:"every sidecar's memory limit, where the scenario sets none (kubernetes; Dapr's name)"`
	SidecarMemReq    *string        `envconfig:"DAPR_SIDECAR_MEMORY_REQUEST" accepts:"a Kubernetes quantity, such as 250Mi" unset:"the scenario's, else Dapr's injector default" desc:"every sidecar's memory request, where the scenario sets none (kubernetes; Dapr's name)"`
	KubePackages     *string        `envconfig:"DAPR_PERF_KUBE_PACKAGES" accepts:"kinds, all, or package names of tests/ separated by commas" unset:"kinds" desc:"the scenario packages make test-kube runs on its cluster: one per plan kind, all 26 (make test-kube-all), or those named"`
	KubeNodeKeep     *string        `envconfig:"DAPR_PERF_KUBE_NODE_KEEP" accepts:"any text; set means keep" unset:"unset: removed" desc:"keep the cluster's work directory after teardown, for debugging (make test-kube)"`

	// The backends on kubernetes (kube/backends.go): where the components' stores and brokers
	// are; the local platform starts its own and reads none of these. Only the backends a
	// scenario's components need are read.
	RedisAddr          *string `envconfig:"DAPR_PERF_REDIS_ADDR" accepts:"host:port, such as redis-master.redis.svc.cluster.local:6379" unset:"a Redis component fails the run, naming this variable" desc:"Redis of state.redis and pubsub.redis (kubernetes)"`
	RedisPassword      *string `envconfig:"DAPR_PERF_REDIS_PASSWORD" accepts:"text" unset:"no password" desc:"Redis password (kubernetes; kept in a Secret)"`
	PostgreSQLAddr     *string `envconfig:"DAPR_PERF_POSTGRESQL_ADDR" accepts:"host:port, such as postgresql.postgresql.svc.cluster.local:5432" unset:"a PostgreSQL component fails the run, naming this variable" desc:"PostgreSQL of state.postgresql (kubernetes)"`
	PostgreSQLUsername *string `envconfig:"DAPR_PERF_POSTGRESQL_USERNAME" accepts:"text" unset:"postgres" desc:"PostgreSQL user (kubernetes)"`
	PostgreSQLPassword *string `envconfig:"DAPR_PERF_POSTGRESQL_PASSWORD" accepts:"text" unset:"no password" desc:"PostgreSQL password (kubernetes; kept in a Secret)"`
	PostgreSQLDatabase *string `envconfig:"DAPR_PERF_POSTGRESQL_DATABASE" accepts:"a database name" unset:"postgres" desc:"PostgreSQL database (kubernetes)"`
	RabbitMQAddr       *string `envconfig:"DAPR_PERF_RABBITMQ_ADDR" accepts:"host:port, such as rabbitmq.rabbitmq.svc.cluster.local:5672" unset:"a RabbitMQ component fails the run, naming this variable" desc:"RabbitMQ (AMQP) of pubsub.rabbitmq (kubernetes)"`
	RabbitMQUsername   *string `envconfig:"DAPR_PERF_RABBITMQ_USERNAME" accepts:"text" unset:"a RabbitMQ component fails the run (guest is let in from loopback only)" desc:"RabbitMQ user (kubernetes)"`
	RabbitMQPassword   *string `envconfig:"DAPR_PERF_RABBITMQ_PASSWORD" accepts:"text" unset:"a RabbitMQ component fails the run" desc:"RabbitMQ password (kubernetes; kept in a Secret)"`
	MQTTAddr           *string `envconfig:"DAPR_PERF_MQTT_ADDR" accepts:"host:port, such as mosquitto.mosquitto.svc.cluster.local:1883" unset:"an MQTT component fails the run, naming this variable" desc:"MQTT 3.1.1 broker of pubsub.mqtt3 (kubernetes)"`
	MQTTUsername       *string `envconfig:"DAPR_PERF_MQTT_USERNAME" accepts:"text" unset:"anonymous" desc:"MQTT user, with the password (kubernetes)"`
	MQTTPassword       *string `envconfig:"DAPR_PERF_MQTT_PASSWORD" accepts:"text" unset:"anonymous" desc:"MQTT password, with the user (kubernetes; kept in a Secret)"`
	KafkaAddr          *string `envconfig:"DAPR_PERF_KAFKA_ADDR" accepts:"host:port, or a comma-separated list of them, such as kafka.kafka.svc.cluster.local:9092" unset:"a Kafka component fails the run, naming this variable" desc:"Kafka brokers of pubsub.kafka (kubernetes only)"`
	KafkaUsername      *string `envconfig:"DAPR_PERF_KAFKA_USERNAME" accepts:"text" unset:"no SASL (authType none)" desc:"Kafka SASL user, with the password (kubernetes)"`
	KafkaPassword      *string `envconfig:"DAPR_PERF_KAFKA_PASSWORD" accepts:"text" unset:"no SASL (authType none)" desc:"Kafka SASL password, with the user (kubernetes; kept in a Secret)"`
	PulsarAddr         *string `envconfig:"DAPR_PERF_PULSAR_ADDR" accepts:"host:port, such as pulsar-broker.pulsar.svc.cluster.local:6650" unset:"a Pulsar component fails the run, naming this variable" desc:"Pulsar broker of pubsub.pulsar (kubernetes only)"`
	PulsarToken        *string `envconfig:"DAPR_PERF_PULSAR_TOKEN" accepts:"a JWT" unset:"no token" desc:"Pulsar token (kubernetes; kept in a Secret)"`
}

// Val is *p, or "" when p is nil: a text variable that is unset or empty.
func Val(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// EnvVar describes one variable of Env, from its tags.
type EnvVar struct {
	Name, Accepts, Default, Desc string
}

// EnvVars lists every variable Env reads, in Env's order.
func EnvVars() []EnvVar {
	t := reflect.TypeFor[Env]()
	out := make([]EnvVar, 0, t.NumField())
	for f := range t.Fields() {
		out = append(out, EnvVar{Name: f.Tag.Get("envconfig"), Accepts: f.Tag.Get("accepts"), Default: f.Tag.Get("unset"), Desc: f.Tag.Get("desc")})
	}
	return out
}

// EnvTableMarkdown renders EnvVars as the Markdown table docs/configuration.md shows under
// "Environment variables" (a test keeps the two identical).
func EnvTableMarkdown() string {
	var b strings.Builder
	b.WriteString("| variable | accepts | when unset | what it does |\n|---|---|---|---|\n")
	for _, v := range EnvVars() {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", v.Name, v.Accepts, v.Default, v.Desc)
	}
	return b.String()
}

// UnknownEnv names each variable of environ ("NAME=value" pairs, as os.Environ gives them)
// that starts with DAPR_PERF_ but is none of Env's, with the nearest of Env's names when one is
// within three edits (a typo), one line each; daprperf ignores such a variable, so a run says
// so instead of silently running at its default. Nil when there is none.
func UnknownEnv(environ []string) []string {
	known := map[string]bool{}
	var names []string
	for _, v := range EnvVars() {
		known[v.Name] = true
		names = append(names, v.Name)
	}
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "DAPR_PERF_") || known[name] {
			continue
		}
		msg := name + " is set, but daprperf reads no variable of that name: ignored"
		best, dist := "", 4
		for _, n := range names {
			if d := editDistance(name, n); d < dist {
				best, dist = n, d
			}
		}
		if best != "" {
			msg += " (did you mean " + best + "?)"
		}
		out = append(out, msg)
	}
	return out
}

// editDistance is the Levenshtein distance of a and b (insertions, deletions, substitutions).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
