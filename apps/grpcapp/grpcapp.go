// Package grpcapp is the gRPC test app: the callee of a service-invocation
// perf test over gRPC. It implements Dapr's app callback service
// (dapr.proto.runtime.v1.AppCallback): OnInvoke answers "ok", optionally
// after a fixed delay and with a deterministic share of codes.Internal
// errors; the pub/sub and binding methods answer empty successes. It also
// serves Dapr's app health check, the standard gRPC health service, and the
// state and publish calls of Dapr's runtime API as no-ops (noop.go), for a
// no-op baseline.
//
//	s := grpcapp.NewServer(grpcapp.Options{Delay: time.Millisecond})
//	go s.Serve(ln)
//	defer s.Stop()
//
// The command is cmd/grpcapp.
package grpcapp

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	runtimev1 "github.com/dapr/dapr/pkg/proto/runtime/v1"

	"github.com/daprperf/daprperf/apps/internal/faults"
)

// Options configure the faults OnInvoke injects; the zero value injects
// none. FailFraction (in [0, 1]) is the fraction of calls answered
// codes.Internal, exactly floor(n*FailFraction) of the first n; Delay
// (>= 0) is waited before every answer. Validate names the field out of range.
type Options = faults.Options

// Data is the payload of every successful OnInvoke answer, raw bytes in
// InvokeResponse.Data.Value (no type URL), with ContentType.
const Data = "ok"

// ContentType is the content type of every successful OnInvoke answer.
const ContentType = "text/plain"

// FailureMessage is the status message of a call failed on purpose.
const FailureMessage = "injected failure"

// NewServer returns a gRPC server, not yet serving, with AppCallback,
// AppCallbackHealthCheck and grpc.health.v1.Health (SERVING for the
// empty service name and for both Dapr services) registered; opts go to
// grpc.NewServer (a test's interceptor that counts calls). It panics if
// o is invalid: call o.Validate first.
func NewServer(o Options, opts ...grpc.ServerOption) *grpc.Server {
	s := grpc.NewServer(opts...)
	app := &appCallback{faults: faults.New(o)}
	runtimev1.RegisterAppCallbackServer(s, app)
	runtimev1.RegisterAppCallbackHealthCheckServer(s, appHealth{})
	// The no-op baseline's calls of Dapr's runtime API (noop.go).
	runtimev1.RegisterDaprServer(s, noopDapr{})
	hs := health.NewServer() // SERVING for "" from the start
	for _, name := range []string{
		runtimev1.AppCallback_ServiceDesc.ServiceName,
		runtimev1.AppCallbackHealthCheck_ServiceDesc.ServiceName,
	} {
		hs.SetServingStatus(name, healthpb.HealthCheckResponse_SERVING)
	}
	healthpb.RegisterHealthServer(s, hs)
	return s
}
