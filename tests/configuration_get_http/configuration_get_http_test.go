//go:build perf

package configurationgethttp_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestConfigurationGetHTTPPerformance runs scenarios.ConfigurationGet over http (Dapr's
// TestConfigurationGetHTTPPerformance in tests/perf/configuration, through the one runner).
func TestConfigurationGetHTTPPerformance(t *testing.T) {
	scenarios.Run(t, scenarios.ConfigurationGet(perf.HTTP))
}
