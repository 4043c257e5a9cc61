//go:build perf

package configurationgethttp_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestConfigurationGetHTTPPerformance is Dapr's test of that name (tests/perf/configuration):
// first Dapr's own load, k6's ramp of 0 -> 500 VUs over 9 s on the baseline (direct Redis
// GETs) and on the Dapr run ("configuration_get_ramp", scenarios.ConfigurationGetRamp), then
// daprperf's fixed-rate variant, 1000 QPS for 1 min ("configuration_get",
// scenarios.ConfigurationGet).
func TestConfigurationGetHTTPPerformance(t *testing.T) {
	for _, sc := range []perf.Scenario{scenarios.ConfigurationGetRamp(perf.HTTP), scenarios.ConfigurationGet(perf.HTTP)} {
		t.Run(sc.Test, func(t *testing.T) { scenarios.Run(t, sc) })
	}
}
