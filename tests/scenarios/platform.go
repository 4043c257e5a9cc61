package scenarios

import (
	"fmt"
	"testing"

	"github.com/daprperf/daprperf/kube"
	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
)

// EnvPlatform selects the platform: "local" (default) or "kubernetes".
const EnvPlatform = "DAPR_PERF_PLATFORM"

// PlatformFromEnv returns the platform DAPR_PERF_PLATFORM names, or an error naming the
// variable and what it accepts. The local platform runs a second daprd build beside every
// sidecar when DAPR_PERF_DAPRD_B names one (an A/B run).
func PlatformFromEnv() (perf.Platform, error) { return platformFromEnv(true) }

// platformFromEnv is PlatformFromEnv; without ab the local platform runs no second build.
func platformFromEnv(ab bool) (perf.Platform, error) {
	env, err := perf.LoadEnv()
	if err != nil {
		return nil, err
	}
	switch name := perf.Val(env.Platform); name {
	case "", "local":
		if !ab {
			return local.New(local.WithoutDaprdB())
		}
		return local.New()
	case "kubernetes":
		if b := perf.Val(env.DaprdB); b != "" {
			return nil, fmt.Errorf("%s=%s: A/B runs of two daprd builds are for the local platform only (%s=kubernetes runs the cluster's daprd)", local.EnvDaprdB, b, EnvPlatform)
		}
		// KUBECONFIG (or in-cluster), DAPR_PERF_IMAGE_REGISTRY, DAPR_PERF_IMAGE_TAG: see package kube.
		p, err := kube.New()
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		return p, nil
	default:
		return nil, fmt.Errorf("%s=%q: must be local or kubernetes", EnvPlatform, name)
	}
}

// Run runs sc with runner.Run on the platform from the environment; a bad DAPR_PERF_PLATFORM
// fails t before anything starts. A plan that runs one build (perf.SingleBuild, the growth
// plan) gets a local platform without build B.
// Under DAPR_PERF_PLAN_ONLY=1 no platform is constructed (the local one runs daprd --version):
// runner.Run prints the plan and returns nil.
func Run(t *testing.T, sc perf.Scenario, opts ...runner.RunOption) *perf.Report {
	t.Helper()
	if planOnly(t) {
		return runner.Run(t, sc, opts...)
	}
	single, _ := sc.Plan.(perf.SingleBuild)
	p, err := platformFromEnv(single == nil || !single.SingleBuild())
	if err != nil {
		t.Fatal(err)
	}
	return runner.Run(t, sc, append([]runner.RunOption{runner.WithPlatform(p)}, opts...)...)
}

// planOnly reports whether DAPR_PERF_PLAN_ONLY asks for a plan-only run; a bad value fails t.
func planOnly(t *testing.T) bool {
	t.Helper()
	only, err := runner.PlanOnlyFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	return only
}
