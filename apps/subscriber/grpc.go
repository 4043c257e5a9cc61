package subscriber

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"

	runtimev1 "github.com/dapr/dapr/pkg/proto/runtime/v1"
)

// GRPCServer returns a gRPC server, not yet serving, with Dapr's AppCallback service
// (dapr.proto.runtime.v1.AppCallback) and AppCallbackHealthCheck for h: the same
// subscription and the same counts as the HTTP routes, delivered over gRPC (daprd
// --app-protocol grpc). ListTopicSubscriptions declares h's subscription (bulk with
// BulkSubscribeConfig when h is bulk); OnTopicEvent takes one event, OnBulkTopicEvent a bulk
// of them, each recorded as deliver and deliverBulk record theirs and answered SUCCESS (a
// malformed message included: counted, not retried). The stats and reset routes stay HTTP
// (Handler), which the cmd serves on the same port (serve.Split).
func (h *Handler) GRPCServer() *grpc.Server {
	s := grpc.NewServer()
	runtimev1.RegisterAppCallbackServer(s, &appCallback{h: h})
	runtimev1.RegisterAppCallbackHealthCheckServer(s, &appCallback{h: h})
	return s
}

// appCallback is Handler over gRPC; the invoke and binding methods are Unimplemented (daprd
// calls them only for service invocation and input bindings, which this app has none of).
type appCallback struct {
	runtimev1.UnimplementedAppCallbackServer
	runtimev1.UnimplementedAppCallbackHealthCheckServer
	h *Handler
}

// ListTopicSubscriptions declares the app's one subscription.
func (a *appCallback) ListTopicSubscriptions(context.Context, *emptypb.Empty) (*runtimev1.ListTopicSubscriptionsResponse, error) {
	sub := &runtimev1.TopicSubscription{PubsubName: a.h.sub.PubSubName, Topic: a.h.sub.Topic}
	if b := a.h.sub.BulkSubscribe; b != nil {
		sub.BulkSubscribe = &runtimev1.BulkSubscribeConfig{
			Enabled: b.Enabled, MaxMessagesCount: int32(b.MaxMessagesCount), MaxAwaitDurationMs: int32(b.MaxAwaitDurationMs),
		}
	}
	return &runtimev1.ListTopicSubscriptionsResponse{Subscriptions: []*runtimev1.TopicSubscription{sub}}, nil
}

// OnTopicEvent records one event: its Data is the published JSON message.
func (a *appCallback) OnTopicEvent(ctx context.Context, req *runtimev1.TopicEventRequest) (*runtimev1.TopicEventResponse, error) {
	start := time.Now()
	msg, err := decodeData(req.GetData())
	a.h.c.take(start, []delivered{{msg: msg, err: err}}, false)
	a.h.wait(ctx)
	a.h.c.handled(time.Since(start))
	return &runtimev1.TopicEventResponse{Status: runtimev1.TopicEventResponse_SUCCESS}, nil
}

// OnBulkTopicEvent records each entry of a bulk and answers SUCCESS for each. An entry is a
// CloudEvent (its Data is the message) or raw bytes (a CloudEvent in JSON, whose data is the
// message, or the message itself).
func (a *appCallback) OnBulkTopicEvent(ctx context.Context, req *runtimev1.TopicEventBulkRequest) (*runtimev1.TopicEventBulkResponse, error) {
	start := time.Now()
	entries := req.GetEntries()
	ds := make([]delivered, len(entries))
	statuses := make([]*runtimev1.TopicEventBulkResponseEntry, len(entries))
	for i, e := range entries {
		ds[i] = entryMessage(e)
		statuses[i] = &runtimev1.TopicEventBulkResponseEntry{EntryId: e.GetEntryId(), Status: runtimev1.TopicEventResponse_SUCCESS}
	}
	a.h.c.take(start, ds, true)
	a.h.wait(ctx)
	a.h.c.handled(time.Since(start))
	return &runtimev1.TopicEventBulkResponse{Statuses: statuses}, nil
}

// entryMessage decodes the message of one bulk entry.
func entryMessage(e *runtimev1.TopicEventBulkRequestEntry) delivered {
	if ce := e.GetCloudEvent(); ce != nil {
		msg, err := decodeData(ce.GetData())
		return delivered{msg: msg, err: err}
	}
	raw := e.GetBytes()
	if raw == nil {
		return delivered{err: errors.New("bulk entry " + e.GetEntryId() + " without an event")}
	}
	var ev cloudEvent
	if json.Unmarshal(raw, &ev) == nil && len(ev.Data) > 0 {
		msg, err := decodeData(ev.Data)
		return delivered{msg: msg, err: err}
	}
	msg, err := decodeData(raw)
	return delivered{msg: msg, err: err}
}

// HealthCheck answers healthy (Dapr's app health check over gRPC).
func (a *appCallback) HealthCheck(context.Context, *emptypb.Empty) (*runtimev1.HealthCheckResponse, error) {
	return &runtimev1.HealthCheckResponse{}, nil
}
