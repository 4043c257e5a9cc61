//go:build perf

package configurationsubscribegrpc_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestConfigurationSubscribeGRPCPerformance runs scenarios.ConfigurationSubscribe over grpc (Dapr's
// TestConfigurationSubscribeGRPCPerformance in tests/perf/configuration, through the one runner).
func TestConfigurationSubscribeGRPCPerformance(t *testing.T) {
	scenarios.Run(t, scenarios.ConfigurationSubscribe(perf.GRPC))
}
