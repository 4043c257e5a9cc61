package scenarios

import (
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// PubSubSubscribeGRPC is PubSubSubscribe of b in mode with delivery over gRPC: the subscriber
// app runs with -grpc (Dapr's AppCallback OnTopicEvent / OnBulkTopicEvent on its port, the
// stats beside it over HTTP) and its daprd with app protocol grpc. The publishes, the load,
// the counts and Dapr's p95 bounds are PubSubSubscribe's. Test names:
// "pubsub_subscribe_grpc_<broker>", "pubsub_bulk_subscribe_grpc_<broker>"; the result's
// transport is the publish's (http), its delivery.delivery "grpc".
func PubSubSubscribeGRPC(b SubscribeBroker, mode perf.SubscribeMode) perf.Scenario {
	return DeliverOverGRPC(PubSubSubscribe(b, mode))
}

// DeliverOverGRPC is sc (PubSubSubscribe's or PubSubDelivery's) with delivery over gRPC (see
// PubSubSubscribeGRPC), its test name with "_grpc" after "subscribe" or "delivery".
func DeliverOverGRPC(sc perf.Scenario) perf.Scenario {
	for _, w := range []string{"subscribe_", "delivery_"} {
		if strings.Contains(sc.Test, w) {
			sc.Test = strings.Replace(sc.Test, w, w+"grpc_", 1)
			break
		}
	}
	for i := range sc.Apps {
		if sc.Apps[i].Name == SubscriberApp {
			sc.Apps[i].Args = append(sc.Apps[i].Args, "-grpc")
			sc.Apps[i].Sidecar.AppProtocol = perf.GRPC
		}
	}
	return sc
}

// PubSubSubscribeGRPCAll is every broker in normal then bulk mode, delivered over gRPC.
func PubSubSubscribeGRPCAll() []perf.Scenario {
	var out []perf.Scenario
	for _, mode := range []perf.SubscribeMode{perf.SubscribeNormal, perf.SubscribeBulk} {
		for _, b := range SubscribeBrokers {
			out = append(out, PubSubSubscribeGRPC(b, mode))
		}
	}
	return out
}
