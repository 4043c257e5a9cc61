//go:build perf

package actortypescale_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestActorIdStress is Dapr's actor_type_scale, under the name Dapr gives it there: 100 actor
// types in one host, VUs ramped to 500 over 8 s.
func TestActorIdStress(t *testing.T) {
	scenarios.Run(t, scenarios.ActorTypeScale())
}
