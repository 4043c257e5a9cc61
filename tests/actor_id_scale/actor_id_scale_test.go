//go:build perf

package actoridscale_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestActorIdStress: a new actor id per call over scenarios.ActorIDScaleReplicas hosts, VUs
// ramped to 500 over 8 s (Dapr's tests/perf/actor_id_scale, of the same name, skipped there
// as flaky).
func TestActorIdStress(t *testing.T) {
	scenarios.Run(t, scenarios.ActorIDScale())
}
