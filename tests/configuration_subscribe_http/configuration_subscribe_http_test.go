//go:build perf

package configurationsubscribehttp_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestConfigurationSubscribeHTTPPerformance runs scenarios.ConfigurationSubscribe over http (Dapr's
// TestConfigurationSubscribeHTTPPerformance in tests/perf/configuration, through the one runner).
func TestConfigurationSubscribeHTTPPerformance(t *testing.T) {
	scenarios.Run(t, scenarios.ConfigurationSubscribe(perf.HTTP))
}
