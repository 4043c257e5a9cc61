//go:build perf

package actortypescale_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestActorTypeScalePerformance: 100 actor types in one host, VUs ramped to 500 over 8 s
// (Dapr's tests/perf/actor_type_scale, whose test function is TestActorIdStress).
func TestActorTypeScalePerformance(t *testing.T) {
	scenarios.Run(t, scenarios.ActorTypeScale())
}
