//go:build perf

package serviceinvocationcurve_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestServiceInvocationCostCurve: the sidecar's cost curve for service invocation, HTTP and
// gRPC: latency through both sidecars and each sidecar's CPU per request against the offered
// rate, and the highest rate within the bound (scenarios.ServiceInvocationCurve). Not one of
// Dapr's tests; make cost-curve runs it with mTLS on and off.
func TestServiceInvocationCostCurve(t *testing.T) {
	for _, tr := range []perf.Protocol{perf.HTTP, perf.GRPC} {
		t.Run(string(tr), func(t *testing.T) { scenarios.Run(t, scenarios.ServiceInvocationCurve(tr)) })
	}
}
