package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/plan"
)

// Names of the pub/sub subscribe scenarios' apps, component and topic.
const (
	SubscriberApp  = "subscriber"
	DeliveryPubSub = "pubsub"
	DeliveryTopic  = "deliveries"
)

// Bulk subscribe settings of the bulk scenarios: Dapr's app (tests/apps/perf/pubsub_subscribe_http
// at v1.18.3) enables bulk subscribe and sets neither, so daprd's defaults apply
// (pkg/runtime/pubsub/default_bulksub.go: maxMessagesCount 100, maxAwaitDurationMs 1000).
// DAPR_PERF_BULK_SUBSCRIBE_MAX_AWAIT sets another wait (Dapr's documented example is 40 ms).
const (
	BulkMaxMessages = 100
	BulkMaxAwait    = time.Second
	// BulkDeliveryMaxAwait is the bulk wait of daprperf's fixed-rate delivery runs
	// (PubSubDelivery), which measure the delivery latency a bulk's wait would be most of:
	// Dapr's documented example (Dapr docs, "Bulk Publish & Subscribe": maxAwaitDurationMs 40).
	BulkDeliveryMaxAwait = 40 * time.Millisecond
)

// withBulkWait is bulk scenario sc with its subscriber's bulk waiting wait (the value of its
// -bulk-max-await, every other argument kept, -grpc among them), and its AppWork saying so with
// note; sc's own apps are not written.
func withBulkWait(sc perf.Scenario, wait time.Duration, note string) perf.Scenario {
	sc.Apps = slices.Clone(sc.Apps)
	for i := range sc.Apps {
		if sc.Apps[i].Name != SubscriberApp {
			continue
		}
		args := slices.Clone(sc.Apps[i].Args)
		if j := slices.Index(args, "-bulk-max-await"); j >= 0 && j+1 < len(args) {
			args[j+1] = wait.String()
		} else {
			args = append(args, "-bulk-max-await", wait.String())
		}
		sc.Apps[i].Args = args
	}
	sc.AppWork = bulkAppWork(wait, note)
	return sc
}

// bulkAppWork is the bulk subscriber's work in words, as the result records it
// (Scenario.AppWork); note says why the wait is not daprd's default, or is empty.
func bulkAppWork(wait time.Duration, note string) string {
	s := fmt.Sprintf("bulk subscription: up to %d messages a bulk, waiting up to %v to fill one", BulkMaxMessages, wait)
	if note != "" {
		s += " (" + note + ")"
	}
	return s
}

// SubscribeBroker is one broker of the subscribe scenarios.
type SubscribeBroker struct {
	// Name is the scenario's suffix: "redis", "rabbitmq", "mqtt".
	Name      string
	Component perf.Component
	Backend   perf.Backend
	// P95 is Dapr's bound on the publish request's p95 for a normal subscription to this broker.
	P95 time.Duration
}

// SubscribeBrokers are the brokers the local platform starts: Redis (streams), RabbitMQ and
// MQTT 3 (Mosquitto, QoS 1: at least once). Dapr's pubsub_subscribe_http (k6) bounds the bulk
// publish request's p95 at 1500 ms, 3000 ms for RabbitMQ. Kafka and Pulsar have no real broker
// here.
var SubscribeBrokers = []SubscribeBroker{
	{Name: "redis", Component: perf.Component{Name: DeliveryPubSub, Type: perf.PubSubRedis}, Backend: perf.BackendRedis, P95: 1500 * time.Millisecond},
	{Name: "rabbitmq", Component: perf.Component{Name: DeliveryPubSub, Type: perf.PubSubRabbitMQ}, Backend: perf.BackendRabbitMQ, P95: 3000 * time.Millisecond},
	{Name: "mqtt", Component: perf.Component{Name: DeliveryPubSub, Type: perf.PubSubMQTT3, Metadata: map[string]string{"qos": "1"}}, Backend: perf.BackendMQTT, P95: 1500 * time.Millisecond},
}

// bulkP95 is Dapr's bound for bulk subscribe (pubsub_subscribe_http, bulk: 500 ms).
const bulkP95 = 500 * time.Millisecond

// daprSubscribeSuite is the source of the publish-request bounds.
const daprSubscribeSuite = "Dapr tests/perf pubsub_subscribe_http (k6 http_req_duration p(95) threshold, on the bulk publish request)"

// SubscribeBulkSize is the messages each iteration of Dapr's subscribe test bulk-publishes
// (test.js defaultCount), each of SubscribeMessageBytes (hundredBytesMessage).
const (
	SubscribeBulkSize     = 100
	SubscribeMessageBytes = 100
)

// SubscribeBrokerNamed returns the broker called name, or an error listing them.
func SubscribeBrokerNamed(name string) (SubscribeBroker, error) {
	i := slices.IndexFunc(SubscribeBrokers, func(b SubscribeBroker) bool { return b.Name == name })
	if i < 0 {
		return SubscribeBroker{}, fmt.Errorf("subscribe broker %q: want redis, rabbitmq or mqtt", name)
	}
	return SubscribeBrokers[i], nil
}

// daprRampStages are the stages of Dapr's k6 ramp in its configuration and subscribe tests
// (test.js): 0 -> 100 VUs over 2 s, -> 300 over 3 s, -> 500 over 4 s.
func daprRampStages() []driver.Stage {
	return []driver.Stage{
		{Duration: 2 * time.Second, Target: 100},
		{Duration: 3 * time.Second, Target: 300},
		{Duration: 4 * time.Second, Target: 500},
	}
}

// daprRamp is the ramping-vus executor of Dapr's subscribe and configuration k6 scripts: 0 ->
// 100 VUs over 2 s, -> 300 over 3 s, -> 500 over 4 s, gracefulRampDown 0 s; each target
// scaled under DAPR_PERF_QPS (scaledRamp). Its graceful stop
// is long enough for an iteration that waits the whole of perf.DaprAwaitTimeout to end by
// itself (k6's default is 30 s): an iteration cut short would leave its messages uncounted.
func daprRamp() driver.Executor {
	return scaledRamp(driver.Executor{
		Kind:             driver.RampingVUs,
		Stages:           daprRampStages(),
		GracefulRampDown: time.Nanosecond, // k6's "0s"; 0 here is the 30 s default
		GracefulStop:     perf.DaprAwaitTimeout + 2*awaitMargin,
	})
}

// awaitMargin is added to the await window where a bound must outlast it: the tester's own
// wait for the subscriber's answer, the graceful stop.
const awaitMargin = 5 * time.Second

// PubSubSubscribe is Dapr's pubsub_subscribe_http test of b in mode, over HTTP: Dapr's k6
// load (test.js), a ramp of 0 -> 500 VUs over 9 s (daprRamp), each iteration bulk-publishing
// SubscribeBulkSize messages of SubscribeMessageBytes through the tester's daprd, then waiting
// up to perf.DaprAwaitTimeout until the subscriber app, behind its own daprd, has received
// every one of them (Dapr's app answers a WebSocket once any 100 more arrived; here the tester
// asks for its own sequence numbers). Warmup: 5 VUs for 3 s of the same iterations. The
// subscriber subscribes normally or in bulk (BulkMaxMessages, BulkMaxAwait). Test names:
// "pubsub_subscribe_<broker>", "pubsub_bulk_subscribe_<broker>".
//
// Bounds (Dapr's): the publish request's p95 below b.P95 (bulk subscribe: 500 ms), 0 errors
// (a failed publish, or an iteration whose messages did not all arrive in time: Dapr's
// error_counter and its timeouts), 0 restarts; daprperf's: 0 lost. A closed loop has no target
// rate, so no qps.ratio gate; the delivery latency is reported beside it.
func PubSubSubscribe(b SubscribeBroker, mode perf.SubscribeMode) perf.Scenario {
	test := "pubsub_subscribe_" + b.Name
	p95 := b.P95
	if mode == perf.SubscribeBulk {
		test = "pubsub_bulk_subscribe_" + b.Name
		p95 = bulkP95
	}
	comps := []perf.Component{b.Component}
	work := ""
	if mode == perf.SubscribeBulk {
		work = bulkAppWork(BulkMaxAwait, "")
	}
	return perf.Scenario{
		ForEnv:    subscribeForEnv(mode),
		AppWork:   work,
		Test:      test,
		Transport: perf.HTTP,
		Apps: []perf.App{
			{Name: TesterApp, Kind: perf.Tester, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Components: comps}},
			{Name: SubscriberApp, Kind: perf.Subscriber,
				Args:    perf.SubscriberArgs(DeliveryPubSub, DeliveryTopic, mode, BulkMaxMessages, BulkMaxAwait),
				Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Components: comps}},
		},
		Tester: TesterApp,
		Main: perf.Route{To: SubscriberApp, ThroughSidecar: true,
			Operation: perf.Operation{Kind: perf.OpPublishBulk, PubSub: DeliveryPubSub, Topic: DeliveryTopic, BulkEntries: SubscribeBulkSize}},
		// Duration is not what the executor runs; the plan's progress lines estimate with it.
		MainOptions: []perf.Option{
			perf.WithDuration(9 * time.Second), perf.WithPayloadSize(SubscribeMessageBytes), perf.WithExecutor(daprRamp()),
		},
		WarmupOptions: []perf.Option{
			perf.WithDuration(3 * time.Second), perf.WithPayloadSize(SubscribeMessageBytes), perf.WithExecutor(driver.Executor{
				Kind: driver.ConstantVUs, VUs: 5, Duration: 3 * time.Second, GracefulStop: perf.DaprAwaitTimeout + 2*awaitMargin,
			}),
		},
		Plan: &plan.DeliveryPlan{Subscriber: SubscriberApp, Mode: mode, Broker: b.Backend, Await: perf.DaprAwaitTimeout},
		Thresholds: []perf.Threshold{
			{Figure: "latency.p95", Op: perf.Below, Limit: p95.Seconds(), Source: daprSubscribeSuite},
			{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "Dapr tests/perf pubsub_subscribe_http: checks rate==1, error_counter count==0, timeouts count==0"},
			{Figure: "delivery.lost", Op: perf.AtMost, Limit: 0, Source: "daprperf design point 12: every message delivered"},
			{Figure: "restarts", Op: perf.AtMost, Limit: 0, Source: "Dapr perf suite"},
		},
	}
}

// PubSubDelivery is daprperf's fixed-rate delivery run of b in mode: PubSubSubscribe's apps
// and accounting, with single publishes of 100 bytes at a fixed rate, 200 msg/s over 8
// connections for 1 minute (warmup 50 msg/s for 5 s; the load variables apply), none waiting
// for its message. The delivery latency is then measured at a known rate, and a broker
// restart shows on a steady stream, as lost messages. Test names "pubsub_delivery_<broker>",
// "pubsub_bulk_delivery_<broker>", whose bulks wait BulkDeliveryMaxAwait. Bounds: 0 lost,
// delivery p95 at Dapr's subscribe bound for the broker (b.P95, bulk 500 ms; Dapr bounds the
// publish request with it), 0 errors, 0 restarts, QPS >= 99 % of the target.
func PubSubDelivery(b SubscribeBroker, mode perf.SubscribeMode) perf.Scenario {
	sc := PubSubSubscribe(b, mode)
	sc.Test = strings.Replace(sc.Test, "_subscribe_", "_delivery_", 1)
	p95 := b.P95
	if mode == perf.SubscribeBulk {
		p95 = bulkP95
	}
	sc.Main.Operation = perf.Operation{Kind: perf.OpPublish, PubSub: DeliveryPubSub, Topic: DeliveryTopic}
	sc.MainOptions = []perf.Option{
		perf.WithQPS(200), perf.WithConnections(8), perf.WithDuration(time.Minute), perf.WithPayloadSize(SubscribeMessageBytes),
	}
	sc.WarmupOptions = []perf.Option{
		perf.WithQPS(50), perf.WithConnections(8), perf.WithDuration(5 * time.Second), perf.WithPayloadSize(SubscribeMessageBytes),
	}
	if mode == perf.SubscribeBulk { // a bulk's wait would be most of the delivery latency measured
		sc = withBulkWait(sc, BulkDeliveryMaxAwait, "Dapr's documented example; the subscribe tests wait daprd's default, "+BulkMaxAwait.String())
	}
	sc.Plan = &plan.DeliveryPlan{Subscriber: SubscriberApp, Mode: mode, Broker: b.Backend}
	sc.Thresholds = []perf.Threshold{
		{Figure: "delivery.lost", Op: perf.AtMost, Limit: 0, Source: "daprperf design point 12: every message delivered"},
		{Figure: "delivery.p95", Op: perf.AtMost, Limit: p95.Seconds(), Source: "Dapr tests/perf pubsub_subscribe_http's p95 bound, here on delivery"},
		{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "Dapr perf suite: no failed request"},
		{Figure: "restarts", Op: perf.AtMost, Limit: 0, Source: "Dapr perf suite"},
		{Figure: "qps.ratio", Op: perf.Above, Limit: 0.99, Source: "Dapr perf suite: actual QPS > 0.99 x target"},
	}
	return sc
}

// PubSubSubscribeAll is every broker in normal then bulk mode.
func PubSubSubscribeAll() []perf.Scenario {
	var out []perf.Scenario
	for _, mode := range []perf.SubscribeMode{perf.SubscribeNormal, perf.SubscribeBulk} {
		for _, b := range SubscribeBrokers {
			out = append(out, PubSubSubscribe(b, mode))
		}
	}
	return out
}

// WithBrokerRestart is sc (a PubSubSubscribe or PubSubDelivery scenario) with its broker restarted at into the
// main load, under the test name "<test>_broker_restart". Its lost or duplicated messages
// then show in the result; the 0-lost bound stays, so a run that loses any fails it.
func WithBrokerRestart(sc perf.Scenario, at time.Duration) perf.Scenario {
	dp := *sc.Plan.(*plan.DeliveryPlan)
	dp.RestartBroker = at
	sc.Plan = &dp
	sc.Test += "_broker_restart"
	return sc
}

// Dapr's pubsub_subscribe_http variables, with Dapr's meaning (dapr/dapr
// tests/perf/pubsub_subscribe_http/pubsub_subscribe_test.go, v1.18.3).
const (
	EnvPubSubSubscribeThreshold     = "DAPR_PERF_PUBSUB_SUBSCRIBE_HTTP_THRESHOLD"
	EnvPubSubBulkSubscribeThreshold = "DAPR_PERF_PUBSUB_BULK_SUBSCRIBE_HTTP_THRESHOLD"
	EnvPubSubSubsConfigFile         = "DAPR_PERF_PUBSUB_SUBS_HTTP_TEST_CONFIG_FILE_NAME"
	// EnvBulkSubscribeMaxAwait is daprperf's: the bulk subscription's wait (BulkMaxAwait).
	EnvBulkSubscribeMaxAwait = "DAPR_PERF_BULK_SUBSCRIBE_MAX_AWAIT"
)

// subscribeForEnv is the subscribe scenarios' Scenario.ForEnv for mode: in bulk mode
// DAPR_PERF_BULK_SUBSCRIBE_MAX_AWAIT replaces the subscription's wait (and says so in AppWork);
// Dapr's threshold
// variable of the mode replaces the publish request's p95 bound (milliseconds, every broker);
// Dapr's config file test_kafka.yaml, Kafka alone, skips the scenario (no Kafka broker here),
// and test_all.yaml runs it, its notes saying that Kafka and Pulsar are not run.
func subscribeForEnv(mode perf.SubscribeMode) func(perf.Env, perf.Scenario) (perf.Scenario, error) {
	return func(env perf.Env, sc perf.Scenario) (perf.Scenario, error) {
		file := perf.Val(env.PubSubSubsConfigFile)
		if file == "test_kafka.yaml" {
			return sc, &perf.SkipError{Reason: fmt.Sprintf("%s=test_kafka.yaml: Dapr's Kafka-only configuration; no Kafka broker is installable here, so %s does not run", EnvPubSubSubsConfigFile, sc.Test)}
		}
		name, v := EnvPubSubSubscribeThreshold, env.PubSubSubscribeThreshold
		if mode == perf.SubscribeBulk {
			name, v = EnvPubSubBulkSubscribeThreshold, env.PubSubBulkSubscribeThreshold
		}
		if w := env.BulkSubscribeMaxAwait; w != nil && mode == perf.SubscribeBulk {
			sc = withBulkWait(sc, *w, fmt.Sprintf("%s=%v; Dapr's app waits daprd's default, %v", EnvBulkSubscribeMaxAwait, *w, BulkMaxAwait))
		}
		sc.Thresholds = slices.Clone(sc.Thresholds)
		for i := range sc.Thresholds {
			th := &sc.Thresholds[i]
			if th.Figure != "latency.p95" {
				continue
			}
			if file == "test_all.yaml" {
				th.Source += fmt.Sprintf("; %s=test_all.yaml: its Kafka and Pulsar components do not run here (no broker installable)", EnvPubSubSubsConfigFile)
			}
			if v != nil {
				th.Limit = float64(*v) / 1e3
				th.Source += fmt.Sprintf("; %s=%d (ms)", name, *v)
			}
		}
		return sc, nil
	}
}
