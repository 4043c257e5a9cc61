package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// epmdProc is the process name of the Erlang port mapper daemon RabbitMQ's node registers with.
const epmdProc = "rabbitmq-epmd"

// epmdWait bounds the wait for our epmd to listen before the RabbitMQ node starts.
const epmdWait = 5 * time.Second

// rabbitmqKind runs Debian's RabbitMQ 3.10 on loopback: AMQP on ports[0], Erlang distribution
// on ports[1], and an epmd of its own on ports[2], started by the platform (in the foreground,
// so it is a child stopped by PID, not a daemon). The node has a private name
// (rabbit-<random>@localhost), its own HOME (Erlang cookie), Mnesia and log folders, and
// reads no system configuration: RABBITMQ_CONF_ENV_FILE, RABBITMQ_CONFIG_FILE and
// RABBITMQ_ENABLED_PLUGINS_FILE name files of the run (no plugins).
var rabbitmqKind = &backendKind{
	proc: "rabbitmq",
	pkg:  "rabbitmq-server",
	bins: []binary{
		// The script itself, not /usr/sbin/rabbitmq-server, which switches to the rabbitmq user.
		{name: "rabbitmq-server", candidates: []string{"/usr/lib/rabbitmq/bin/rabbitmq-server"}},
		{name: "epmd", candidates: []string{"epmd", "/usr/bin/epmd"}}, // erlang-base, a dependency
	},
	ports:  3,
	launch: launchRabbitMQ,
	ping: func(ctx context.Context, b *backendServer) (string, error) {
		conn, err := amqp.DialConfig(rabbitmqURL(b), amqp.Config{Dial: dialContext(ctx)})
		if err != nil {
			return "", fmt.Errorf("amqp dial %s: %w", b.addr(), err)
		}
		defer func() { _ = conn.Close() }()
		ch, err := conn.Channel()
		if err != nil {
			return "", fmt.Errorf("amqp channel %s: %w", b.addr(), err)
		}
		_ = ch.Close()
		v, _ := conn.Properties["version"].(string)
		if v == "" {
			return "", fmt.Errorf("amqp %s: the server sent no version (properties %v)", b.addr(), conn.Properties)
		}
		if platform, ok := conn.Properties["platform"].(string); ok {
			v += " (" + platform + ")"
		}
		return v, nil
	},
	metadata: func(b *backendServer) map[string]string {
		return map[string]string{"connectionString": rabbitmqURL(b)}
	},
}

// rabbitmqURL is the AMQP URL of b. RabbitMQ lets its default user guest in from loopback only,
// which is where every client of the run is.
func rabbitmqURL(b *backendServer) string { return "amqp://guest:guest@" + b.addr() + "/" }

// dialContext dials TCP within ctx, for amqp.Config.Dial.
func dialContext(ctx context.Context) func(network, addr string) (net.Conn, error) {
	return func(network, addr string) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if dl, ok := ctx.Deadline(); ok {
			_ = conn.SetDeadline(dl) // the handshake too; amqp clears it afterwards
		}
		return conn, nil
	}
}

func launchRabbitMQ(ctx context.Context, d *Deployment, b *backendServer) error {
	amqpPort, distPort, epmdPort := strconv.Itoa(b.ports[0]), strconv.Itoa(b.ports[1]), strconv.Itoa(b.ports[2])
	files := map[string]string{
		"rabbitmq.conf": "listeners.tcp.1 = 127.0.0.1:" + amqpPort + "\n" +
			"disk_free_limit.absolute = 50MB\n", // the default, 50 MB, explicit: a small disk is no alarm
		"enabled_plugins":   "[].\n",
		"rabbitmq-env.conf": "# empty: the platform sets the environment\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(b.dir, name), []byte(text), 0o644); err != nil {
			return fmt.Errorf("config: %w", err)
		}
	}
	epmdEnv := backendEnv([]string{"ERL_"})
	epmd, err := d.startBackendProc(ctx, b, epmdProc, b.bins["epmd"],
		[]string{"-address", "127.0.0.1", "-port", epmdPort}, epmdEnv, procSpec{})
	if err != nil {
		return err
	}
	// The node must find this epmd, or Erlang starts a daemon epmd of its own, which nothing stops.
	if err := waitListening(ctx, epmd, "127.0.0.1:"+epmdPort, epmdWait); err != nil {
		return err
	}
	node := "rabbit-" + randomHex(4) + "@localhost"
	env := backendEnv([]string{"RABBITMQ_", "ERL_", "NOTIFY_SOCKET", "HOME"},
		"HOME="+b.dir,
		"RABBITMQ_NODENAME="+node,
		"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
		"RABBITMQ_NODE_PORT="+amqpPort,
		"RABBITMQ_DIST_PORT="+distPort,
		"ERL_EPMD_ADDRESS=127.0.0.1",
		"ERL_EPMD_PORT="+epmdPort,
		"RABBITMQ_MNESIA_BASE="+filepath.Join(b.dir, "mnesia"),
		"RABBITMQ_LOG_BASE="+filepath.Join(b.dir, "log"),
		"RABBITMQ_LOGS=-", // to stdout: the process log
		"RABBITMQ_PID_FILE="+filepath.Join(b.dir, "rabbitmq.pid"),
		"RABBITMQ_CONF_ENV_FILE="+filepath.Join(b.dir, "rabbitmq-env.conf"),
		"RABBITMQ_CONFIG_FILE="+filepath.Join(b.dir, "rabbitmq.conf"),
		"RABBITMQ_ENABLED_PLUGINS_FILE="+filepath.Join(b.dir, "enabled_plugins"),
		// With RABBITMQ_ALLOW_INPUT the script execs the VM instead of running it under a shell
		// that forwards signals: the PID the platform holds is then the broker's own (beam.smp),
		// which Pdeathsig ties to the test binary. -noinput keeps the Erlang shell off all the same.
		"RABBITMQ_ALLOW_INPUT=true",
		// -start_epmd false: never start a daemon epmd. The distribution port binds every
		// interface unless told otherwise (RabbitMQ 3.10.8).
		"RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-noinput -start_epmd false -kernel inet_dist_use_interface {127,0,0,1}",
	)
	p, err := d.startBackendProc(ctx, b, b.kind.proc, b.bins["rabbitmq-server"], nil, env, procSpec{})
	b.main = p
	return err
}

// waitListening waits until addr accepts a TCP connection, at most d; it fails at once when p
// has exited.
func waitListening(ctx context.Context, p *process, addr string, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var last error
	for {
		var dl net.Dialer
		conn, err := dl.DialContext(ctx, "tcp", addr)
		if err == nil {
			return conn.Close()
		}
		last = err
		select {
		case <-p.done:
			return exitedDuringStart(p)
		case <-ctx.Done():
			return fmt.Errorf("%s (pid %d) not listening on %s after %v: %v; log %s", p.name, p.pid, addr, d, last, p.log)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
