package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/daprperf/daprperf/perf"
)

// mqttVersionTopic is where Mosquitto publishes its version, retained, at start-up.
const mqttVersionTopic = "$SYS/broker/version"

// mqttKind runs Debian's Mosquitto 2.0, an MQTT 3.1.1 broker, with one listener on
// 127.0.0.1, anonymous clients allowed (nothing else can reach it), no persistence and a
// per-client queue of perf.MQTTMaxQueuedMessages.
var mqttKind = &backendKind{
	proc:  "mosquitto",
	pkg:   "mosquitto",
	bins:  []binary{{name: "mosquitto", candidates: []string{"mosquitto", "/usr/sbin/mosquitto"}}},
	ports: 1,
	launch: func(ctx context.Context, d *Deployment, b *backendServer) error {
		conf := []string{
			"listener " + strconv.Itoa(b.ports[0]) + " 127.0.0.1",
			"allow_anonymous true",
			"persistence false",
			"max_queued_messages " + strconv.Itoa(perf.MQTTMaxQueuedMessages),
			"log_dest stdout", // the process log
		}
		if os.Geteuid() == 0 {
			// Mosquitto started as root switches to the user mosquitto, which cannot read the
			// run directory and would lose the death signal that ties it to the test binary.
			conf = append(conf, "user root")
		}
		path := filepath.Join(b.dir, "mosquitto.conf")
		if err := os.WriteFile(path, []byte(strings.Join(conf, "\n")+"\n"), 0o644); err != nil {
			return fmt.Errorf("config: %w", err)
		}
		p, err := d.startBackendProc(ctx, b, b.kind.proc, b.bins["mosquitto"], []string{"-c", path}, backendEnv(nil), procSpec{})
		b.main = p
		return err
	},
	ping: pingMQTT,
	metadata: func(b *backendServer) map[string]string {
		return map[string]string{"url": "tcp://" + b.addr()}
	},
}

// pingMQTT connects (CONNECT, CONNACK) and reads the retained version the broker publishes.
func pingMQTT(ctx context.Context, b *backendServer) (string, error) {
	timeout := time.Second
	if dl, ok := ctx.Deadline(); ok {
		timeout = max(time.Until(dl), time.Millisecond)
	}
	opts := mqtt.NewClientOptions().AddBroker("tcp://" + b.addr()).
		SetClientID("daprperf-ping-" + randomHex(4)).
		SetConnectTimeout(timeout).SetAutoReconnect(false).SetConnectRetry(false).SetCleanSession(true)
	c := mqtt.NewClient(opts)
	tok := c.Connect()
	if !tok.WaitTimeout(timeout) {
		return "", fmt.Errorf("mqtt connect %s: no CONNACK within %v", b.addr(), timeout)
	}
	if err := tok.Error(); err != nil {
		return "", fmt.Errorf("mqtt connect %s: %w", b.addr(), err)
	}
	defer c.Disconnect(0)
	version := make(chan string, 1)
	sub := c.Subscribe(mqttVersionTopic, 0, func(_ mqtt.Client, m mqtt.Message) {
		select {
		case version <- string(m.Payload()):
		default:
		}
	})
	if !sub.WaitTimeout(timeout) || sub.Error() != nil {
		return "", fmt.Errorf("mqtt subscribe %s on %s: %v", mqttVersionTopic, b.addr(), sub.Error())
	}
	select {
	case v := <-version:
		return v, nil
	case <-ctx.Done():
		return "", fmt.Errorf("mqtt %s: no %s message: %w", b.addr(), mqttVersionTopic, ctx.Err())
	}
}
