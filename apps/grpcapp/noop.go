package grpcapp

import (
	"context"

	"google.golang.org/protobuf/types/known/emptypb"

	runtimev1 "github.com/dapr/dapr/pkg/proto/runtime/v1"
)

// noopDapr answers the calls of Dapr's runtime API (dapr.proto.runtime.v1.Dapr) that a
// no-op baseline sends straight to the app (perf.BaselineNoOp, the baseline Dapr's own state
// and pub/sub perf tests use): GetState, SaveState, DeleteState, PublishEvent and
// BulkPublishEventAlpha1 answer an empty success at once, without storing or sending
// anything. The baseline is then one gRPC round trip on loopback to a server that does
// nothing; Dapr's own no-op makes no call at all. Every other method is Unimplemented.
type noopDapr struct {
	runtimev1.UnimplementedDaprServer
}

func (noopDapr) GetState(context.Context, *runtimev1.GetStateRequest) (*runtimev1.GetStateResponse, error) {
	return &runtimev1.GetStateResponse{}, nil
}

func (noopDapr) SaveState(context.Context, *runtimev1.SaveStateRequest) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

func (noopDapr) DeleteState(context.Context, *runtimev1.DeleteStateRequest) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

func (noopDapr) PublishEvent(context.Context, *runtimev1.PublishEventRequest) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

func (noopDapr) BulkPublishEventAlpha1(context.Context, *runtimev1.BulkPublishRequest) (*runtimev1.BulkPublishResponse, error) {
	return &runtimev1.BulkPublishResponse{}, nil
}
