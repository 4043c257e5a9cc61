package tester

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
)

// redisPubSubDeployment starts, on the local platform, one httpapp with a daprd loading
// pubsub.redis as "pubsub" and the Redis server it needs; it returns the deployment and the
// Redis address. Without daprd or redis-server it skips, unless $CI is set.
func redisPubSubDeployment(t *testing.T) (perf.Deployment, string) {
	t.Helper()
	p, err := local.New(local.WithoutDaprdB())
	if errors.Is(err, local.ErrDaprdNotFound) && os.Getenv("CI") == "" {
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dep, err := p.StartE(ctx, t, perf.App{Name: "pub", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP,
		Components: []perf.Component{{Name: "pubsub", Type: perf.PubSubRedis}}}})
	if err != nil && os.Getenv("CI") == "" && strings.Contains(err.Error(), local.ErrBackendMissing.Error()) {
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	for _, b := range dep.Backends() {
		if b.Backend == perf.BackendRedis {
			return dep, b.Address
		}
	}
	t.Fatal("the deployment reports no redis backend")
	return nil, ""
}

// TestPublishToRealRedis drives each publish caller of the tester for one second against a
// real daprd with pubsub.redis, and the direct XADD publisher against the same Redis, then reads
// the streams back: every successful request's events are there, no more, and a raw event's
// "data" is the payload byte for byte; with CloudEvents, daprd's envelope carries the payload
// as its "data". The direct publisher's entries have the same fields as daprd's.
func TestPublishToRealRedis(t *testing.T) {
	dep, redisAddr := redisPubSubDeployment(t)
	httpBase, err := dep.Endpoint("pub", perf.SidecarHTTP)
	require.NoError(t, err)
	grpcAddr, err := dep.Endpoint("pub", perf.SidecarGRPC)
	require.NoError(t, err)
	rc := redis.NewClient(&redis.Options{Addr: redisAddr})
	t.Cleanup(func() { _ = rc.Close() })
	// Not JSON (published as text/plain), with characters JSON escapes; valid UTF-8, since the
	// bulk body and the CloudEvent are JSON, which cannot carry other bytes as they are.
	const payload = "event-payload 0123456789 \"quoted\" \\ <tag> & \u00fc\u20ac\x01 end"

	cases := []struct {
		name   string
		proto  perf.Protocol
		target string
		op     perf.Operation
	}{
		{"http publish raw", perf.HTTP, httpBase, perf.Operation{Kind: perf.OpPublish, RawPayload: true}},
		{"http publish cloudevents", perf.HTTP, httpBase, perf.Operation{Kind: perf.OpPublish}},
		{"http publish raw x3", perf.HTTP, httpBase, perf.Operation{Kind: perf.OpPublish, RawPayload: true, Repeat: 3}},
		{"http bulk of 4 raw", perf.HTTP, httpBase, perf.Operation{Kind: perf.OpPublishBulk, RawPayload: true, BulkEntries: 4}},
		{"grpc publish raw", perf.GRPC, grpcAddr, perf.Operation{Kind: perf.OpPublish, RawPayload: true}},
		{"grpc publish raw x3", perf.GRPC, grpcAddr, perf.Operation{Kind: perf.OpPublish, RawPayload: true, Repeat: 3}},
		{"grpc bulk of 4 cloudevents", perf.GRPC, grpcAddr, perf.Operation{Kind: perf.OpPublishBulk, BulkEntries: 4}},
		{"grpc bulk of 4 raw", perf.GRPC, grpcAddr, perf.Operation{Kind: perf.OpPublishBulk, RawPayload: true, BulkEntries: 4}},
		{"direct xadd", perf.GRPC, redisAddr, perf.Operation{Kind: perf.OpPublish, Direct: perf.BackendRedis, Baseline: perf.BaselineStore}},
		{"direct xadd x3", perf.GRPC, redisAddr, perf.Operation{Kind: perf.OpPublish, Direct: perf.BackendRedis, Baseline: perf.BaselineStore, Repeat: 3}},
		{"direct xadd bulk of 4", perf.GRPC, redisAddr, perf.Operation{Kind: perf.OpPublishBulk, Direct: perf.BackendRedis, Baseline: perf.BaselineStore, BulkEntries: 4}},
	}
	daprdFields := map[perf.OperationKind][]string{} // the field names of daprd's entries
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			topic := fmt.Sprintf("topic-%d", i)
			c.op.PubSub, c.op.Topic = "pubsub", topic
			p := perf.DefaultParams()
			p.Protocol, p.Target, p.Operation = c.proto, c.target, c.op
			p.QPS, p.Connections, p.Duration, p.Payload = 20, 2, time.Second, payload
			res, err := Run(t.Context(), p)
			require.NoError(t, err)
			require.Positive(t, res.Requests)
			assert.Zero(t, res.Errors(), "codes %v", res.RetCodes)
			assert.Equal(t, c.op.BaselineKind(), res.Baseline)

			entries, err := rc.XRange(t.Context(), topic, "-", "+").Result()
			require.NoError(t, err)
			// Every request sent is in the stream: HTTP publishes go through fortio's standard
			// client (nocontent.go), which sends no untimed warm-up request.
			sent := int(res.Requests)
			want := sent * c.op.EventsPerRequest()
			require.Len(t, entries, want, "%d requests (%d timed) of %d events in stream %s", sent, res.Requests, c.op.EventsPerRequest(), topic)
			raw := c.op.RawPayload || c.op.Direct != ""
			for _, e := range entries {
				data, ok := e.Values["data"].(string)
				require.True(t, ok, "entry %s has a data field: %v", e.ID, e.Values)
				if raw {
					require.Equal(t, payload, data, "entry %s: the raw payload byte for byte", e.ID)
				} else {
					var ce struct {
						SpecVersion string `json:"specversion"`
						Topic       string `json:"topic"`
						Data        string `json:"data"`
					}
					require.NoError(t, json.Unmarshal([]byte(data), &ce), "entry %s: a CloudEvent: %q", e.ID, data)
					assert.Equal(t, "1.0", ce.SpecVersion)
					assert.Equal(t, topic, ce.Topic)
					require.Equal(t, payload, ce.Data, "entry %s: the CloudEvent's data is the payload", e.ID)
				}
			}
			// daprd's single publishes write "data" and "metadata" (the JSON of the request's
			// metadata: {} or {"rawPayload":"true"}); its bulk publishes with CloudEvents the
			// same, raw ones "data" only. The direct publisher writes daprd's single-publish
			// fields, with metadata {}.
			fields := sortedKeys(entries[0].Values)
			switch {
			case c.op.Direct != "":
				assert.Equal(t, []string{"data", "metadata"}, fields)
				assert.Equal(t, redisEntryMetadata, entries[0].Values["metadata"])
				if f, ok := daprdFields[perf.OpPublish]; ok {
					assert.Equal(t, f, fields, "the direct publisher writes the fields of daprd's publish")
				}
			case c.op.Kind == perf.OpPublish:
				daprdFields[perf.OpPublish] = fields
				assert.Equal(t, []string{"data", "metadata"}, fields)
			}
		})
	}
}

func sortedKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestDirectPublishToRabbitMQAndMQTT publishes raw events for one second through daprd
// (pubsub.rabbitmq, pubsub.mqtt3) and with the direct publishers, each to its own topic, and
// reads them back from the brokers themselves: a queue bound to the topic's exchange before
// the load holds exactly the events sent (RabbitMQ), a subscriber at QoS 1 receives exactly
// them (Mosquitto), each body the payload byte for byte.
func TestDirectPublishToRabbitMQAndMQTT(t *testing.T) {
	p, err := local.New(local.WithoutDaprdB())
	if errors.Is(err, local.ErrDaprdNotFound) && os.Getenv("CI") == "" {
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	dep, err := p.StartE(ctx, t, perf.App{Name: "pub", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP,
		Components: []perf.Component{{Name: "rabbitpubsub", Type: perf.PubSubRabbitMQ}, {Name: "mqttpubsub", Type: perf.PubSubMQTT3}}}})
	cancel()
	if err != nil && os.Getenv("CI") == "" && strings.Contains(err.Error(), local.ErrBackendMissing.Error()) {
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	addr := map[perf.Backend]string{}
	for _, b := range dep.Backends() {
		addr[b.Backend] = b.Address
	}
	httpBase, err := dep.Endpoint("pub", perf.SidecarHTTP)
	require.NoError(t, err)
	const payload = "raw event \"quoted\" & <tag> \u00fc end"

	rabbit, err := amqp.Dial("amqp://guest:guest@" + addr[perf.BackendRabbitMQ] + "/")
	require.NoError(t, err)
	t.Cleanup(func() { _ = rabbit.Close() })
	rch, err := rabbit.Channel()
	require.NoError(t, err)
	mq := mqtt.NewClient(mqtt.NewClientOptions().AddBroker("tcp://" + addr[perf.BackendMQTT]).SetClientID("publish-test-" + uuid.NewString()))
	tok := mq.Connect()
	require.True(t, tok.WaitTimeout(10*time.Second))
	require.NoError(t, tok.Error())
	t.Cleanup(func() { mq.Disconnect(100) })

	for _, c := range []struct {
		name   string
		broker perf.Backend
		pubsub string
		direct bool
		op     perf.Operation
	}{
		{"daprd rabbitmq", perf.BackendRabbitMQ, "rabbitpubsub", false, perf.Operation{Kind: perf.OpPublish, RawPayload: true}},
		{"direct rabbitmq", perf.BackendRabbitMQ, "rabbitpubsub", true, perf.Operation{Kind: perf.OpPublish}},
		{"direct rabbitmq x3", perf.BackendRabbitMQ, "rabbitpubsub", true, perf.Operation{Kind: perf.OpPublish, Repeat: 3}},
		{"daprd mqtt", perf.BackendMQTT, "mqttpubsub", false, perf.Operation{Kind: perf.OpPublish, RawPayload: true}},
		{"direct mqtt", perf.BackendMQTT, "mqttpubsub", true, perf.Operation{Kind: perf.OpPublish}},
		{"direct mqtt bulk of 4", perf.BackendMQTT, "mqttpubsub", true, perf.Operation{Kind: perf.OpPublishBulk, BulkEntries: 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			topic := "t-" + strings.ReplaceAll(c.name, " ", "-")
			c.op.PubSub, c.op.Topic = c.pubsub, topic
			lp := perf.DefaultParams()
			lp.Protocol, lp.Target = perf.HTTP, httpBase
			if c.direct {
				c.op.Direct, c.op.Baseline = c.broker, perf.BaselineStore
				lp.Protocol, lp.Target = perf.GRPC, addr[c.broker]
			}
			lp.Operation, lp.QPS, lp.Connections, lp.Duration, lp.Payload = c.op, 20, 2, time.Second, payload

			var got atomic.Int64
			bodies := make(chan string, 1000)
			var queue string
			if c.broker == perf.BackendRabbitMQ { // daprd's exchange: durable fanout, auto-delete
				require.NoError(t, rch.ExchangeDeclare(topic, amqp.ExchangeFanout, true, true, false, false, nil))
				q, err := rch.QueueDeclare("", false, true, true, false, nil)
				require.NoError(t, err)
				require.NoError(t, rch.QueueBind(q.Name, "", topic, false, nil))
				queue = q.Name
			} else {
				tok := mq.Subscribe(topic, 1, func(_ mqtt.Client, m mqtt.Message) { got.Add(1); bodies <- string(m.Payload()) })
				require.True(t, tok.WaitTimeout(10*time.Second))
				require.NoError(t, tok.Error())
			}
			res, err := Run(t.Context(), lp)
			require.NoError(t, err)
			assert.Zero(t, res.Errors(), "codes %v", res.RetCodes)
			sent := int(res.Requests) // HTTP publishes use fortio's standard client: no untimed warm-up request
			want := int64(sent * c.op.EventsPerRequest())
			if c.broker == perf.BackendRabbitMQ {
				require.Eventually(t, func() bool {
					q, err := rch.QueueDeclarePassive(queue, false, true, true, false, nil)
					return err == nil && int64(q.Messages) == want
				}, 10*time.Second, 50*time.Millisecond, "%d messages in the queue bound to exchange %s", want, topic)
				m, ok, err := rch.Get(queue, true)
				require.NoError(t, err)
				require.True(t, ok)
				assert.Equal(t, payload, string(m.Body), "the body byte for byte")
				return
			}
			require.Eventually(t, func() bool { return got.Load() >= want }, 10*time.Second, 20*time.Millisecond, "%d messages received on %s", want, topic)
			time.Sleep(200 * time.Millisecond) // no more than sent arrive
			assert.Equal(t, want, got.Load())
			assert.Equal(t, payload, <-bodies, "the payload byte for byte")
		})
	}
}
