package scenarios

import (
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
)

// Names of the service-invocation apps, as in Dapr's suite: they are also the Dapr app ids.
const (
	TesterApp = "tester"
	TargetApp = "testapp"
)

// DaprResources are the requests and limits Dapr's perf suite gives each sidecar
// (DaprCPULimit "4.0", DaprCPURequest "0.1", DaprMemoryLimit "512Mi", DaprMemoryRequest
// "250Mi" in dapr/dapr tests/perf/service_invocation_http) and, here, each app too. Dapr's
// apps ask for AppMemoryRequest "2500Mi" under an AppMemoryLimit of "800Mi", which the
// Kubernetes API refuses (a request above its limit), so the apps take the sidecar's memory
// figures; their CPU figures are Dapr's (AppCPULimit "4.0", AppCPURequest "0.1").
var DaprResources = perf.Resources{CPURequest: "0.1", CPULimit: "4.0", MemoryRequest: "250Mi", MemoryLimit: "512Mi"}

// ServiceInvocation is Dapr's service-invocation perf test over transport (perf.HTTP or
// perf.GRPC), with Dapr's load: 1000 QPS, 16 connections, 1 minute, 1024-byte payload; warmup
// 100 QPS for 10 s. Baseline: tester -> testapp. Main: tester -> its daprd -> testapp's daprd
// -> testapp (HTTP: /v1.0/invoke/testapp/method/test; gRPC: Dapr.InvokeService to
// AppCallback.OnInvoke). Bounds: perf.DefaultThresholds. Every app and sidecar carries
// DaprResources (used on Kubernetes; the local platform sets no limits).
func ServiceInvocation(transport perf.Protocol) perf.Scenario {
	kind := perf.HTTPApp
	if transport == perf.GRPC {
		kind = perf.GRPCApp
	}
	return perf.Scenario{
		Plan:      plan.OverheadPlan{},
		Test:      "service_invocation",
		Transport: transport,
		Apps: []perf.App{
			{Name: TesterApp, Kind: perf.Tester, Resources: DaprResources, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Resources: DaprResources}},
			{Name: TargetApp, Kind: kind, Resources: DaprResources, Sidecar: &perf.Sidecar{AppProtocol: transport, Resources: DaprResources}},
		},
		Tester:   TesterApp,
		Baseline: perf.Route{To: TargetApp},
		Main:     perf.Route{To: TargetApp, ThroughSidecar: true},
		MainOptions: []perf.Option{
			perf.WithQPS(1000), perf.WithConnections(16), perf.WithDuration(time.Minute), perf.WithPayloadSize(1024),
		},
		WarmupOptions: []perf.Option{
			perf.WithQPS(100), perf.WithConnections(16), perf.WithDuration(10 * time.Second), perf.WithPayloadSize(1024),
		},
		Thresholds: perf.DefaultThresholds(transport),
	}
}
