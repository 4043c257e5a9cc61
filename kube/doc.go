// Package kube is the Kubernetes platform of daprperf: it runs a scenario's apps as
// Deployments and Services in a namespace of their own, with Dapr's sidecar injected through
// dapr.io/* annotations, and implements perf.Platform.
//
// The easy case reads its configuration from the environment:
//
//	p, err := kube.New() // KUBECONFIG (or in-cluster), DAPR_PERF_IMAGE_REGISTRY, DAPR_PERF_IMAGE_TAG
//	if err != nil {
//		t.Fatal(err)
//	}
//	dep := p.Start(ctx, t, apps...) // namespace, objects, rollout; teardown in t.Cleanup
//
// The full one names everything:
//
//	kube.New(kube.WithRESTConfig(cfg), kube.WithImages(kube.Images{Registry: reg, Tag: tag}))
//
// Each perf.App becomes an AppDescription (Describe), and that becomes a Deployment, a Service
// and, when its sidecar has a Config, a Dapr Configuration (dapr.io/v1alpha1). The cluster must
// run Dapr's control plane (the sidecar injector) for sidecars to appear; without it the apps
// run alone and the sidecar endpoints do not answer.
//
// The platform reaches apps through a Service's LoadBalancer ingress when it has one, else
// through a client-go port-forward to 127.0.0.1. Restarts come from container statuses, usage
// from the metrics API (metrics.k8s.io, served by metrics-server).
package kube
