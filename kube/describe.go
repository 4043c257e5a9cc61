package kube

import (
	"fmt"

	"github.com/daprperf/daprperf/perf"
)

// Ports inside every app pod. The app's port is the same for every kind: each app has a pod
// of its own. The sidecar ports are daprd's defaults in Kubernetes, which the injector uses.
const (
	AppPort            = 3000 // the app's own HTTP or gRPC port, passed as -port
	SidecarHTTPPort    = 3500 // daprd's HTTP API
	SidecarGRPCPort    = 50001
	SidecarMetricsPort = 9090 // also set through dapr.io/metrics-port
	SidecarProfilePort = 7777 // daprd's pprof, when dapr.io/enable-profiling is "true"
)

// SidecarContainer is the name of the container Dapr's injector adds.
const SidecarContainer = "daprd"

// Labels every object of a run carries.
const (
	LabelApp    = "app"                       // the app name; the Service and affinity select on it
	LabelKind   = "daprperf.io/kind"          // the perf.AppKind
	LabelRun    = "daprperf.io/run"           // the run's namespace name, also on the namespace
	LabelPartOf = "app.kubernetes.io/part-of" // always "daprperf"
)

// HostnameTopology is the topology key of the placements' pod (anti-)affinity: one node. Dapr's
// suite uses the zone; a node is stricter and keeps the network path short and fixed.
const HostnameTopology = "kubernetes.io/hostname"

// AppDescription is the Kubernetes form of a perf.App: everything the platform needs to write
// its Deployment, Service and Dapr annotations. Describe makes one; tests may edit it.
type AppDescription struct {
	Name     string       // Deployment, Service and container name; the Dapr app id
	Kind     perf.AppKind // which program runs
	Image    string       // "<registry>/daprperf-<kind>:<tag>"
	Replicas int32        // always 1 for perf runs: one tester, one target
	// Args is the container's command line: -port AppPort -host 0.0.0.0, then perf.App.Args.
	Args []string
	// AppPort is the container port the app listens on (all interfaces).
	AppPort int32
	// AppProtocol is what the app serves on AppPort, and what daprd uses to call it: http or grpc.
	AppProtocol perf.Protocol
	// DaprEnabled asks the injector for a sidecar (dapr.io/enabled). Sidecar is then its settings.
	DaprEnabled bool
	Sidecar     perf.Sidecar
	// ConfigName names the Dapr Configuration the sidecar uses (dapr.io/config); "" when the
	// sidecar has no Config.
	ConfigName string
	// Labels go on the Deployment, its pods and the Service; LabelApp selects the pods.
	Labels map[string]string
	// Placement is where the pods of the app's role (RoleOf(Kind)) may run. Describe leaves it
	// empty; the platform sets the one its Placements give the role (WithPlacements, or
	// ChoosePlacements by the cluster's nodes).
	Placement Placement
	// Resources are the app container's requests and limits; the sidecar's are in Sidecar.
	Resources perf.Resources
	// NodeSelector restricts the pod to nodes with these labels (a dedicated perf node pool),
	// besides Placement.NodeSelector; nil means any node. Describe leaves it nil; the platform
	// sets WithNodeSelector's.
	NodeSelector map[string]string
	// Env are the container's plain environment variables: for each of perf.App.Backends,
	// perf.EnvBackendAddr(backend) set to the backend's address in the cluster (StartE fills
	// it from the environment, as for components).
	Env map[string]string
	// TokenSecret names, for a tester, the Secret in the run's namespace that holds its
	// per-run token under TokenSecretKey; the container reads it as env perf.EnvTesterToken.
	// "" for the other kinds.
	TokenSecret string
}

// TokenSecretKey is the key of the token in a tester's TokenSecret.
const TokenSecretKey = "token"

// Describe turns apps into their descriptions with images from im and the run label run, which
// is also the run's namespace. Every tester is started with an allow-list (perf.TesterArgs) of its own daprd's HTTP and gRPC ports on
// 127.0.0.1 and every other app's Service (<app>.<run>.svc:AppPort), its TesterLimits, and
// TokenSecret <app>-token. It returns an error naming the app and the
// field that cannot be deployed: a bad name, an unknown kind, a sidecar protocol other than
// http or grpc, sidecar ExtraArgs (no annotation carries them), more than one placement, or a
// malformed quantity.
func Describe(im Images, run string, apps ...perf.App) ([]AppDescription, error) {
	if len(apps) == 0 {
		return nil, fmt.Errorf("no apps to deploy")
	}
	var targets []string
	seen := map[string]bool{}
	for _, a := range apps {
		if err := validateApp(a); err != nil {
			return nil, err
		}
		if seen[a.Name] {
			return nil, fmt.Errorf("app %s: name used twice", a.Name)
		}
		seen[a.Name] = true
		if a.Kind != perf.Tester {
			targets = append(targets, a.Name)
		}
	}
	if groups := perf.PlacementGroups(apps); len(groups) > 1 {
		return nil, fmt.Errorf("Sidecar.Placement: the sidecars name %d placements %q; on kubernetes every sidecar registers with the control plane's one placement (dapr-placement-server), so a scenario may use one", len(groups), groups)
	}
	descs := make([]AppDescription, 0, len(apps))
	for _, a := range apps {
		d := AppDescription{
			Name:        a.Name,
			Kind:        a.Kind,
			Image:       im.Image(a.Kind),
			Replicas:    1,
			Args:        append([]string{"-port", fmt.Sprint(AppPort), "-host", "0.0.0.0"}, a.Args...),
			AppPort:     AppPort,
			AppProtocol: a.Kind.Protocol(),
			Labels: map[string]string{
				LabelApp: a.Name, LabelKind: string(a.Kind), LabelRun: run, LabelPartOf: "daprperf",
			},
			Resources: a.Resources,
		}
		if a.Sidecar != nil {
			d.DaprEnabled = true
			d.Sidecar = *a.Sidecar
			if d.Sidecar.AppProtocol == "" {
				d.Sidecar.AppProtocol = d.AppProtocol
			}
			if len(a.Sidecar.Config) > 0 {
				d.ConfigName = a.Name + "-config"
			}
		}
		if a.Kind == perf.Tester {
			d.TokenSecret = a.Name + "-token"
			var limits perf.TesterLimits
			if a.TesterLimits != nil {
				limits = *a.TesterLimits
			}
			d.Args = append(d.Args, perf.TesterArgs(testerAllowList(a, targets, run), limits)...)
		}
		descs = append(descs, d)
	}
	return descs, nil
}

// testerAllowList is what tester a may load: its own daprd's HTTP and gRPC ports on
// 127.0.0.1 (the injected daprd listens on the pod's loopback) and the Service of each app in
// targets, in namespace ns.
func testerAllowList(a perf.App, targets []string, ns string) []string {
	var allow []string
	if a.Sidecar != nil {
		allow = append(allow, fmt.Sprintf("127.0.0.1:%d", SidecarHTTPPort), fmt.Sprintf("127.0.0.1:%d", SidecarGRPCPort))
	}
	for _, name := range targets {
		allow = append(allow, fmt.Sprintf("%s.%s.svc:%d", name, ns, AppPort))
	}
	return allow
}

// validateApp checks what Describe needs of one app.
func validateApp(a perf.App) error {
	if err := perf.ValidAppName(a.Name); err != nil {
		return err
	}
	if a.Name == SidecarContainer {
		return fmt.Errorf("app %q: Name must be other than %q, the sidecar container's name", a.Name, SidecarContainer)
	}
	if a.TesterLimits != nil {
		if a.Kind != perf.Tester {
			return fmt.Errorf("app %s: TesterLimits are for a %s, not a %s", a.Name, perf.Tester, a.Kind)
		}
		if err := a.TesterLimits.Validate(); err != nil {
			return fmt.Errorf("app %s: %w", a.Name, err)
		}
	}
	if !a.Kind.Known() {
		return fmt.Errorf("app %s: unknown Kind %q (want %s, %s or %s)", a.Name, a.Kind, perf.Tester, perf.HTTPApp, perf.GRPCApp)
	}
	if err := checkResources(a.Resources); err != nil {
		return fmt.Errorf("app %s: Resources.%w", a.Name, err)
	}
	if a.Sidecar == nil {
		return nil
	}
	if p := a.Sidecar.AppProtocol; p != "" && p != perf.HTTP && p != perf.GRPC {
		return fmt.Errorf("app %s: Sidecar.AppProtocol %q (want %s or %s)", a.Name, p, perf.HTTP, perf.GRPC)
	}
	if len(a.Sidecar.ExtraArgs) > 0 {
		return fmt.Errorf("app %s: Sidecar.ExtraArgs %q: not supported on kubernetes (no dapr.io annotation passes daprd flags)", a.Name, a.Sidecar.ExtraArgs)
	}
	if err := checkResources(a.Sidecar.Resources); err != nil {
		return fmt.Errorf("app %s: Sidecar.Resources.%w", a.Name, err)
	}
	return nil
}
