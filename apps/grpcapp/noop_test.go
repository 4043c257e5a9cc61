package grpcapp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	commonv1 "github.com/dapr/dapr/pkg/proto/common/v1"
	runtimev1 "github.com/dapr/dapr/pkg/proto/runtime/v1"

	"github.com/daprperf/daprperf/apps/grpcapp"
)

// The no-op baseline's calls of Dapr's runtime API answer an empty success; the rest of that
// API is Unimplemented, so a baseline that calls something else fails loudly.
func TestNoOpDaprAPI(t *testing.T) {
	client := runtimev1.NewDaprClient(start(t, grpcapp.Options{}))
	ctx := t.Context()
	got, err := client.GetState(ctx, &runtimev1.GetStateRequest{StoreName: "statestore", Key: "abc123"})
	require.NoError(t, err)
	assert.Empty(t, got.GetData())
	_, err = client.SaveState(ctx, &runtimev1.SaveStateRequest{StoreName: "statestore", States: []*commonv1.StateItem{{Key: "abc123", Value: []byte(`"v"`)}}})
	require.NoError(t, err)
	_, err = client.DeleteState(ctx, &runtimev1.DeleteStateRequest{StoreName: "statestore", Key: "abc123"})
	require.NoError(t, err)
	_, err = client.PublishEvent(ctx, &runtimev1.PublishEventRequest{PubsubName: "pubsub", Topic: "orders", Data: []byte("x")})
	require.NoError(t, err)
	_, err = client.InvokeService(ctx, &runtimev1.InvokeServiceRequest{Id: "x", Message: &commonv1.InvokeRequest{Method: "m"}})
	assert.Equal(t, codes.Unimplemented, status.Code(err))
}
