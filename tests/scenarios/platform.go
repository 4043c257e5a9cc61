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

// NewPlatform returns the platform env's DAPR_PERF_PLATFORM names, or an error naming the
// variable and what it accepts. The local platform runs a second daprd build beside every
// sidecar when DAPR_PERF_DAPRD_B names one (an A/B run), unless single (a plan that runs one
// build: perf.SingleBuild).
func NewPlatform(env perf.Env, single bool) (perf.Platform, error) {
	switch name := perf.Val(env.Platform); name {
	case "", "local":
		if single {
			return local.New(local.WithEnv(env), local.WithoutDaprdB())
		}
		return local.New(local.WithEnv(env))
	case "kubernetes":
		if b := perf.Val(env.DaprdB); b != "" {
			return nil, fmt.Errorf("%s=%s: A/B runs of two daprd builds are for the local platform only (%s=kubernetes runs the cluster's daprd)", local.EnvDaprdB, b, EnvPlatform)
		}
		if d := env.ABDelay; d != nil {
			return nil, fmt.Errorf("%s=%v: a slowed build B is for the local platform's A/B runs only (%s=kubernetes runs the cluster's daprd)", perf.EnvABDelay, *d, EnvPlatform)
		}
		// KUBECONFIG (or in-cluster), DAPR_PERF_IMAGE_REGISTRY, DAPR_PERF_IMAGE_TAG: see package kube.
		p, err := kube.New(kube.WithEnv(env))
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		return p, nil
	default:
		return nil, fmt.Errorf("%s=%q: must be local or kubernetes", EnvPlatform, name)
	}
}

// Run runs sc with runner.Run on the platform the run's environment names (NewPlatform); a bad
// DAPR_PERF_PLATFORM fails t before anything starts. Under DAPR_PERF_PLAN_ONLY=1 no platform is
// constructed (the local one runs daprd --version): runner.Run prints the plan and returns nil.
func Run(t *testing.T, sc perf.Scenario, opts ...runner.RunOption) *perf.Report {
	t.Helper()
	return runner.Run(t, sc, append([]runner.RunOption{runner.WithPlatformFrom(NewPlatform)}, opts...)...)
}
