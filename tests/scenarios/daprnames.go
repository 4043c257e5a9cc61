package scenarios

import (
	"fmt"
	"strings"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
)

// Dapr's subtests have names of their own, and Dapr's users select them with go test -run
// (dapr/dapr tests/perf at v1.18.3). The packages below run each of Dapr's subtests under its
// name, and each variant Dapr does not have under a name of the same form, so that one pattern
// selects the same load here as there:
//   - pubsub_bulk_publish_grpc (pubsub_bulk_publish_grpc_test.go, tcs): "In-memory with with
//     cloud event" and "In-memory without cloud event (raw payload)"; Kafka's two have no real
//     broker here; ours on Redis read "Redis with cloud event", "Redis without cloud event (raw
//     payload)";
//   - pubsub_bulk_publish_http (pubsub_bulk_publish_http_test.go, "%s_b%d_s%dKB_%s" over broker,
//     bulk size, message KB and publish type): Dapr runs "normal" and "bulk" as two subtests,
//     ours measures both in one run (the baseline and main phases), named
//     "<broker>_b<size>_s1KB_normal_vs_bulk"; the CloudEvents variant, ours, adds "_cloudevent"
//     after the size; Dapr's only broker is "memory-broker", ours on Redis is "redis-broker";
//   - pubsub_subscribe_http (test_all.yaml's component names): "dapr-perf-test-<broker>-pubsub-subs-http",
//     under both of its test functions;
//   - workflows (workflow_test.go, testWorkflow: "[" + upper(scenario) + "]: " per load, which go
//     test writes "[T_30_300]:_", then "[T_30_300]:_#01" for the same load again): a run here is
//     named by its loads, "[T_30_300]: " for a run of one load (the payload test's three runs
//     take #01 and #02 as Dapr's do), and the three loads' names in a row for the one run that
//     measures Dapr's three subtests of constant iterations; constant VUs' three repeats of
//     one load are one run here, named once.

// BulkPublishGRPCSubtest is the subtest name of pubsub_bulk_publish_grpc on broker b, raw or
// with CloudEvents: Dapr's own for the in-memory broker.
func BulkPublishGRPCSubtest(b PubSubBroker, raw bool) string {
	name := brokerTitle(b)
	if raw {
		return name + " without cloud event (raw payload)"
	}
	if b == InMemoryBroker {
		return name + " with with cloud event" // Dapr's name, its doubled word included
	}
	return name + " with cloud event"
}

// BulkPublishHTTPSubtest is the subtest name of pubsub_bulk_publish_http on broker b, raw or
// with CloudEvents, at bulk size size: Dapr's "<broker>_b<size>_s1KB_<type>" with both of its
// publish types, which one run here measures.
func BulkPublishHTTPSubtest(b PubSubBroker, raw bool, size int) string {
	broker := "memory-broker"
	if b != InMemoryBroker {
		broker = strings.TrimPrefix(b.Suffix, "_") + "-broker"
	}
	ce := ""
	if !raw {
		ce = "_cloudevent"
	}
	return fmt.Sprintf("%s_b%d%s_s1KB_normal_vs_bulk", broker, size, ce)
}

// Subtest is the subtest name of pubsub_subscribe_http on b: the component's name in Dapr's
// test_all.yaml.
func (b SubscribeBroker) Subtest() string {
	return "dapr-perf-test-" + b.Name + "-pubsub-subs-http"
}

// brokerTitle is b's name as Dapr's subtests write a broker: "In-memory", "Redis".
func brokerTitle(b PubSubBroker) string {
	if b == InMemoryBroker {
		return "In-memory"
	}
	s := strings.TrimPrefix(b.Suffix, "_")
	return strings.ToUpper(s[:1]) + s[1:]
}

// WorkflowSubtest is the subtest name of a workflow scenario: Dapr's "[T_<vus>_<iterations>]: "
// for each distinct load of its plan's runs, in order; "" for a scenario whose plan is not an
// iterations plan.
func WorkflowSubtest(sc perf.Scenario) string {
	p, ok := sc.Plan.(*plan.IterationsPlan)
	if !ok {
		return ""
	}
	var b strings.Builder
	seen := map[string]bool{}
	for _, r := range p.Runs {
		name := fmt.Sprintf("[T_%d_%d]: ", r.VUs, r.Iterations)
		if !seen[name] {
			seen[name] = true
			b.WriteString(name)
		}
	}
	return b.String()
}
