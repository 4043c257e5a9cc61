package tester

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/daprperf/daprperf/perf"
)

// brokerConnectTimeout bounds a direct publisher's connection to its broker.
const brokerConnectTimeout = 10 * time.Second

// rabbitMQPublishCaller publishes each event as daprd's pubsub.rabbitmq does with its default
// metadata (components-contrib v1.17 pubsub/rabbitmq publishSync): to the exchange named as the
// topic, declared once as a durable fanout exchange deleted when unused, routing key "",
// content type text/plain, delivery mode 0 (transient), without publisher confirms (daprd's
// publisherConfirm defaults to false), so a publish returns once written to the connection.
// One AMQP connection and channel per load connection; guest/guest, as the local broker and
// daprd's component use.
type rabbitMQPublishCaller struct {
	conn     *amqp.Connection
	ch       *amqp.Channel
	dials    atomic.Int64
	exchange string
	msg      amqp.Publishing
	n        int // events per request: BulkEntries or Repeat
}

func newRabbitMQPublishCaller(p perf.Params) (caller, error) {
	c := &rabbitMQPublishCaller{exchange: p.Operation.Topic, n: p.Operation.EventsPerRequest(),
		msg: amqp.Publishing{ContentType: "text/plain", Body: p.RequestBody()}}
	var dialer net.Dialer
	conn, err := amqp.DialConfig("amqp://guest:guest@"+p.Target+"/", amqp.Config{
		Dial: func(network, addr string) (net.Conn, error) {
			c.dials.Add(1)
			ctx, cancel := context.WithTimeout(context.Background(), brokerConnectTimeout)
			defer cancel()
			return dialer.DialContext(ctx, network, addr)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("rabbitmq %s: %w", p.Target, err)
	}
	c.conn = conn
	if c.ch, err = conn.Channel(); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("rabbitmq %s: channel: %w", p.Target, err)
	}
	if err := c.ch.ExchangeDeclare(c.exchange, amqp.ExchangeFanout, true, true, false, false, nil); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("rabbitmq %s: declare exchange %s: %w", p.Target, c.exchange, err)
	}
	return c, nil
}

func (c *rabbitMQPublishCaller) call(ctx context.Context) (string, bool) {
	for range c.n {
		if err := c.ch.PublishWithContext(ctx, c.exchange, "", false, false, c.msg); err != nil {
			if ae, ok := err.(*amqp.Error); ok {
				return strconv.Itoa(ae.Code), false
			}
			return "-1", false
		}
	}
	return "OK", true
}

func (c *rabbitMQPublishCaller) sockets() int64 { return c.dials.Load() }

func (c *rabbitMQPublishCaller) close() error { return c.conn.Close() }

// mqttPublishCaller publishes each event as daprd's pubsub.mqtt3 does with its default
// metadata (components-contrib v1.17 pubsub/mqtt3 Publish): to the topic, QoS 1 (so each
// publish waits for the broker's PUBACK), not retained, as a clean-session client. One MQTT
// connection per load connection.
type mqttPublishCaller struct {
	client mqtt.Client
	dials  atomic.Int64
	topic  string
	body   []byte
	n      int
}

// mqttQoS is daprd's default QoS for pubsub.mqtt3 (metadata qos, default 1).
const mqttQoS = 1

func newMQTTPublishCaller(p perf.Params) (caller, error) {
	c := &mqttPublishCaller{topic: p.Operation.Topic, body: p.RequestBody(), n: p.Operation.EventsPerRequest()}
	var dialer net.Dialer
	o := mqtt.NewClientOptions().AddBroker("tcp://" + p.Target).SetClientID("daprperf-direct-" + uuid.NewString()).
		SetCleanSession(true).SetAutoReconnect(false).SetConnectRetry(false).SetConnectTimeout(brokerConnectTimeout).
		SetCustomOpenConnectionFn(func(u *url.URL, _ mqtt.ClientOptions) (net.Conn, error) {
			c.dials.Add(1)
			ctx, cancel := context.WithTimeout(context.Background(), brokerConnectTimeout)
			defer cancel()
			return dialer.DialContext(ctx, "tcp", u.Host)
		})
	c.client = mqtt.NewClient(o)
	if t := c.client.Connect(); !t.WaitTimeout(brokerConnectTimeout) || t.Error() != nil {
		return nil, fmt.Errorf("mqtt %s: connect: %v", p.Target, t.Error())
	}
	return c, nil
}

func (c *mqttPublishCaller) call(ctx context.Context) (string, bool) {
	for range c.n {
		t := c.client.Publish(c.topic, mqttQoS, false, c.body)
		select {
		case <-t.Done():
		case <-ctx.Done():
			return "-1", false
		}
		if t.Error() != nil {
			return "-1", false
		}
	}
	return "OK", true
}

func (c *mqttPublishCaller) sockets() int64 { return c.dials.Load() }

func (c *mqttPublishCaller) close() error { c.client.Disconnect(100); return nil }
