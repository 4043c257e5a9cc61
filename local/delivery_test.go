package local_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/plan"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// deliveryEnv is a short delivery run: 1 s warmup, 2 s at 50 msg/s (96 messages: 8 connections
// of 12).
var deliveryEnv = map[string]string{
	"DAPR_TEST_DURATION": "2s", "DAPR_PERF_QPS": "50", "DAPR_PERF_WARMUP_DURATION": "1s", "DAPR_PERF_PREFLIGHT": "off",
}

// brokerBinaries are the programs the local platform runs for each broker (backend_*.go).
var brokerBinaries = map[perf.Backend][]string{
	perf.BackendRedis:    {"redis-server"},
	perf.BackendRabbitMQ: {"rabbitmq-server", "/usr/lib/rabbitmq/bin/rabbitmq-server"},
	perf.BackendMQTT:     {"mosquitto", "/usr/sbin/mosquitto"},
}

// skipWithoutBroker skips t when b's program is not installed and $CI is unset (under CI the
// run then fails, naming the package to install).
func skipWithoutBroker(t *testing.T, b perf.Backend) {
	t.Helper()
	for _, c := range brokerBinaries[b] {
		if _, err := exec.LookPath(c); err == nil {
			return
		}
	}
	if os.Getenv("CI") == "" {
		t.Skipf("skipping: no %v installed (make test-deps)", brokerBinaries[b])
	}
}

// A short real delivery through two daprd on each broker, normal subscribe, and bulk on
// Redis: every one of the 100 messages sent arrives once, with a delivery latency measured.
func TestDeliveryThroughDaprdOnEachBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daprd and brokers")
	}
	for k, v := range deliveryEnv {
		t.Setenv(k, v)
	}
	cases := []perf.Scenario{}
	for _, b := range scenarios.SubscribeBrokers {
		cases = append(cases, scenarios.PubSubDelivery(b, perf.SubscribeNormal))
	}
	cases = append(cases, scenarios.PubSubDelivery(scenarios.SubscribeBrokers[0], perf.SubscribeBulk))
	// Delivery over gRPC (Dapr's AppCallback), normal and bulk, on Redis.
	for _, mode := range []perf.SubscribeMode{perf.SubscribeNormal, perf.SubscribeBulk} {
		cases = append(cases, scenarios.PubSubDelivery(scenarios.SubscribeBrokers[0], mode))
		cases[len(cases)-1] = scenarios.DeliverOverGRPC(cases[len(cases)-1])
	}
	for _, sc := range cases {
		// Not the 2 s load's qps.ratio: its last publish's own time is a few % of 2 s (MQTT's
		// p90 through daprd is 44 ms), and this test is about delivery, not the rate.
		sc.Thresholds = slices.DeleteFunc(slices.Clone(sc.Thresholds), func(th perf.Threshold) bool { return th.Figure == "qps.ratio" })
		t.Run(sc.Test, func(t *testing.T) {
			isolated(t, func(t *testing.T, p *local.Platform) {
				skipWithoutBroker(t, sc.Plan.(*plan.DeliveryPlan).Broker)
				rep := runner.Run(t, sc, runner.WithPlatform(p), runner.WithReportDir(t.TempDir()))
				d := rep.Delivery
				require.NotNil(t, d)
				require.Len(t, rep.Loads, 1)
				assert.Equal(t, rep.Loads[0].Requests, d.Sequenced)
				assert.GreaterOrEqual(t, d.Sequenced, int64(90), "2 s at 50 msg/s")
				assert.Equal(t, d.Sequenced, d.Sent)
				assert.Equal(t, d.Sent, d.Received)
				assert.Zero(t, d.Lost)
				assert.Zero(t, d.Stale+d.Malformed+d.Unexpected, "%+v", d)
				assert.True(t, d.DrainComplete)
				require.NotEmpty(t, d.Latency.Percentiles)
				assert.Greater(t, d.Latency.MinSeconds, 0.0)
				assert.Less(t, d.Latency.MaxSeconds, 2.0)
				assert.Less(t, d.Handler.AvgSeconds, d.Latency.AvgSeconds, "the subscriber's handler costs less than the latency it measures")
				if d.Mode == perf.SubscribeBulk {
					assert.Less(t, d.HandlerCalls, int64(100), "bulk: several messages per delivery call")
				}
				wantDelivery := perf.HTTP
				if strings.Contains(sc.Test, "_grpc_") {
					wantDelivery = perf.GRPC
				}
				assert.Equal(t, wantDelivery, d.Delivery)
				assert.Equal(t, 0.0, rep.Figures.Gates["delivery.lost"])
				assert.Contains(t, rep.Figures.Gates, "delivery.p95")
			})
		})
	}
}

// The broker (Redis, no persistence) is restarted 1.5 s into a 4 s main load, in a child
// test process whose run must fail the 0-lost bound: the result file counts the lost messages
// (those Redis held when it went away, and those published while daprd's consumer had no
// stream) and records the restart.
func TestBrokerRestartShowsLostMessages(t *testing.T) {
	if dir := os.Getenv("DAPRPERF_RESTART_BROKER_CHILD_DIR"); dir != "" {
		p, err := local.New(local.WithEnv(runner.EnvFor(t)), local.WithRunDirParent(dir), local.WithoutDaprdB())
		require.NoError(t, err)
		sc := scenarios.WithBrokerRestart(scenarios.PubSubDelivery(scenarios.SubscribeBrokers[0], perf.SubscribeNormal), restartAt)
		if os.Getenv("DAPRPERF_RESTART_BROKER_SLOW") != "" {
			slowConsumer(&sc)
		}
		runner.Run(t, sc, runner.WithPlatform(p), runner.WithReportDir(dir))
		return
	}
	if testing.Short() {
		t.Skip("starts daprd and Redis")
	}
	newPlatform(t) // skips without daprd, as the child would
	skipWithoutBroker(t, perf.BackendRedis)
	// A fast consumer: each message is delivered within milliseconds, so Redis holds none when
	// it stops. Nothing is lost. Whether the publishers see errors depends on how soon daprd's
	// Redis client reconnects after the restart: none when its retries cover the 0.1 s down
	// time, a second of them on a loaded machine. Either way every message published arrives,
	// and the run fails on its publish errors or its late sends only, never on a lost message.
	t.Run("fast-consumer", func(t *testing.T) {
		d, out, err := restartChild(t, false)
		assert.Zero(t, d.Lost, "%s", out)
		assert.Equal(t, d.Sent, d.Received, "%s", out)
		assert.Equal(t, d.Sequenced, d.Sent+d.PublishErrors, "%s", out)
		if d.PublishErrors == 0 {
			if err != nil {
				// The restart can hold every connection's publish past its slot: more than 1 %
				// late in a 4 s run makes the run invalid, though every verdict passes.
				assert.Contains(t, string(out), "INVALID run", "nothing lost, so the run passes or is invalid for its late sends:\n%s", out)
				assert.NotRegexp(t, `verdict: .*: FAIL`, string(out), "nothing lost, so every verdict passes")
			}
			return
		}
		t.Logf("%d publish errors while daprd's Redis client reconnected", d.PublishErrors)
		require.Error(t, err, "the run fails on its publish errors:\n%s", out)
		assert.Contains(t, string(out), fmt.Sprintf("errors = %d, at most 0", d.PublishErrors))
		assert.Contains(t, string(out), "delivery.lost = 0, at most 0 (daprperf design point 12: every message delivered): pass")
	})
	// A slow consumer (20 ms per message, one at a time: 50 msg/s for 100 published): a backlog
	// builds up in Redis, and the restart of a Redis without persistence loses it.
	t.Run("slow-consumer", func(t *testing.T) {
		d, out, err := restartChild(t, true)
		assert.Positive(t, d.Lost, "the backlog Redis held is lost:\n%s", out)
		assert.Equal(t, d.Sent, d.Received+d.Lost)
		require.Error(t, err, "the child run must fail the 0-lost bound:\n%s", out)
		assert.Contains(t, string(out), fmt.Sprintf("delivery.lost = %d, at most 0", d.Lost))
	})
}

// restartChild runs the restart scenario in a child test process, fast or slow consumer, and
// returns its result file's delivery, its output and its exit error.
func restartChild(t *testing.T, slow bool) (*perf.DeliveryReport, []byte, error) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestBrokerRestartShowsLostMessages$", "-test.v")
	cmd.Env = append(os.Environ(), "DAPRPERF_RESTART_BROKER_CHILD_DIR="+dir,
		"DAPR_TEST_DURATION=4s", "DAPR_PERF_QPS=100", "DAPR_PERF_WARMUP_DURATION=1s", "DAPR_PERF_PREFLIGHT=off")
	if slow {
		cmd.Env = append(cmd.Env, "DAPRPERF_RESTART_BROKER_SLOW=1")
	}
	out, err := cmd.CombinedOutput()
	files, _ := filepath.Glob(filepath.Join(dir, perf.RunsDir, "*", "pubsub_delivery_redis_broker_restart", "http", "result.json"))
	require.Len(t, files, 1, "the result file is written:\n%s", out)
	rep, rerr := report.ReadReport(files[0])
	require.NoError(t, rerr)
	d := rep.Delivery
	require.NotNil(t, d, "%s", out)
	require.NotNil(t, d.BrokerRestart, "%s", out)
	assert.Empty(t, d.BrokerRestart.Error)
	assert.InDelta(t, restartAt.Seconds(), d.BrokerRestart.AtSeconds, 0.5)
	assert.Greater(t, d.BrokerRestart.DownSeconds, 0.0)
	require.Len(t, rep.Loads, 1)
	assert.Equal(t, rep.Loads[0].Requests, d.Sequenced)
	assert.Empty(t, rep.Exits, "a requested restart is not an unexpected exit")
	t.Logf("Redis restarted %.1f s into the load, down %.2f s: stamped %d, publish errors %d, received %d, lost %d, duplicated %d",
		d.BrokerRestart.AtSeconds, d.BrokerRestart.DownSeconds, d.Sequenced, d.PublishErrors, d.Received, d.Lost, d.Duplicated)
	return d, out, err
}

// slowConsumer makes sc's subscriber take 20 ms per delivery and its daprd deliver one at a
// time (pubsub.redis concurrency 1, queueDepth 1), on both sidecars (one definition).
func slowConsumer(sc *perf.Scenario) {
	for i := range sc.Apps {
		a := &sc.Apps[i]
		if a.Kind == perf.Subscriber {
			a.Args = append(a.Args, "-delay", "20ms")
		}
		for j := range a.Sidecar.Components {
			a.Sidecar.Components[j].Metadata = map[string]string{"concurrency": "1", "queueDepth": "1"}
		}
	}
}

// restartAt is when the restart test restarts the broker, from the main load's start.
const restartAt = 1500 * time.Millisecond

// Dapr's subscribe and configuration-subscribe loads at a small scale: a ramp of closed-loop
// iterations, each waiting for the messages its request stamped (perf.Await). Every stamped
// message is accounted for, none times out, and the iteration's time is what Dapr's k6
// threshold times: the publish request alone (the subscriber, slowed to 200 ms per delivery
// call, makes every wait longer than that), or the update and its wait (configuration).
func TestAwaitingLoadsThroughDaprd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daprd and Redis")
	}
	for _, v := range []string{"DAPR_TEST_DURATION", "DAPR_PERF_QPS", "DAPR_PERF_AWAIT_TIMEOUT"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	t.Setenv("DAPR_PERF_PREFLIGHT", "off")
	small := func(sc perf.Scenario) perf.Scenario {
		sc.MainOptions = append(slices.Clone(sc.MainOptions), perf.WithExecutor(driver.Executor{Kind: driver.RampingVUs,
			Stages: []driver.Stage{{Duration: 2 * time.Second, Target: 10}}, GracefulRampDown: time.Nanosecond, GracefulStop: 20 * time.Second}))
		sc.WarmupOptions = append(slices.Clone(sc.WarmupOptions), perf.WithExecutor(driver.Executor{Kind: driver.ConstantVUs,
			VUs: 2, Duration: time.Second, GracefulStop: 20 * time.Second}))
		return sc
	}
	// The subscriber takes delay per delivery call, and pubsub.redis hands daprd one message per
	// worker (its concurrency, 10 by default): at 10 workers a bulk call carries at most 10
	// messages, the subscriber falls about 20 s behind the load, and it is still delivering when
	// the run ends. daprd 1.17's default bulk subscriber then cannot stop: a worker that takes a
	// queued message after the subscription ended waits for a batch nobody flushes (dapr
	// pkg/runtime/pubsub/default_bulksub.go), and daprd exits 1 on its graceful-shutdown
	// timeout. 200 workers keep the subscriber ahead of the load, so that nothing is queued at
	// teardown. Every app that names the component must define it alike.
	const delay = 200 * time.Millisecond
	publish := small(scenarios.PubSubSubscribe(scenarios.SubscribeBrokers[0], perf.SubscribeBulk))
	for i := range publish.Apps {
		a := &publish.Apps[i]
		if a.Kind == perf.Subscriber {
			a.Args = append(a.Args, "-delay", delay.String())
		}
		a.Sidecar.Components = slices.Clone(a.Sidecar.Components)
		for j := range a.Sidecar.Components {
			a.Sidecar.Components[j].Metadata = map[string]string{"concurrency": "200", "queueDepth": "200"}
		}
	}
	configuration := small(scenarios.ConfigurationSubscribe(perf.HTTP))
	for _, sc := range []perf.Scenario{publish, configuration} {
		t.Run(sc.Test, func(t *testing.T) {
			isolated(t, func(t *testing.T, p *local.Platform) {
				skipWithoutBroker(t, perf.BackendRedis)
				rep := runner.Run(t, sc, runner.WithPlatform(p), runner.WithReportDir(t.TempDir()))
				d := rep.Delivery
				require.NotNil(t, d)
				loads := 1
				if d.Mode == perf.SubscribeConfiguration { // Dapr's baseline run first
					loads = 2
					require.NotNil(t, d.Baseline)
					assert.Equal(t, perf.PhaseBaseline, rep.Loads[0].Name)
					assert.Positive(t, d.Baseline.Sent)
					assert.Equal(t, d.Baseline.Sent, d.Baseline.Received, "the store's own notifications tell every update")
					assert.Zero(t, d.Baseline.AwaitTimeouts)
					assert.Contains(t, rep.Figures.Gates, "baseline.mean")
					assert.NotEmpty(t, rep.Overhead, "main minus baseline")
				}
				require.Len(t, rep.Loads, loads)
				main := rep.Loads[loads-1].Result
				require.NotNil(t, main.Params.Await, "the main load waited")
				per := int64(max(sc.Main.Operation.EventsPerRequest(), 1))
				assert.Positive(t, main.Requests)
				assert.Equal(t, main.Requests*per, d.Sequenced, "every request stamped %d messages", per)
				assert.Equal(t, d.Sequenced, d.Sent)
				assert.Equal(t, d.Sent, d.Received)
				assert.Zero(t, d.Lost)
				assert.Zero(t, d.AwaitTimeouts)
				assert.Zero(t, main.Errors(), "%v", main.RetCodes)
				assert.Contains(t, rep.Figures.Gates, "latency.p95")
				assert.NotContains(t, rep.Figures.Gates, "qps.ratio", "a closed loop has no target rate")
				assert.Equal(t, 0.0, rep.Figures.Gates["delivery.timeouts"])
				if d.Mode == perf.SubscribeConfiguration {
					// Each iteration starts before its update is stamped and ends after the app was told.
					assert.Greater(t, main.Latency.AvgSeconds, d.Latency.AvgSeconds, "the update and its wait are timed")
					return
				}
				p90, err := main.Latency.Percentile(90)
				require.NoError(t, err)
				assert.Less(t, p90, delay, "the publish request alone is timed, not the wait")
				assert.GreaterOrEqual(t, d.Latency.MinSeconds, 0.0)
				assert.Greater(t, d.Handler.AvgSeconds, delay.Seconds()*0.9, "each delivery call took the subscriber's delay")
			})
		})
	}
}
