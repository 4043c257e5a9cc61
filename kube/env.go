package kube

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/daprperf/daprperf/perf"
)

// The environment variables New reads.
const (
	// EnvKubeconfig is the kubeconfig file (or a list, as kubectl reads it). Unset means
	// in-cluster configuration (the service account of the pod the test runs in).
	EnvKubeconfig = "KUBECONFIG"
	// EnvImageRegistry is where the app images are: "ghcr.io/me" gives
	// "ghcr.io/me/daprperf-tester:<tag>". Required unless WithImages is given.
	EnvImageRegistry = "DAPR_PERF_IMAGE_REGISTRY"
	// EnvImageTag is the tag of every app image. Required unless WithImages is given.
	EnvImageTag = "DAPR_PERF_IMAGE_TAG"
	// EnvDaprTestRegistry and EnvDaprTestTag are Dapr's names for the same two settings (its
	// tests/ Makefile and runner read them), accepted as aliases: each is used when its
	// DAPR_PERF_IMAGE_* twin is unset; both set to different values is an error.
	EnvDaprTestRegistry = "DAPR_TEST_REGISTRY"
	EnvDaprTestTag      = "DAPR_TEST_TAG"
	// EnvServiceType is the type of the apps' Services: ClusterIP (default, reached by
	// port-forward) or LoadBalancer (reached through the ingress address once it has one).
	EnvServiceType = "DAPR_PERF_SERVICE_TYPE"
)

var (
	// validRegistry is a registry host with an optional port and path, without a scheme or a
	// trailing slash: "localhost:5000", "ghcr.io/me/perf".
	validRegistry = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?(/[a-z0-9]([a-z0-9._-]*[a-z0-9])?)*$`)
	// validTag is Docker's tag grammar.
	validTag = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
)

// Images names the app images: <Registry>/daprperf-<kind>:<Tag>.
type Images struct {
	Registry string // "ghcr.io/me", no scheme, no trailing slash
	Tag      string // "v0.3.0", or a nightly build's tag
}

// Image is the image reference of an app kind.
func (im Images) Image(kind perf.AppKind) string {
	return im.Registry + "/daprperf-" + string(kind) + ":" + im.Tag
}

// Validate returns an error naming the variable (EnvImageRegistry or EnvImageTag) whose value
// is missing or malformed.
func (im Images) Validate() error { return im.validate(EnvImageRegistry, EnvImageTag) }

// validate is Validate with the names of the variables the values came from.
func (im Images) validate(registryVar, tagVar string) error {
	switch {
	case im.Registry == "":
		return fmt.Errorf("%s (or Dapr's %s) is not set: name the registry that holds the daprperf-* images, e.g. ghcr.io/me", EnvImageRegistry, EnvDaprTestRegistry)
	case !validRegistry.MatchString(im.Registry):
		return fmt.Errorf("%s=%q: want a registry host and path without scheme or trailing slash, e.g. ghcr.io/me or localhost:5000", registryVar, im.Registry)
	case im.Tag == "":
		return fmt.Errorf("%s (or Dapr's %s) is not set: name the tag the images were pushed with, e.g. v0.3.0", EnvImageTag, EnvDaprTestTag)
	case !validTag.MatchString(im.Tag):
		return fmt.Errorf("%s=%q: want an image tag (letters, digits, _ . -; at most 128)", tagVar, im.Tag)
	}
	return nil
}

// envWithAlias reads primary, or alias when primary is unset or blank, and returns the value
// and the name of the variable it came from. Both set to different values is an error.
func envWithAlias(primary, alias string, pv, av *string) (value, from string, err error) {
	p, a := strings.TrimSpace(perf.Val(pv)), strings.TrimSpace(perf.Val(av))
	switch {
	case p != "" && a != "" && p != a:
		return "", primary, fmt.Errorf("%s=%q and %s=%q differ: set one of them (%s is Dapr's name for %s)", primary, p, alias, a, alias, primary)
	case p == "" && a != "":
		return a, alias, nil
	}
	return p, primary, nil
}

// imagesFromEnv reads EnvImageRegistry and EnvImageTag, or their aliases EnvDaprTestRegistry
// and EnvDaprTestTag, and validates them; an error names the variable.
func imagesFromEnv(env perf.Env) (Images, error) {
	reg, regVar, regErr := envWithAlias(EnvImageRegistry, EnvDaprTestRegistry, env.ImageRegistry, env.DaprTestRegistry)
	tag, tagVar, tagErr := envWithAlias(EnvImageTag, EnvDaprTestTag, env.ImageTag, env.DaprTestTag)
	if err := errors.Join(regErr, tagErr); err != nil {
		return Images{}, err
	}
	im := Images{Registry: reg, Tag: tag}
	return im, im.validate(regVar, tagVar)
}

// sidecarResourcesFromEnv reads Dapr's DAPR_SIDECAR_CPU_LIMIT, _CPU_REQUEST, _MEMORY_LIMIT and
// _MEMORY_REQUEST: the resources of every sidecar whose scenario sets none. A value that is
// not a Kubernetes quantity is an error naming the variable.
func sidecarResourcesFromEnv(env perf.Env) (perf.Resources, error) {
	var r perf.Resources
	vars := []struct {
		name  string
		v, to *string
	}{
		{"DAPR_SIDECAR_CPU_LIMIT", env.SidecarCPULimit, &r.CPULimit},
		{"DAPR_SIDECAR_CPU_REQUEST", env.SidecarCPUReq, &r.CPURequest},
		{"DAPR_SIDECAR_MEMORY_LIMIT", env.SidecarMemLimit, &r.MemoryLimit},
		{"DAPR_SIDECAR_MEMORY_REQUEST", env.SidecarMemReq, &r.MemoryRequest},
	}
	var errs []error
	for _, e := range vars {
		v := perf.Val(e.v)
		if v == "" {
			continue
		}
		if _, err := resource.ParseQuantity(v); err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: must be a Kubernetes quantity such as 500m, 4.0 or 512Mi", e.name, v))
			continue
		}
		*e.to = v
	}
	return r, errors.Join(errs...)
}

// withSidecarDefaults is apps with def filling each sidecar resource its scenario leaves empty.
func withSidecarDefaults(apps []perf.App, def perf.Resources) []perf.App {
	out := make([]perf.App, len(apps))
	for i, a := range apps {
		if a.Sidecar != nil {
			s := *a.Sidecar
			fill := func(v *string, d string) {
				if *v == "" {
					*v = d
				}
			}
			fill(&s.Resources.CPULimit, def.CPULimit)
			fill(&s.Resources.CPURequest, def.CPURequest)
			fill(&s.Resources.MemoryLimit, def.MemoryLimit)
			fill(&s.Resources.MemoryRequest, def.MemoryRequest)
			a.Sidecar = &s
		}
		out[i] = a
	}
	return out
}

// serviceTypeFromEnv reads EnvServiceType; unset is ClusterIP.
func serviceTypeFromEnv(env perf.Env) (corev1.ServiceType, error) {
	switch v := perf.Val(env.ServiceType); v {
	case "", string(corev1.ServiceTypeClusterIP):
		return corev1.ServiceTypeClusterIP, nil
	case string(corev1.ServiceTypeLoadBalancer):
		return corev1.ServiceTypeLoadBalancer, nil
	default:
		return "", fmt.Errorf("%s=%q: must be %s or %s", EnvServiceType, v, corev1.ServiceTypeClusterIP, corev1.ServiceTypeLoadBalancer)
	}
}

// EnvPlacement picks the placements: auto (ChoosePlacements at each start), labels
// (LabelledPlacements), spread (SpreadPlacements) or none.
const EnvPlacement = "DAPR_PERF_KUBE_PLACEMENT"

// placementsFromEnv is EnvPlacement's placements; nil for auto.
func placementsFromEnv(env perf.Env) (Placements, error) {
	switch v := perf.Val(env.KubePlacement); v {
	case "", "auto":
		return nil, nil
	case "labels":
		return LabelledPlacements(), nil
	case "spread":
		return SpreadPlacements(), nil
	case "none":
		return Placements{}, nil
	default:
		return nil, fmt.Errorf("%s=%q: must be auto, labels, spread or none", EnvPlacement, v)
	}
}

// EnvKubeContext picks a context of the kubeconfig other than its current one.
const EnvKubeContext = "DAPR_PERF_KUBE_CONTEXT"

// restConfigFromEnv loads EnvKubeconfig, or the in-cluster configuration when it is unset.
func restConfigFromEnv(env perf.Env) (*rest.Config, error) {
	path := perf.Val(env.Kubeconfig)
	if path == "" {
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("%s is not set and this is not a pod in a cluster: %w", EnvKubeconfig, err)
		}
		return cfg, nil
	}
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: path} // a missing file is an error
	if strings.ContainsRune(path, os.PathListSeparator) {
		rules = &clientcmd.ClientConfigLoadingRules{Precedence: filepath.SplitList(path)} // merged, as kubectl does
	}
	kctx := perf.Val(env.KubeContext)
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: kctx}).ClientConfig()
	if err != nil {
		if kctx != "" {
			return nil, fmt.Errorf("%s=%s, %s=%s: %w", EnvKubeconfig, path, EnvKubeContext, kctx, err)
		}
		return nil, fmt.Errorf("%s=%s: %w", EnvKubeconfig, path, err)
	}
	return cfg, nil
}
