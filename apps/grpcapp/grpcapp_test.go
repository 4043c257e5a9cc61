package grpcapp_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	commonv1 "github.com/dapr/dapr/pkg/proto/common/v1"
	runtimev1 "github.com/dapr/dapr/pkg/proto/runtime/v1"

	"github.com/daprperf/daprperf/apps/grpcapp"
)

// start serves grpcapp.NewServer(o) on a loopback port for the rest of the
// test and returns a client connection to it.
func start(t *testing.T, o grpcapp.Options) *grpc.ClientConn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := grpcapp.NewServer(o)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Stop()
		assert.NoError(t, <-served)
	})
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, conn.Close()) })
	return conn
}

func invokeRequest() *commonv1.InvokeRequest {
	return &commonv1.InvokeRequest{Method: "checkout/123", ContentType: "application/json"}
}

func TestOnInvoke(t *testing.T) {
	c := runtimev1.NewAppCallbackClient(start(t, grpcapp.Options{}))
	for range 3 {
		resp, err := c.OnInvoke(t.Context(), invokeRequest())
		require.NoError(t, err)
		assert.Equal(t, []byte(grpcapp.Data), resp.GetData().GetValue())
		assert.Equal(t, grpcapp.ContentType, resp.GetContentType())
	}
}

func TestOnInvokeFailFractionIsExact(t *testing.T) {
	c := runtimev1.NewAppCallbackClient(start(t, grpcapp.Options{FailFraction: 0.1}))
	got := map[codes.Code]int{}
	for n := 1; n <= 1000; n++ {
		_, err := c.OnInvoke(t.Context(), invokeRequest())
		st := status.Convert(err)
		got[st.Code()]++
		if err != nil {
			assert.Zero(t, n%10, "call %d failed; only every 10th may", n)
			assert.Equal(t, grpcapp.FailureMessage, st.Message())
		}
	}
	assert.Equal(t, map[codes.Code]int{codes.OK: 900, codes.Internal: 100}, got)
}

func TestOnInvokeDelay(t *testing.T) {
	c := runtimev1.NewAppCallbackClient(start(t, grpcapp.Options{Delay: 2 * time.Millisecond}))
	startAt := time.Now()
	_, err := c.OnInvoke(t.Context(), invokeRequest())
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(startAt), 2*time.Millisecond)
}

func TestOnInvokeDelayRespectsDeadline(t *testing.T) {
	c := runtimev1.NewAppCallbackClient(start(t, grpcapp.Options{Delay: time.Hour}))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	_, err := c.OnInvoke(ctx, invokeRequest())
	assert.Equal(t, codes.DeadlineExceeded, status.Code(err))
}

func TestHealth(t *testing.T) {
	conn := start(t, grpcapp.Options{FailFraction: 1})
	hc := healthpb.NewHealthClient(conn)
	for _, svc := range []string{"", "dapr.proto.runtime.v1.AppCallback", "dapr.proto.runtime.v1.AppCallbackHealthCheck"} {
		resp, err := hc.Check(t.Context(), &healthpb.HealthCheckRequest{Service: svc})
		require.NoError(t, err, "service %q", svc)
		assert.Equal(t, healthpb.HealthCheckResponse_SERVING, resp.GetStatus(), "service %q", svc)
	}
	_, err := runtimev1.NewAppCallbackHealthCheckClient(conn).HealthCheck(t.Context(), &emptypb.Empty{})
	assert.NoError(t, err)
}

func TestListsAndEventsAreEmpty(t *testing.T) {
	c := runtimev1.NewAppCallbackClient(start(t, grpcapp.Options{FailFraction: 1}))

	subs, err := c.ListTopicSubscriptions(t.Context(), &emptypb.Empty{})
	require.NoError(t, err)
	assert.Empty(t, subs.GetSubscriptions())

	bindings, err := c.ListInputBindings(t.Context(), &emptypb.Empty{})
	require.NoError(t, err)
	assert.Empty(t, bindings.GetBindings())

	topic, err := c.OnTopicEvent(t.Context(), &runtimev1.TopicEventRequest{Id: "1", Topic: "t", PubsubName: "p"})
	require.NoError(t, err)
	assert.Equal(t, runtimev1.TopicEventResponse_SUCCESS, topic.GetStatus())

	bulk, err := c.OnBulkTopicEvent(t.Context(), &runtimev1.TopicEventBulkRequest{
		Entries: []*runtimev1.TopicEventBulkRequestEntry{{EntryId: "a"}, {EntryId: "b"}},
	})
	require.NoError(t, err)
	require.Len(t, bulk.GetStatuses(), 2)
	for i, id := range []string{"a", "b"} {
		assert.Equal(t, id, bulk.GetStatuses()[i].GetEntryId())
		assert.Equal(t, runtimev1.TopicEventResponse_SUCCESS, bulk.GetStatuses()[i].GetStatus())
	}

	binding, err := c.OnBindingEvent(t.Context(), &runtimev1.BindingEventRequest{Name: "b"})
	require.NoError(t, err)
	assert.Empty(t, binding.GetStoreName())
	assert.Empty(t, binding.GetTo())
}

func TestOptionsValidate(t *testing.T) {
	assert.NoError(t, grpcapp.Options{FailFraction: 1}.Validate())
	assert.ErrorContains(t, grpcapp.Options{FailFraction: 1.5}.Validate(), "FailFraction")
	assert.ErrorContains(t, grpcapp.Options{Delay: -1}.Validate(), "Delay")
}

func TestNewServerPanicsOnInvalidOptions(t *testing.T) {
	assert.Panics(t, func() { grpcapp.NewServer(grpcapp.Options{FailFraction: -0.1}) })
}
