//go:build perf

package configurationgetgrpc_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestConfigurationGetGRPCPerformance runs scenarios.ConfigurationGet over grpc (Dapr's
// TestConfigurationGetGRPCPerformance in tests/perf/configuration, through the one runner).
func TestConfigurationGetGRPCPerformance(t *testing.T) {
	scenarios.Run(t, scenarios.ConfigurationGet(perf.GRPC))
}
