package grpcapp

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/emptypb"

	commonv1 "github.com/dapr/dapr/pkg/proto/common/v1"
	runtimev1 "github.com/dapr/dapr/pkg/proto/runtime/v1"

	"github.com/daprperf/daprperf/apps/internal/faults"
)

// appCallback implements runtimev1.AppCallbackServer. Only OnInvoke counts
// calls and injects faults; everything else answers an empty success.
type appCallback struct {
	runtimev1.UnimplementedAppCallbackServer // methods added by later Dapr versions
	faults                                   *faults.Injector
}

var _ runtimev1.AppCallbackServer = (*appCallback)(nil)

// OnInvoke answers Data as ContentType, after the delay; the calls chosen
// by FailFraction get codes.Internal instead.
func (a *appCallback) OnInvoke(ctx context.Context, _ *commonv1.InvokeRequest) (*commonv1.InvokeResponse, error) {
	req := a.faults.Next()
	if err := req.Wait(ctx); err != nil {
		return nil, status.FromContextError(err).Err()
	}
	if req.Fail {
		return nil, status.Error(codes.Internal, FailureMessage)
	}
	return &commonv1.InvokeResponse{
		Data:        &anypb.Any{Value: []byte(Data)},
		ContentType: ContentType,
	}, nil
}

// ListTopicSubscriptions answers no subscriptions.
func (a *appCallback) ListTopicSubscriptions(context.Context, *emptypb.Empty) (*runtimev1.ListTopicSubscriptionsResponse, error) {
	return &runtimev1.ListTopicSubscriptionsResponse{}, nil
}

// OnTopicEvent acknowledges the event (SUCCESS).
func (a *appCallback) OnTopicEvent(context.Context, *runtimev1.TopicEventRequest) (*runtimev1.TopicEventResponse, error) {
	return &runtimev1.TopicEventResponse{Status: runtimev1.TopicEventResponse_SUCCESS}, nil
}

// OnBulkTopicEvent acknowledges every entry (SUCCESS).
func (a *appCallback) OnBulkTopicEvent(_ context.Context, req *runtimev1.TopicEventBulkRequest) (*runtimev1.TopicEventBulkResponse, error) {
	statuses := make([]*runtimev1.TopicEventBulkResponseEntry, 0, len(req.GetEntries()))
	for _, e := range req.GetEntries() {
		statuses = append(statuses, &runtimev1.TopicEventBulkResponseEntry{
			EntryId: e.GetEntryId(),
			Status:  runtimev1.TopicEventResponse_SUCCESS,
		})
	}
	return &runtimev1.TopicEventBulkResponse{Statuses: statuses}, nil
}

// ListInputBindings answers no bindings.
func (a *appCallback) ListInputBindings(context.Context, *emptypb.Empty) (*runtimev1.ListInputBindingsResponse, error) {
	return &runtimev1.ListInputBindingsResponse{}, nil
}

// OnBindingEvent acknowledges the event and asks for nothing.
func (a *appCallback) OnBindingEvent(context.Context, *runtimev1.BindingEventRequest) (*runtimev1.BindingEventResponse, error) {
	return &runtimev1.BindingEventResponse{}, nil
}

// appHealth implements runtimev1.AppCallbackHealthCheckServer: always healthy.
type appHealth struct{}

var _ runtimev1.AppCallbackHealthCheckServer = appHealth{}

// HealthCheck answers healthy (an empty response, no error).
func (appHealth) HealthCheck(context.Context, *emptypb.Empty) (*runtimev1.HealthCheckResponse, error) {
	return &runtimev1.HealthCheckResponse{}, nil
}
