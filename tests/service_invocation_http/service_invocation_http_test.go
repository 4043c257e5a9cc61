//go:build perf

package serviceinvocationhttp_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

func TestServiceInvocationHTTPPerformance(t *testing.T) {
	scenarios.Run(t, scenarios.ServiceInvocation(perf.HTTP))
}
