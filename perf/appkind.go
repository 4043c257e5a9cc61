package perf

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
)

// What each platform must know of an app kind, in one place: the protocol it serves on its own
// port, the path its HTTP health check answers on, and the rule for app names.

// kinds maps each app kind to what it serves.
var kinds = map[AppKind]struct {
	protocol Protocol
	// health is the path answering 200 when the app is up; "" for a gRPC app, which serves
	// the standard gRPC health service instead.
	health string
}{
	Tester:   {HTTP, "/"},
	HTTPApp:  {HTTP, "/healthz"}, // neither counted nor failed on purpose (-fail-fraction), unlike "/"
	GRPCApp:  {GRPC, ""},
	ActorApp: {HTTP, "/healthz"}, // also the path daprd's actor runtime probes
	// GET /healthz: not a subscription route, so a health check is never counted.
	Subscriber: {HTTP, "/healthz"},
	// GET /healthz answers at once: the platform checks it before daprd starts, and the
	// worker connects to daprd afterwards (the app's GET /readyz says when).
	WorkflowApp: {HTTP, "/healthz"},
	JobApp:      {HTTP, "/healthz"}, // not a job route: a health check is never counted
}

// JobApp schedules jobs through its daprd and counts their triggers (apps/jobapp); the jobs
// plan reads its port (on kubernetes through a port-forward).
const JobApp AppKind = "jobapp"

// AppKinds lists every kind, sorted, for error messages ("want one of ...").
func AppKinds() []AppKind { return slices.Sorted(maps.Keys(kinds)) }

// Known reports whether k is one of the framework's apps.
func (k AppKind) Known() bool { _, ok := kinds[k]; return ok }

// Protocol is the protocol k serves on its own port; "" for an unknown kind.
func (k AppKind) Protocol() Protocol { return kinds[k].protocol }

// HealthPath is the HTTP path that answers 200 once an app of kind k is up; "" for a gRPC app
// (which serves grpc.health.v1) or an unknown kind.
func (k AppKind) HealthPath() string { return kinds[k].health }

// appName is an RFC 1123 label: a Kubernetes Deployment, Service and container name, a Dapr app
// id, a file name and a string in the local resolver's template, so a scenario that runs on one
// platform runs on the other.
var appName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// ValidAppName returns an error naming name unless it is an RFC 1123 label: lowercase letters,
// digits and '-', starting and ending with a letter or digit, at most 63 characters.
func ValidAppName(name string) error {
	if !appName.MatchString(name) {
		return fmt.Errorf("app %q: Name must be a lowercase RFC 1123 label (%s): it is a Dapr app id and, on Kubernetes, a Deployment and Service name", name, appName)
	}
	return nil
}

// The roles of processes in resource series and summaries (Series.Role).
const (
	RoleTester        = "tester"
	RoleCallerSidecar = "caller-sidecar" // the tester's daprd
	RoleCalleeSidecar = "callee-sidecar" // the target app's daprd
	RoleApp           = "app"            // the target app
	RoleControlPlane  = "control-plane"  // placement and scheduler (actors, reminders)
)
