//go:build perf

package serviceinvocationgrpc_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

func TestServiceInvocationGrpcPerformance(t *testing.T) {
	scenarios.Run(t, scenarios.ServiceInvocation(perf.GRPC))
}
