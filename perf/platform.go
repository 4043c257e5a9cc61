package perf

import (
	"context"
	"time"
)

// AppKind names one of the framework's apps; each platform knows how to run each kind
// (local: a binary built from apps/<kind>/cmd/<kind>; kubernetes: an image).
type AppKind string

// The apps a scenario can use.
const (
	Tester  AppKind = "tester"  // the load generator: GET / health, POST /test
	HTTPApp AppKind = "httpapp" // the HTTP callee
	GRPCApp AppKind = "grpcapp" // the gRPC callee (Dapr AppCallback)
	// Subscriber is the pub/sub subscriber (apps/subscriber): it counts and times each
	// message daprd delivers; the delivery plan reads its port (GET /stats), on kubernetes
	// through a port-forward.
	Subscriber AppKind = "subscriber"
	// ActorApp hosts actors over Dapr's actor HTTP protocol (apps/actorapp).
	ActorApp AppKind = "actorapp"
	// WorkflowApp is the workflow worker (apps/workflowapp): Dapr's perf workflow shapes on
	// durabletask-go, connected to its daprd over gRPC.
	WorkflowApp AppKind = "workflowapp"
)

// App describes one app of a scenario and, optionally, its daprd sidecar. It is data: a
// scenario never touches processes or Kubernetes objects.
type App struct {
	// Name is unique in a scenario and is also the Dapr app id.
	Name string `json:"name"`
	// Kind says which program runs.
	Kind AppKind `json:"kind"`
	// Args are extra flags for the app, such as "-delay=1ms" or "-fail-fraction=0.1".
	Args []string `json:"args,omitempty"`
	// Sidecar is the daprd beside the app; nil means no sidecar.
	Sidecar *Sidecar `json:"sidecar,omitempty"`
	// Resources are requests and limits (kubernetes only; the local platform ignores them).
	Resources Resources `json:"resources"`
	// TesterLimits bound what a tester (Kind Tester) accepts on POST /test; the platform
	// passes them at start-up. nil passes none: the tester then takes the absolute limits of
	// Params. runner.Run sets TesterLimitsFor(the scenario's loads) when the scenario leaves it nil.
	TesterLimits *TesterLimits `json:"testerLimits,omitempty"`
	// Backends are stores the app itself talks to, without a component (actorapp's
	// double-activation lock in Redis): the platform starts each (one per deployment, shared
	// with the components' backends) and gives the app its host:port in the environment
	// variable EnvBackendAddr(backend), e.g. DAPR_PERF_REDIS_ADDR=127.0.0.1:40123.
	Backends []Backend `json:"backends,omitempty"`
}

// Sidecar is the daprd configuration of one app.
type Sidecar struct {
	// AppProtocol is how daprd talks to its app: HTTP or GRPC.
	AppProtocol Protocol `json:"appProtocol"`
	// DisableMetrics sets --enable-metrics=false (the dapr.io/enable-metrics: "false"
	// annotation); the /metrics endpoint then disappears.
	DisableMetrics bool `json:"disableMetrics,omitempty"`
	// Profiling turns on the pprof endpoint (--enable-profiling).
	Profiling bool `json:"profiling,omitempty"`
	// ExtraArgs are more daprd flags, appended as given.
	ExtraArgs []string `json:"extraArgs,omitempty"`
	// Config is merged into the spec of the Dapr Configuration resource this sidecar gets, for
	// instance {"metric": {"http": {"increasedCardinality": false}}}. The platform adds what it
	// needs itself (local: spec.nameResolution).
	Config map[string]any `json:"config,omitempty"`
	// Resources are the sidecar's requests and limits (kubernetes only).
	Resources Resources `json:"resources"`
	// Components are the Dapr components this daprd loads (component.go); the platform
	// provides the backend each needs and fills in its address.
	Components []Component `json:"components,omitempty"`
	// Placement names the actor placement service this daprd registers with (Dapr's control
	// plane for actors; --placement-host-address). Sidecars with the same name share one, which
	// the local platform starts for the run on loopback; the kubernetes platform has the control
	// plane's one placement and refuses a second name. "" means the deployment's default one
	// ("default") when the sidecar loads an actor state store (a component with metadata
	// actorStateStore "true"), and no placement otherwise. Two names give two placements: the
	// same actor id can then be active on two hosts at once (the double-activation test).
	Placement string `json:"placement,omitempty"`
	// Scheduler connects this daprd to the deployment's scheduler (reminders, jobs, workflows;
	// --scheduler-host-address), which the local platform then starts for the run; on
	// kubernetes the injector connects every sidecar to the control plane's scheduler.
	Scheduler bool `json:"scheduler,omitempty"`
}

// Resources are Kubernetes-style requests and limits, as quantities ("250m", "256Mi").
type Resources struct {
	CPURequest    string `json:"cpuRequest,omitempty"`
	CPULimit      string `json:"cpuLimit,omitempty"`
	MemoryRequest string `json:"memoryRequest,omitempty"`
	MemoryLimit   string `json:"memoryLimit,omitempty"`
}

// Endpoint names one address of a deployed app or sidecar.
type Endpoint string

// The endpoints a Deployment resolves. HTTP endpoints are base URLs without a trailing slash
// ("http://127.0.0.1:3500"); gRPC endpoints are host:port.
const (
	AppHTTP Endpoint = "app-http" // the app's own HTTP port (tester, httpapp)
	AppGRPC Endpoint = "app-grpc" // the app's own gRPC port (grpcapp)
	// AppControl is an HTTP app's own port as the test process reaches it, for what the test
	// process itself asks of an app: the tester's POST /test, the subscriber's, job app's and
	// actor hosts' GET /stats, the fault window. AppHTTP is the same port as the load reaches
	// it; the two differ on kubernetes (a port-forward, and the app's Service in the cluster).
	AppControl     Endpoint = "app-control"
	SidecarHTTP    Endpoint = "sidecar-http"    // daprd's HTTP API
	SidecarGRPC    Endpoint = "sidecar-grpc"    // daprd's gRPC API (Dapr.InvokeService)
	SidecarMetrics Endpoint = "sidecar-metrics" // daprd's Prometheus endpoint; base URL, path /metrics
	SidecarProfile Endpoint = "sidecar-profile" // daprd's pprof endpoint; base URL, path /debug/pprof/...
)

// Platform starts a scenario's apps with their sidecars.
type Platform interface {
	// Name is "local" or "kubernetes", recorded in reports.
	Name() string
	// Start returns once every app and sidecar answers its health check, or fails t. ctx bounds
	// that wait only; teardown is registered with t.Cleanup and also runs when t fails.
	Start(ctx context.Context, t TB, apps ...App) Deployment
}

// Deployment is a started set of apps.
type Deployment interface {
	// Endpoint returns the address of app's endpoint e, or an error naming both when the
	// app has no such endpoint (no sidecar, metrics disabled, profiling off).
	Endpoint(app string, e Endpoint) (string, error)
	// Processes lists the processes whose usage Usage reports: for each app its name, and
	// for each sidecar "<app>-daprd".
	Processes() []string
	// Usage reads each process's current usage: cumulative CPU time and RSS.
	Usage(ctx context.Context) (map[string]Usage, error)
	// Exits lists processes that ended while the deployment was meant to be running
	// (unexpected exits), or whose containers restarted.
	Exits(ctx context.Context) ([]Exit, error)
	// DaprVersion is the daprd version actually running, as daprd reports it ("1.17.5").
	DaprVersion() string
	// TesterToken is the per-run secret the platform generated for the tester app and gave
	// it at start-up (EnvTesterToken): POST /test needs it. It is an error naming the app
	// when app is not a tester of this deployment.
	TesterToken(app string) (string, error)
}

// Usage is one reading of a process's resource use.
type Usage struct {
	// CPUSeconds is the process's cumulative CPU time (user + system), in seconds.
	CPUSeconds float64 `json:"cpuSeconds"`
	// RSSBytes is the resident set size, in bytes.
	RSSBytes uint64 `json:"rssBytes"`
	// SampledAt is when the platform took the reading: zero when it read the process at the
	// call (the local platform, from /proc); the end of the sample's window for the metrics API
	// (kubernetes), which samples each pod every few seconds. Not written to the result file.
	SampledAt time.Time `json:"-"`
}

// Exit is an unexpected end of a process, or a restart of a container.
type Exit struct {
	Process string    `json:"process"`
	At      time.Time `json:"at"`
	// Reason is the exit status or the restart cause, as the platform saw it.
	Reason string `json:"reason"`
	// Restarts is how many times it restarted (kubernetes); 0 for a process that just ended.
	Restarts int `json:"restarts"`
}

// Placed is a Deployment whose processes run on named nodes (the kubernetes platform): Nodes
// maps each process of Processes to its node's name, for the result file.
type Placed interface {
	Nodes(ctx context.Context) (map[string]string, error)
}

// SampledUsage is a Deployment whose Usage comes from a periodic sampler, not from the process
// at the call: on kubernetes the metrics API's container working set, one sample per pod every
// 15 s or so (metrics-server's default resolution). Memory-growth readings there take a
// sidecar's RSS from daprd's own /metrics instead (process_resident_memory_bytes).
type SampledUsage interface {
	UsageSampled() bool
}

// SidecarName is the process name of app's daprd in Processes, Usage and Exits.
func SidecarName(app string) string { return app + "-daprd" }

// Secured is a Deployment that says whether its sidecars talk over mTLS (certificates from
// Dapr's sentry), for the result file's Environment.MTLS.
type Secured interface {
	MTLS() bool
}

// EnvMTLS turns sentry and mTLS on or off on the local platform (Env.MTLS).
const EnvMTLS = "DAPR_PERF_MTLS"

// MTLSFromEnv is env's DAPR_PERF_MTLS: true unless it is "off" (Dapr's perf suite runs with
// mTLS on).
func MTLSFromEnv(env Env) bool {
	return env.MTLS == nil || *env.MTLS == "on"
}
