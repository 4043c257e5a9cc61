//go:build perf

package serviceinvocationramp_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestServiceInvocationRamp: service invocation under ramping VUs 0 -> 50 over 5 s, HTTP and
// gRPC, through the real tester and daprd (a demonstration of the closed-loop driver).
func TestServiceInvocationRamp(t *testing.T) {
	for _, tr := range []perf.Protocol{perf.HTTP, perf.GRPC} {
		t.Run(string(tr), func(t *testing.T) { scenarios.Run(t, scenarios.ServiceInvocationRamp(tr)) })
	}
}
