package scenarios

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// Each gRPC-delivery scenario is its HTTP twin with the subscriber in -grpc mode behind a grpc
// sidecar: its own test name (no result path shared with the HTTP package in one run), the same
// publish, load, plan and gates; the HTTP twin is untouched.
func TestSubscribeGRPCScenarios(t *testing.T) {
	grpcAll, httpAll := PubSubSubscribeGRPCAll(), PubSubSubscribeAll()
	require.Len(t, grpcAll, len(httpAll))
	names := map[string]bool{}
	for _, sc := range httpAll {
		names[sc.Test] = true
	}
	for i, sc := range grpcAll {
		tw := httpAll[i]
		assert.NotContains(t, names, sc.Test, "test name shared with the HTTP package")
		names[sc.Test] = true
		assert.Contains(t, sc.Test, "subscribe_grpc_")
		assert.Equal(t, perf.HTTP, sc.Transport, "the publishes stay HTTP (stamped)")
		assert.Equal(t, tw.Thresholds, sc.Thresholds, sc.Test)
		assert.Equal(t, tw.Plan, sc.Plan, sc.Test)
		sub := sc.Apps[slices.IndexFunc(sc.Apps, func(a perf.App) bool { return a.Name == SubscriberApp })]
		twSub := tw.Apps[slices.IndexFunc(tw.Apps, func(a perf.App) bool { return a.Name == SubscriberApp })]
		assert.Equal(t, perf.GRPC, sub.Sidecar.AppProtocol, sc.Test)
		assert.Equal(t, perf.HTTP, twSub.Sidecar.AppProtocol, tw.Test)
		assert.Equal(t, append(slices.Clone(twSub.Args), "-grpc"), sub.Args, sc.Test)
	}
	assert.Equal(t, "pubsub_subscribe_grpc_redis", grpcAll[0].Test)
	assert.Equal(t, "pubsub_bulk_subscribe_grpc_mqtt", grpcAll[5].Test)
}
