package scenarios

import (
	"fmt"
	"slices"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
)

// Names of the pub/sub subscribe scenarios' apps, component and topic.
const (
	SubscriberApp  = "subscriber"
	DeliveryPubSub = "pubsub"
	DeliveryTopic  = "deliveries"
)

// Bulk subscribe settings of the bulk scenarios: Dapr's documented example
// (bulkSubscribe maxMessagesCount 100, maxAwaitDurationMs 40; Dapr docs, "Bulk Publish &
// Subscribe").
const (
	BulkMaxMessages = 100
	BulkMaxAwait    = 40 * time.Millisecond
)

// SubscribeBroker is one broker of the subscribe scenarios.
type SubscribeBroker struct {
	// Name is the scenario's suffix: "redis", "rabbitmq", "mqtt".
	Name      string
	Component perf.Component
	Backend   perf.Backend
	// P95 is Dapr's bound on delivery p95 for a normal subscription to this broker.
	P95 time.Duration
}

// SubscribeBrokers are the brokers the local platform starts: Redis (streams), RabbitMQ and
// MQTT 3 (Mosquitto, QoS 1: at least once). Dapr's pubsub_subscribe_http (k6) bounds delivery
// p95 at 1500 ms, 3000 ms for RabbitMQ. Kafka and Pulsar have no real broker here.
var SubscribeBrokers = []SubscribeBroker{
	{Name: "redis", Component: perf.Component{Name: DeliveryPubSub, Type: perf.PubSubRedis}, Backend: perf.BackendRedis, P95: 1500 * time.Millisecond},
	{Name: "rabbitmq", Component: perf.Component{Name: DeliveryPubSub, Type: perf.PubSubRabbitMQ}, Backend: perf.BackendRabbitMQ, P95: 3000 * time.Millisecond},
	{Name: "mqtt", Component: perf.Component{Name: DeliveryPubSub, Type: perf.PubSubMQTT3, Metadata: map[string]string{"qos": "1"}}, Backend: perf.BackendMQTT, P95: 1500 * time.Millisecond},
}

// bulkP95 is Dapr's bound for bulk subscribe (pubsub_subscribe_http, bulk: 500 ms).
const bulkP95 = 500 * time.Millisecond

// daprSubscribeSuite is the source of the delivery-latency bounds.
const daprSubscribeSuite = "Dapr tests/perf pubsub_subscribe_http (k6 threshold on p95)"

// SubscribeBrokerNamed returns the broker called name, or an error listing them.
func SubscribeBrokerNamed(name string) (SubscribeBroker, error) {
	i := slices.IndexFunc(SubscribeBrokers, func(b SubscribeBroker) bool { return b.Name == name })
	if i < 0 {
		return SubscribeBroker{}, fmt.Errorf("subscribe broker %q: want redis, rabbitmq or mqtt", name)
	}
	return SubscribeBrokers[i], nil
}

// PubSubSubscribe is the delivery scenario of b in mode, over HTTP: the tester publishes
// 100-byte messages at 200 msg/s over 8 connections for 1 minute through its daprd (env
// overrides: DAPR_PERF_QPS, DAPR_TEST_DURATION, ...), after a 5 s warmup at 50 msg/s; the
// subscriber app, behind its own daprd, subscribes normally or in bulk (BulkMaxMessages,
// BulkMaxAwait). Test names: "pubsub_subscribe_<broker>", "pubsub_bulk_subscribe_<broker>".
// Bounds: 0 lost (daprperf: delivery is counted), delivery p95 at Dapr's bound (b.P95; bulk
// 500 ms), 0 publish errors, 0 restarts, QPS >= 99 % of the target.
func PubSubSubscribe(b SubscribeBroker, mode perf.SubscribeMode) perf.Scenario {
	test := "pubsub_subscribe_" + b.Name
	p95 := b.P95
	if mode == perf.SubscribeBulk {
		test = "pubsub_bulk_subscribe_" + b.Name
		p95 = bulkP95
	}
	comps := []perf.Component{b.Component}
	return perf.Scenario{
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
			Operation: perf.Operation{Kind: perf.OpPublish, PubSub: DeliveryPubSub, Topic: DeliveryTopic}},
		MainOptions: []perf.Option{
			perf.WithQPS(200), perf.WithConnections(8), perf.WithDuration(time.Minute), perf.WithPayloadSize(100),
		},
		WarmupOptions: []perf.Option{
			perf.WithQPS(50), perf.WithConnections(8), perf.WithDuration(5 * time.Second), perf.WithPayloadSize(100),
		},
		Plan: &plan.DeliveryPlan{Subscriber: SubscriberApp, Mode: mode, Broker: b.Backend},
		Thresholds: []perf.Threshold{
			{Figure: "delivery.lost", Op: perf.AtMost, Limit: 0, Source: "daprperf design point 12: every message delivered"},
			{Figure: "delivery.p95", Op: perf.AtMost, Limit: p95.Seconds(), Source: daprSubscribeSuite},
			{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "Dapr perf suite: no failed request"},
			{Figure: "restarts", Op: perf.AtMost, Limit: 0, Source: "Dapr perf suite"},
			{Figure: "qps.ratio", Op: perf.Above, Limit: 0.99, Source: "Dapr perf suite: actual QPS > 0.99 x target"},
		},
	}
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

// WithBrokerRestart is sc (a PubSubSubscribe scenario) with its broker restarted at into the
// main load, under the test name "<test>_broker_restart". Its lost or duplicated messages
// then show in the result; the 0-lost bound stays, so a run that loses any fails it.
func WithBrokerRestart(sc perf.Scenario, at time.Duration) perf.Scenario {
	dp := *sc.Plan.(*plan.DeliveryPlan)
	dp.RestartBroker = at
	sc.Plan = &dp
	sc.Test += "_broker_restart"
	return sc
}
