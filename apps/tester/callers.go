package tester

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"

	"fortio.org/fortio/fhttp"
	"github.com/google/uuid"
	"google.golang.org/grpc"
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

func newUniqueHTTPCaller(p perf.Params) (caller, error) {
	o := fhttp.HTTPOptions{Payload: p.RequestBody()}
	o.Init(p.Target)
	c, err := fhttp.NewStdClient(&o)
	if err != nil {
		return nil, fmt.Errorf("http client for %s: %w", p.Target, err)
	}
	return &uniqueHTTPCaller{client: c, base: p.Target}, nil
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
	g.conn, g.method, g.unique = conn, p.Method, p.UniquePath
	g.msg = &commonv1.InvokeRequest{
		Method:        p.Method,
		Data:          &anypb.Any{Value: p.RequestBody()},
		ContentType:   "application/octet-stream",
		HttpExtension: &commonv1.HTTPExtension{Verb: commonv1.HTTPExtension_POST},
	}
	conn.Connect()
	if p.AppID != "" {
		client := runtimev1.NewDaprClient(conn)
		req := &runtimev1.InvokeServiceRequest{Id: p.AppID, Message: g.msg}
		g.invoke = func(ctx context.Context) error { _, err := client.InvokeService(ctx, req); return err }
	} else {
		client := runtimev1.NewAppCallbackClient(conn)
		g.invoke = func(ctx context.Context) error { _, err := client.OnInvoke(ctx, g.msg); return err }
	}
	return g, nil
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
