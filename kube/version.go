package kube

import (
	"context"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daprperf/daprperf/perf"
)

// readVersion sets d's DaprVersion from the first daprd container among the run's pods, and
// whether its sidecars run with mTLS: Dapr's injector adds --enable-mtls to the daprd
// container's arguments when the control plane's configuration turns mTLS on
// (pkg/injector/patcher/sidecar_container.go).
func (d *Deployment) readVersion(ctx context.Context) error {
	pods, err := d.p.cs.CoreV1().Pods(d.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("dapr version: list pods in %s: %w", d.ns, err)
	}
	for _, p := range pods.Items {
		for _, c := range p.Spec.Containers {
			if c.Name == SidecarContainer {
				mtls := slices.Contains(c.Args, "--enable-mtls") || slices.Contains(c.Args, "--enable-mtls=true")
				d.mu.Lock()
				d.version = ImageVersion(c.Image)
				d.mtls = &mtls
				d.mu.Unlock()
				return nil
			}
		}
	}
	return nil
}

// MTLS says whether the injected sidecars run with mTLS (perf.Secured); false before the
// deployment's pods were read, or when no app has a sidecar.
func (d *Deployment) MTLS() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mtls != nil && *d.mtls
}

var _ perf.Secured = (*Deployment)(nil)

// ImageVersion is the version in an image reference's tag, as daprd reports it:
// "ghcr.io/dapr/daprd:1.17.5" and "docker.io/daprio/daprd:v1.17.5-mariner" give "1.17.5".
// A digest is ignored; an image without a tag gives "".
func ImageVersion(image string) string {
	image, _, _ = strings.Cut(image, "@") // drop a digest
	i := strings.LastIndex(image, ":")
	if i < 0 || strings.Contains(image[i:], "/") { // the colon of a registry port
		return ""
	}
	tag := strings.TrimPrefix(image[i+1:], "v")
	for _, variant := range []string{"-mariner", "-stablecomponents", "-allcomponents"} {
		tag = strings.TrimSuffix(tag, variant)
	}
	return tag
}
