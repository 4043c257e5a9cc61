//go:build kubenode

package node_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/kube/node"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// brokerRestartAt is when the subscribe run restarts its broker, into its main load (CI's 10 s).
const brokerRestartAt = "4s"

// testBrokerRestart runs pubsub_subscribe_redis on the in-cluster Redis with
// DAPR_PERF_RESTART_BROKER: the plan deletes the Redis pod behind its Service mid-load
// (kube.Deployment.RestartBackend) and the Deployment starts a new one. The result must record
// the restart (when, how long Redis was away, no error), account for every stamped message
// (received, lost or failed to publish), and judge it by named verdicts: the run exits 0, 3 (a
// bound missed, such as delivery.lost or errors) or 4 (the publishes fell behind their schedule
// while Redis was away), never as an infrastructure failure.
func testBrokerRestart(t *testing.T, c *node.Cluster) {
	wd, _ := perf.RepoRoot()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := c.BackendsUp(ctx, 150*time.Second); err != nil {
		t.Fatal(err)
	}
	id := runID + "-broker-restart"
	// An iteration whose messages Redis lost waits for them until its window ends: 10 s, not
	// Dapr's 60, bounds the run.
	env := append(append([]string{}, smokeEnv...), "DAPR_PERF_REDIS_ADDR="+node.RedisAddr(), "DAPR_PERF_RESTART_BROKER="+brokerRestartAt,
		"DAPR_PERF_AWAIT_TIMEOUT=10s")
	code := perfRun(t, c, id, nil, env, "-run", "TestPubsubBulkPublishSubscribeHttpPerformance/^dapr-perf-test-redis-pubsub-subs-http$", "./tests/pubsub_subscribe_http")
	path := filepath.Join(perf.RunDir(reportDir(t, wd), id), "pubsub_subscribe_redis", "http", "result.json")
	rep, err := report.ReadReport(path)
	if err != nil {
		t.Fatal(err)
	}
	d := rep.Delivery
	if d == nil || d.BrokerRestart == nil {
		t.Fatalf("%s: no broker restart in the delivery report", path)
	}
	br := d.BrokerRestart
	t.Logf("Redis pod deleted %.1f s into the main load, a new one ready %.2f s later %s; stamped %d, published %d, publish errors %d, received %d, lost %d, duplicated %d",
		br.AtSeconds, br.DownSeconds, br.Error, d.Sequenced, d.Sent, d.PublishErrors, d.Received, d.Lost, d.Duplicated)
	want, _ := time.ParseDuration(brokerRestartAt)
	if br.Error != "" || br.DownSeconds <= 0 || br.AtSeconds < want.Seconds()-0.5 || br.AtSeconds > want.Seconds()+1 {
		t.Errorf("broker restart %+v: want one at %s, down > 0 s, no error", *br, brokerRestartAt)
	}
	if d.Sequenced == 0 || d.Sent+d.PublishErrors != d.Sequenced || d.Received+d.Lost+d.PublishErrors < d.Sequenced {
		t.Errorf("delivery accounting: stamped %d, published %d + failed %d, received %d + lost %d: every message must be received, lost or a failed publish",
			d.Sequenced, d.Sent, d.PublishErrors, d.Received, d.Lost)
	}
	if rep.Environment.Platform != "kubernetes" || rep.Incomplete || len(rep.InfraErrors) > 0 {
		t.Errorf("platform %q, incomplete %t, infrastructure errors %q: want a complete kubernetes run", rep.Environment.Platform, rep.Incomplete, rep.InfraErrors)
	}
	named := map[string]bool{}
	var missed []string
	for _, v := range rep.Verdicts {
		named[v.Figure] = true
		if !v.Pass {
			missed = append(missed, v.String())
		}
	}
	for _, f := range []string{"delivery.lost", "errors"} {
		if !named[f] {
			t.Errorf("no %s verdict: the restart's effect must be judged by name", f)
		}
	}
	t.Logf("perf.sh exited %d (%s); verdicts missed: %s", code, perf.Outcome(code), strings.Join(missed, "; "))
	// Publishes wait while Redis is away, so the load may fall behind its schedule: then the run
	// is invalid (4), with the reasons in the file, and its verdicts still named.
	switch {
	case code == int(perf.OutcomePass) && len(missed) == 0:
	case code == int(perf.OutcomeMissedBound) && len(missed) > 0:
	case code == int(perf.OutcomeInvalid) && !rep.Validity.Valid && len(rep.Validity.Reasons) > 0:
		t.Logf("invalid: %s", strings.Join(rep.Validity.Reasons, "; "))
	default:
		t.Errorf("perf.sh exited %d (%s) with %d verdicts missed, valid %t: want 0 with none, 3 with the missed bounds named, or 4 with the reasons", code, perf.Outcome(code), len(missed), rep.Validity.Valid)
	}
}
