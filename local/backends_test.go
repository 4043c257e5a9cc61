package local_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/jackc/pgx/v5"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
)

// deliveryWait bounds the wait for a published message at the broker.
const deliveryWait = 10 * time.Second

// storeApp is an httpapp whose daprd loads one component of every type the platform serves.
func storeApp() perf.App {
	return perf.App{Name: "app", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Components: []perf.Component{
		{Name: "memstate", Type: perf.StateInMemory},
		{Name: "redisstate", Type: perf.StateRedis},
		{Name: "pgstate", Type: perf.StatePostgreSQL}, // v2
		{Name: "mempubsub", Type: perf.PubSubInMemory},
		{Name: "redispubsub", Type: perf.PubSubRedis},
		{Name: "rabbitpubsub", Type: perf.PubSubRabbitMQ},
		{Name: "mqttpubsub", Type: perf.PubSubMQTT3},
	}}}
}

// skipWithoutBackends skips t when a backend's binary is missing and $CI is unset (make
// test-deps installs them).
func skipWithoutBackends(t *testing.T, p *local.Platform, apps ...perf.App) *local.Deployment {
	t.Helper()
	d, err := p.StartE(startCtx(t), t, apps...)
	if err != nil && os.Getenv("CI") == "" && strings.Contains(err.Error(), local.ErrBackendMissing.Error()) {
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	return d
}

// TestSidecarUsesRealBackends starts one daprd with a state store and a pub/sub of every type,
// the backends with it. Through daprd's HTTP API on loopback it saves and gets a key in each
// state store (and finds the key in Redis and PostgreSQL themselves), publishes to each pub/sub
// (and receives the message from Redis, RabbitMQ and Mosquitto directly). Then it kills
// Mosquitto: Exits names it.
func TestSidecarUsesRealBackends(t *testing.T) {
	isolated(t, func(t *testing.T, p *local.Platform) {
		start := time.Now()
		d := skipWithoutBackends(t, p, storeApp())
		t.Logf("deployment ready in %v", time.Since(start).Round(time.Millisecond))
		addr := map[perf.Backend]string{}
		for _, b := range d.Backends() {
			t.Logf("backend %s: %s (package %s) at %s, ready in %.3f s", b.Process, b.Version, b.Package, b.Address, b.ReadySeconds)
			addr[b.Backend] = b.Address
		}
		require.Len(t, addr, 5, "redis, postgresql, rabbitmq and mqtt, once each, and sentry (mTLS)")
		dapr := endpoint(t, d, "app", perf.SidecarHTTP)

		t.Run("state", func(t *testing.T) {
			for _, store := range []string{"memstate", "redisstate", "pgstate"} {
				value := "value of " + store
				code, body := send(t, http.MethodPost, dapr+"/v1.0/state/"+store, fmt.Sprintf(`[{"key":"k1","value":%q}]`, value))
				require.Equal(t, http.StatusNoContent, code, "save in %s: %s", store, body)
				code, body = get(t, dapr+"/v1.0/state/"+store+"/k1")
				require.Equal(t, http.StatusOK, code, "get from %s: %s", store, body)
				assert.Equal(t, fmt.Sprintf("%q", value), body, store)
			}
			// Dapr's key is "<app id>||<key>".
			rc := redis.NewClient(&redis.Options{Addr: addr[perf.BackendRedis]})
			defer func() { _ = rc.Close() }()
			data, err := rc.HGet(t.Context(), "app||k1", "data").Result()
			require.NoError(t, err, "the key in Redis itself")
			assert.Contains(t, data, "value of redisstate")

			pg, err := pgx.Connect(t.Context(), "postgres://postgres@"+addr[perf.BackendPostgreSQL]+"/postgres?sslmode=disable")
			require.NoError(t, err)
			defer func() { _ = pg.Close(context.Background()) }()
			var stored []byte
			require.NoError(t, pg.QueryRow(t.Context(), "SELECT value FROM state WHERE key = 'app||k1'").Scan(&stored), "the row in PostgreSQL itself")
			assert.Contains(t, string(stored), "value of pgstate")
		})

		t.Run("publish", func(t *testing.T) {
			code, body := send(t, http.MethodPost, dapr+"/v1.0/publish/mempubsub/orders", `{"n":0}`)
			assert.Equal(t, http.StatusNoContent, code, "in-memory publish: %s", body)

			rabbit := consumeRabbitMQ(t, addr[perf.BackendRabbitMQ], "orders")
			mq := consumeMQTT(t, addr[perf.BackendMQTT], "orders")
			for i, ps := range []string{"redispubsub", "rabbitpubsub", "mqttpubsub"} {
				code, body := send(t, http.MethodPost, dapr+"/v1.0/publish/"+ps+"/orders", fmt.Sprintf(`{"n":%d}`, i+1))
				require.Equal(t, http.StatusNoContent, code, "publish to %s: %s", ps, body)
			}
			rc := redis.NewClient(&redis.Options{Addr: addr[perf.BackendRedis]})
			defer func() { _ = rc.Close() }()
			entries, err := rc.XRange(t.Context(), "orders", "-", "+").Result() // pubsub.redis is Redis Streams
			require.NoError(t, err)
			require.Len(t, entries, 1, "one message in the Redis stream")
			assert.Contains(t, fmt.Sprint(entries[0].Values["data"]), `"n":1`)
			assert.Contains(t, receive(t, rabbit, "rabbitmq"), `"n":2`)
			assert.Contains(t, receive(t, mq, "mqtt"), `"n":3`)
		})

		t.Run("killed backend", func(t *testing.T) {
			pid := d.PID("mosquitto")
			require.NotZero(t, pid)
			require.NoError(t, d.Kill("mosquitto"))
			exits, err := d.Exits(t.Context())
			require.NoError(t, err)
			require.Len(t, exits, 1)
			assert.Equal(t, "mosquitto", exits[0].Process)
			assert.Equal(t, "signal SIGKILL", exits[0].Reason)
		})
	})
}

// TestBadComponentSettings: an unknown component type fails the start before anything runs,
// naming the field and the types accepted; a backend port in use names the backend and port.
func TestBadComponentSettings(t *testing.T) {
	t.Run("unknown type", func(t *testing.T) {
		isolated(t, func(t *testing.T, p *local.Platform) {
			app := storeApp()
			app.Sidecar.Components = append(app.Sidecar.Components, perf.Component{Name: "queue", Type: "pubsub.jetstream"})
			_, err := p.StartE(startCtx(t), t, app)
			require.Error(t, err)
			assert.Contains(t, err.Error(), `app app: component queue: unknown Type "pubsub.jetstream" (want one of `)
			for _, typ := range perf.ComponentTypes() {
				assert.Contains(t, err.Error(), string(typ))
			}
		})
	})
	t.Run("kafka is kubernetes only", func(t *testing.T) {
		isolated(t, func(t *testing.T, p *local.Platform) {
			app := storeApp()
			app.Sidecar.Components = append(app.Sidecar.Components, perf.Component{Name: "queue", Type: perf.PubSubKafka})
			_, err := p.StartE(startCtx(t), t, app)
			require.Error(t, err)
			assert.Contains(t, err.Error(), `app app: component queue: the local platform cannot start a kafka backend (kafka and pulsar are for DAPR_PERF_PLATFORM=kubernetes only`)
		})
	})
	t.Run("port in use", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer func() { _ = ln.Close() }()
		taken := ln.Addr().(*net.TCPAddr).Port
		n := 0
		alloc := func() (int, error) { // the app, its daprd's five ports, then Redis's
			if n++; n == 7 {
				return taken, nil
			}
			return local.FreePort()
		}
		isolated(t, func(t *testing.T, p *local.Platform) {
			app := perf.App{Name: "app", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{Components: []perf.Component{{Name: "s", Type: perf.StateRedis}}}}
			_, err := p.StartE(startCtx(t), t, app)
			require.Error(t, err)
			assert.Contains(t, err.Error(), fmt.Sprintf("redis: port 127.0.0.1:%d is in use", taken))
		}, local.WithPortAllocator(alloc))
	})
}

// send does method url with a JSON body and returns the status code and body.
func send(t testing.TB, method, url, body string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// consumeRabbitMQ binds a private queue to the exchange pubsub.rabbitmq publishes topic to (a
// fanout exchange named after the topic, declared as components-contrib declares it: durable,
// deleted when unused) and returns the bodies it receives.
func consumeRabbitMQ(t *testing.T, addr, topic string) <-chan string {
	t.Helper()
	conn, err := amqp.Dial("amqp://guest:guest@" + addr + "/")
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	require.NoError(t, err)
	require.NoError(t, ch.ExchangeDeclare(topic, "fanout", true, true, false, false, nil))
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	require.NoError(t, err)
	require.NoError(t, ch.QueueBind(q.Name, "", topic, false, nil))
	msgs, err := ch.Consume(q.Name, "", true, true, false, false, nil)
	require.NoError(t, err)
	out := make(chan string, 16)
	go func() {
		for m := range msgs {
			out <- string(m.Body)
		}
	}()
	return out
}

// consumeMQTT subscribes to topic on the broker at addr and returns the payloads it receives.
func consumeMQTT(t *testing.T, addr, topic string) <-chan string {
	t.Helper()
	out := make(chan string, 16)
	c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker("tcp://" + addr).SetClientID("daprperf-test-consumer").
		SetAutoReconnect(false).SetConnectTimeout(5 * time.Second))
	tok := c.Connect()
	require.True(t, tok.WaitTimeout(5*time.Second), "mqtt connect")
	require.NoError(t, tok.Error())
	t.Cleanup(func() { c.Disconnect(0) })
	sub := c.Subscribe(topic, 1, func(_ mqtt.Client, m mqtt.Message) { out <- string(m.Payload()) })
	require.True(t, sub.WaitTimeout(5*time.Second), "mqtt subscribe")
	require.NoError(t, sub.Error())
	return out
}

// receive waits for one message from ch, at most deliveryWait.
func receive(t *testing.T, ch <-chan string, broker string) string {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(deliveryWait):
		t.Errorf("no message from %s within %v", broker, deliveryWait)
		return ""
	}
}
