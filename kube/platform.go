package kube

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/daprperf/daprperf/internal/startorder"
	"github.com/daprperf/daprperf/perf"
)

// Platform runs apps as Deployments and Services in a namespace per run. It implements
// perf.Platform; make one with New.
type Platform struct {
	cfg           *rest.Config
	cs            kubernetes.Interface
	dyn           dynamic.Interface
	metrics       metricsclient.Interface
	images        Images
	serviceType   corev1.ServiceType
	deleteTimeout time.Duration
	nodeSelector  map[string]string
	placements    Placements // nil: ChoosePlacements at each Start
	// sidecarDefaults fill the sidecar resources a scenario leaves empty (DAPR_SIDECAR_*).
	sidecarDefaults perf.Resources
	// env is the run's environment (WithEnv): the backends' addresses are read from it.
	env perf.Env
}

var _ perf.Platform = (*Platform)(nil)

// Option configures New; an option replaces what New would read from the environment.
type Option func(*options)

type options struct {
	cfg           *rest.Config
	images        *Images
	serviceType   corev1.ServiceType
	deleteTimeout time.Duration
	nodeSelector  map[string]string
	placements    Placements
	env           perf.Env
}

// WithEnv is the run's environment (perf.RunConfig.Env), which New and the deployments read the
// cluster, the images, the sidecars' resources and the backends from; without it they read no
// variable and take the defaults.
func WithEnv(env perf.Env) Option { return func(o *options) { o.env = env } }

// WithRESTConfig talks to the cluster cfg describes instead of reading EnvKubeconfig.
func WithRESTConfig(cfg *rest.Config) Option { return func(o *options) { o.cfg = cfg } }

// WithImages takes the app images from im instead of EnvImageRegistry and EnvImageTag.
func WithImages(im Images) Option { return func(o *options) { o.images = &im } }

// WithServiceType makes the apps' Services of type typ (ClusterIP or LoadBalancer) instead of
// reading EnvServiceType.
func WithServiceType(typ corev1.ServiceType) Option {
	return func(o *options) { o.serviceType = typ }
}

// WithDeleteTimeout bounds the wait for the run's namespace to be gone at teardown (default
// DefaultDeleteTimeout).
func WithDeleteTimeout(d time.Duration) Option { return func(o *options) { o.deleteTimeout = d } }

// WithNodeSelector puts every pod on nodes with the labels sel, such as a node pool kept for
// perf runs ({"pool": "perf"}). Pods no node matches never schedule: Start then times out
// with a *RolloutError that says so.
func WithNodeSelector(sel map[string]string) Option {
	return func(o *options) { o.nodeSelector = maps.Clone(sel) }
}

// WithPlacements places each role's pods as pl says, instead of EnvPlacement's choice (by
// default ChoosePlacements' by the cluster's nodes at each Start). An empty pl places no pod.
func WithPlacements(pl Placements) Option {
	return func(o *options) {
		o.placements = maps.Clone(pl)
		if o.placements == nil {
			o.placements = Placements{}
		}
	}
}

// DefaultDeleteTimeout is how long teardown waits for the run's namespace to be gone.
const DefaultDeleteTimeout = 2 * time.Minute

// New returns the Kubernetes platform. Without options it reads EnvKubeconfig (or the
// in-cluster configuration), EnvImageRegistry and EnvImageTag (or Dapr's EnvDaprTestRegistry and
// EnvDaprTestTag), EnvServiceType, EnvPlacement, and Dapr's DAPR_SIDECAR_* resources; a missing or
// malformed value is an error naming the variable. It does not contact the cluster.
func New(opts ...Option) (*Platform, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	p := &Platform{cfg: o.cfg, serviceType: o.serviceType, deleteTimeout: o.deleteTimeout, nodeSelector: o.nodeSelector, placements: o.placements, env: o.env}
	var errs []error
	if p.cfg == nil {
		cfg, err := restConfigFromEnv(o.env)
		errs = append(errs, err)
		p.cfg = cfg
	}
	if o.images != nil {
		p.images = *o.images
		errs = append(errs, p.images.Validate())
	} else {
		im, err := imagesFromEnv(o.env)
		errs = append(errs, err)
		p.images = im
	}
	if p.serviceType == "" {
		typ, err := serviceTypeFromEnv(o.env)
		errs = append(errs, err)
		p.serviceType = typ
	}
	if p.placements == nil {
		pl, err := placementsFromEnv(o.env)
		errs = append(errs, err)
		p.placements = pl
	}
	if p.deleteTimeout <= 0 {
		p.deleteTimeout = DefaultDeleteTimeout
	}
	sidecars, err := sidecarResourcesFromEnv(o.env)
	errs = append(errs, err)
	p.sidecarDefaults = sidecars
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("kube: %w", err)
	}
	if p.cs, err = kubernetes.NewForConfig(p.cfg); err != nil {
		return nil, fmt.Errorf("kube: client: %w", err)
	}
	if p.dyn, err = dynamic.NewForConfig(p.cfg); err != nil {
		return nil, fmt.Errorf("kube: dynamic client: %w", err)
	}
	if p.metrics, err = metricsclient.NewForConfig(p.cfg); err != nil {
		return nil, fmt.Errorf("kube: metrics client: %w", err)
	}
	return p, nil
}

// Name is "kubernetes".
func (p *Platform) Name() string { return "kubernetes" }

// Images are the app images the platform deploys.
func (p *Platform) Images() Images { return p.images }

// Start is StartE that fails t (t.Fatalf) instead of returning an error.
func (p *Platform) Start(ctx context.Context, t perf.TB, apps ...perf.App) perf.Deployment {
	t.Helper()
	d, err := p.StartE(ctx, t, apps...)
	if err != nil {
		t.Fatalf("kube: %v", err)
	}
	return d
}

// StartE deploys apps into a new namespace, daprperf-<random>: a Dapr Component per component
// the sidecars name, pointed at the backend whose address (and credentials) the environment
// gives (backends.go; a missing or malformed variable is an error naming it, before anything is
// created), with the credentials in the Secret BackendSecret; for each app a Dapr
// Configuration (when its sidecar has a Config), for each tester a Secret with its per-run
// token, a Deployment and a Service. It returns once
// every Deployment is rolled out: its pods Ready, which means the app's readiness probe and
// the injected daprd's pass. ctx bounds that wait; on timeout the error is a *RolloutError
// naming the app and its pods' conditions. Teardown, registered with t.Cleanup as soon as the
// namespace exists, keeps the containers' logs when the test failed (KeepLogs, in perf.LogsDir(ctx)), deletes the
// token Secrets, then the namespace, and waits until it is gone.
func (p *Platform) StartE(ctx context.Context, t perf.TB, apps ...perf.App) (*Deployment, error) {
	t.Helper()
	ns := NamespacePrefix + rand.String(5)
	apps = withSidecarDefaults(apps, p.sidecarDefaults)
	descs, err := Describe(p.images, ns, apps...)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	placements, why := p.placements, "WithPlacements or "+EnvPlacement
	if placements == nil {
		placements, why = ChoosePlacements(ctx, p.cs)
	}
	t.Logf("kube: placement %s (%s)", placements, why)
	for i := range descs {
		descs[i].NodeSelector = p.nodeSelector
		descs[i].Placement = placements[RoleOf(descs[i].Kind)]
	}
	comps, err := planComponents(p.env, ns, apps) // the backends' addresses from the environment (backends.go)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	// A tester may also load the backends its direct clients can log in to (the direct-to-store
	// baselines): -allow is repeatable.
	for i := range descs {
		descs[i].Env = comps.appEnv[descs[i].Name]
		if descs[i].Kind == perf.Tester {
			for _, a := range comps.directAddrs() {
				descs[i].Args = append(descs[i].Args, "-"+perf.TesterFlagAllow, a)
			}
		}
	}
	if err := createNamespace(ctx, p.cs, ns); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	d := newDeployment(p, ns, descs)
	d.backends = comps.backends()
	d.logsDir = perf.LogsDir(ctx)
	t.Cleanup(func() {
		d.keepLogsOnFailure(t)
		if err := d.close(); err != nil {
			t.Errorf("kube: teardown: %v", err)
		}
	})
	if err := createComponents(ctx, p.cs, p.dyn, ns, comps); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	// The targets first: a placement that keeps testers apart from (or with) the targets' pods
	// is then judged against pods already placed. The app migratesFirst names comes before
	// them all, and is rolled out alone.
	order := creationOrder(descs)
	if first := migratesFirst(order); first >= 0 {
		if err := p.create(ctx, ns, order[first], d); err != nil {
			return nil, fmt.Errorf("start: %w", err)
		}
		if err := waitRollout(ctx, p.cs, ns, order[first:first+1]); err != nil {
			return nil, fmt.Errorf("start: %w", err)
		}
		order = slices.Delete(order, first, first+1)
	}
	for _, desc := range order {
		if err := p.create(ctx, ns, desc, d); err != nil {
			return nil, fmt.Errorf("start: %w", err)
		}
	}
	if err := waitRollout(ctx, p.cs, ns, descs); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	if err := d.readVersion(ctx); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	return d, nil
}

// creationOrder is descs with the targets first, then the testers, each in their order.
func creationOrder(descs []AppDescription) []AppDescription {
	out := make([]AppDescription, 0, len(descs))
	for _, testers := range []bool{false, true} {
		for _, desc := range descs {
			if (desc.Kind == perf.Tester) == testers {
				out = append(out, desc)
			}
		}
	}
	return out
}

// migratesFirst is the index in order of the app whose pod starts, and is ready, before any
// other's is created (startorder.MigratesFirst: the first whose sidecar is on PostgreSQL, when
// several are; its daprd would otherwise exit 1 and its container restart); -1 for none.
func migratesFirst(order []AppDescription) int {
	return startorder.MigratesFirst(order, func(desc AppDescription) bool {
		return desc.DaprEnabled && slices.Contains(perf.Backends(desc.Sidecar.Components), perf.BackendPostgreSQL)
	})
}

// create writes desc's Configuration, token Secret (a tester's, with a new token that d
// keeps), Deployment and Service into ns.
func (p *Platform) create(ctx context.Context, ns string, desc AppDescription, d *Deployment) error {
	if err := createConfiguration(ctx, p.dyn, ns, desc); err != nil {
		return err
	}
	if desc.TokenSecret != "" {
		token := perf.NewTesterToken()
		if _, err := p.cs.CoreV1().Secrets(ns).Create(ctx, TokenSecretObject(ns, desc, token), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("app %s: create Secret %s: %w", desc.Name, desc.TokenSecret, err)
		}
		d.setToken(desc.Name, token)
	}
	if _, err := p.cs.AppsV1().Deployments(ns).Create(ctx, DeploymentObject(ns, desc), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("app %s: create Deployment: %w", desc.Name, err)
	}
	if _, err := p.cs.CoreV1().Services(ns).Create(ctx, ServiceObject(ns, desc, p.serviceType), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("app %s: create Service: %w", desc.Name, err)
	}
	return nil
}
