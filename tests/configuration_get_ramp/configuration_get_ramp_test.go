//go:build perf

package configurationgetramp_test

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestConfigurationGetRampPerformance runs Dapr's own configuration get load, k6's ramping
// VUs 0 -> 100 -> 300 -> 500 over 9 s, over HTTP and gRPC (scenarios.ConfigurationGetRamp).
func TestConfigurationGetRampPerformance(t *testing.T) {
	for _, tr := range []perf.Protocol{perf.HTTP, perf.GRPC} {
		t.Run(string(tr), func(t *testing.T) { scenarios.Run(t, scenarios.ConfigurationGetRamp(tr)) })
	}
}
