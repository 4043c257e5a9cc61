package tester

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"

	"fortio.org/fortio/fhttp"
	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"

	commonv1 "github.com/dapr/dapr/pkg/proto/common/v1"
	runtimev1 "github.com/dapr/dapr/pkg/proto/runtime/v1"

	"github.com/daprperf/daprperf/perf"
)

// uniqueHTTPCaller sends every request to Target + "/<uuid>", through fortio's standard client
// (the only one that can change its URL).
type uniqueHTTPCaller struct {
	client *fhttp.Client
	base   string
}

func newUniqueHTTPCaller(req httpRequest) (caller, error) {
	o := fhttp.HTTPOptions{Payload: req.Body, ContentType: req.ContentType, MethodOverride: req.Method}
	o.Init(req.URL)
	c, err := fhttp.NewStdClient(&o)
	if err != nil {
		return nil, fmt.Errorf("http client for %s: %w", req.URL, err)
	}
	return &uniqueHTTPCaller{client: c, base: req.URL}, nil
}

func (u *uniqueHTTPCaller) call(ctx context.Context) (string, bool) {
	if err := u.client.ChangeURL(u.base + "/" + uuid.NewString()); err != nil {
		return "-1", false
	}
	code, _, _ := u.client.Fetch(ctx)
	return strconv.Itoa(code), code >= 200 && code < 300
}

// sockets counts the dials of fortio's standard client (its connection-time histogram).
func (u *uniqueHTTPCaller) sockets() int64 {
	_, dials := u.client.GetIPAddress()
	return dials.Count
}

func (u *uniqueHTTPCaller) close() error { u.client.Close(); return nil }

// grpcCaller calls Dapr.InvokeService on a sidecar (AppID set) or AppCallback.OnInvoke on an
// app (the baseline), over one gRPC connection.
type grpcCaller struct {
	conn   *grpc.ClientConn
	dials  atomic.Int64
	msg    *commonv1.InvokeRequest
	method string
	unique bool
	invoke func(ctx context.Context) error
}

func newGRPCCaller(p perf.Params) (caller, error) {
	g := &grpcCaller{}
	var dialer net.Dialer
	countingDial := func(ctx context.Context, addr string) (net.Conn, error) {
		g.dials.Add(1)
		return dialer.DialContext(ctx, "tcp", addr)
	}
	// passthrough: the target is host:port on loopback; no resolver, no DNS.
	conn, err := grpc.NewClient("passthrough:///"+p.Target, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(countingDial))
	if err != nil {
		return nil, fmt.Errorf("grpc client for %s: %w", p.Target, err)
	}
	g.conn = conn
	kind := p.Operation.Kind
	if kind == "" {
		kind = perf.OpInvoke
	}
	op, ok := grpcOperations[kind]
	if !ok { // perf.Params.Validate refuses it first; this guards a caller that skipped it
		_ = conn.Close()
		return nil, fmt.Errorf("operation.kind %s: not implemented over grpc", kind)
	}
	g.invoke = op(conn, p, g)
	conn.Connect()
	return g, nil
}

// awaitReady waits until the channel is connected (connector), reconnecting an idle one.
func (g *grpcCaller) awaitReady(ctx context.Context) bool {
	for {
		s := g.conn.GetState()
		switch s {
		case connectivity.Ready:
			return true
		case connectivity.Idle:
			g.conn.Connect()
		}
		if !g.conn.WaitForStateChange(ctx, s) {
			return false
		}
	}
}

// grpcOperation is the seam of the gRPC operations: given the connection and the load's
// params, it builds what every request of the kind sends (once per connection) and returns
// the call one request makes. A kind is implemented over gRPC when it has an entry here and
// is listed in perf.GRPCKinds; the runtime API's client (runtimev1.DaprClient) has a method
// for each of the kinds still missing (InvokeActor, ScheduleJobAlpha1, GetConfiguration).
type grpcOperation func(conn *grpc.ClientConn, p perf.Params, g *grpcCaller) (call func(ctx context.Context) error)

var grpcOperations = map[perf.OperationKind]grpcOperation{
	perf.OpInvoke:      grpcInvoke,
	perf.OpStateGet:    grpcState,
	perf.OpStateSave:   grpcState,
	perf.OpStateDelete: grpcState,
	perf.OpPublish:     grpcPublish,
	perf.OpPublishBulk: grpcPublish,
}

// perRequest returns a function that gives template with every perf.UUIDToken replaced by a
// new UUID, or template itself when it has none (the common case costs nothing).
func perRequest(template string) func() string {
	if !strings.Contains(template, perf.UUIDToken) {
		return func() string { return template }
	}
	return func() string {
		s := template
		for strings.Contains(s, perf.UUIDToken) {
			s = strings.Replace(s, perf.UUIDToken, uuid.NewString(), 1)
		}
		return s
	}
}

// grpcState is state.get, state.save and state.delete through Dapr.GetState, SaveState and
// DeleteState: the same store, key and value as over HTTP (the value as its JSON bytes).
func grpcState(conn *grpc.ClientConn, p perf.Params, _ *grpcCaller) func(ctx context.Context) error {
	client := runtimev1.NewDaprClient(conn)
	op := p.Operation
	key := perRequest(op.Key)
	switch op.Kind {
	case perf.OpStateGet:
		req := &runtimev1.GetStateRequest{StoreName: op.Store}
		return func(ctx context.Context) error { req.Key = key(); _, err := client.GetState(ctx, req); return err }
	case perf.OpStateDelete:
		req := &runtimev1.DeleteStateRequest{StoreName: op.Store}
		return func(ctx context.Context) error { req.Key = key(); _, err := client.DeleteState(ctx, req); return err }
	}
	item := &commonv1.StateItem{Value: jsonValue(p.RequestBody())}
	req := &runtimev1.SaveStateRequest{StoreName: op.Store, States: []*commonv1.StateItem{item}}
	return func(ctx context.Context) error { item.Key = key(); _, err := client.SaveState(ctx, req); return err }
}

// grpcPublish is publish and publish.bulk through Dapr.PublishEvent and
// BulkPublishEventAlpha1; a bulk publish with failed entries is an Internal error (daprd
// answers it OK and lists them). A publish with Repeat > 1 calls PublishEvent that many times
// in turn per request and stops at the first error; RawPayload sends metadata rawPayload=true.
func grpcPublish(conn *grpc.ClientConn, p perf.Params, _ *grpcCaller) func(ctx context.Context) error {
	client := runtimev1.NewDaprClient(conn)
	op := p.Operation
	payload := p.RequestBody()
	ct := "text/plain"
	if len(payload) > 0 && json.Valid(payload) {
		ct = "application/json"
	}
	var md map[string]string
	if op.RawPayload {
		md = map[string]string{"rawPayload": "true"}
	}
	if op.Kind == perf.OpPublish {
		req := &runtimev1.PublishEventRequest{PubsubName: op.PubSub, Topic: op.Topic, Data: payload, DataContentType: ct, Metadata: md}
		n := op.EventsPerRequest()
		return func(ctx context.Context) error {
			for i := range n {
				if _, err := client.PublishEvent(ctx, req); err != nil {
					if n > 1 {
						return status.Errorf(status.Code(err), "publish %d of %d: %s", i+1, n, status.Convert(err).Message())
					}
					return err
				}
			}
			return nil
		}
	}
	req := &runtimev1.BulkPublishRequest{PubsubName: op.PubSub, Topic: op.Topic, Metadata: md}
	for i := range op.BulkEntries {
		req.Entries = append(req.Entries, &runtimev1.BulkPublishRequestEntry{EntryId: strconv.Itoa(i), Event: payload, ContentType: ct})
	}
	return func(ctx context.Context) error {
		//lint:ignore SA1019 daprd v1.16 serves only the alpha method (v1.17 both), and runs compare the two
		resp, err := client.BulkPublishEventAlpha1(ctx, req)
		if err == nil && len(resp.GetFailedEntries()) > 0 {
			return status.Errorf(codes.Internal, "bulk publish: %d of %d entries failed, first: %s",
				len(resp.GetFailedEntries()), len(req.Entries), resp.GetFailedEntries()[0].GetError())
		}
		return err
	}
}

// grpcInvoke is service invocation: Dapr.InvokeService with an app id, else the app's own
// AppCallback.OnInvoke. The zero operation takes the app id and method from Params.
func grpcInvoke(conn *grpc.ClientConn, p perf.Params, g *grpcCaller) func(ctx context.Context) error {
	appID, method := p.AppID, p.Method
	if !p.Operation.IsZero() {
		appID, method = p.Operation.AppID, p.Operation.Method
	}
	g.method, g.unique = method, p.UniquePath
	g.msg = &commonv1.InvokeRequest{
		Method:        method,
		Data:          &anypb.Any{Value: p.RequestBody()},
		ContentType:   "application/octet-stream",
		HttpExtension: &commonv1.HTTPExtension{Verb: commonv1.HTTPExtension_POST},
	}
	if appID != "" {
		client := runtimev1.NewDaprClient(conn)
		req := &runtimev1.InvokeServiceRequest{Id: appID, Message: g.msg}
		return func(ctx context.Context) error { _, err := client.InvokeService(ctx, req); return err }
	}
	client := runtimev1.NewAppCallbackClient(conn)
	return func(ctx context.Context) error { _, err := client.OnInvoke(ctx, g.msg); return err }
}

func (g *grpcCaller) call(ctx context.Context) (string, bool) {
	if g.unique {
		g.msg.Method = g.method + "/" + uuid.NewString()
	}
	err := g.invoke(ctx)
	code := status.Code(err)
	return code.String(), err == nil
}

// sockets counts the TCP connections the gRPC client dialled.
func (g *grpcCaller) sockets() int64 { return g.dials.Load() }

func (g *grpcCaller) close() error { return g.conn.Close() }

// fetchCaller sends one fixed request through its own fortio fast client. A request whose body
// holds perf.UUIDToken goes through it, one client per connection, each made from its own
// options: fortio's fast client writes the body's first {uuid} into the options it is given
// (fhttp.NewFastClient, fortio v1.75.3), so connections sharing one set, as fortio's own HTTP
// runner makes them, would all but the first send one fixed body.
type fetchCaller struct {
	client fhttp.Fetcher
}

func newFetchCaller(req httpRequest) (caller, error) {
	o := fhttp.HTTPOptions{Payload: bytes.Clone(req.Body), ContentType: req.ContentType, MethodOverride: req.Method,
		HTTPReqTimeOut: req.Timeout}
	o.Init(req.URL)
	c, err := fhttp.NewClient(&o)
	if err != nil {
		return nil, fmt.Errorf("http client for %s: %w", req.URL, err)
	}
	return &fetchCaller{client: c}, nil
}

func (f *fetchCaller) call(ctx context.Context) (string, bool) {
	code, _, _ := f.client.StreamFetch(ctx)
	return strconv.Itoa(code), code >= 200 && code < 300
}

// sockets counts the dials of the client (its connection-time histogram).
func (f *fetchCaller) sockets() int64 {
	_, dials := f.client.GetIPAddress()
	return dials.Count
}

func (f *fetchCaller) close() error { f.client.Close(); return nil }
