//go:build perf

package actordoubleactivation_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestActorDoubleActivation: three actor host replicas, one actor id under ramped
// VUs, then 50 ms delay and 10 % 500s on its host for 15 s (scenarios.ActorDoubleActivation).
func TestActorDoubleActivation(t *testing.T) {
	scenarios.Run(t, scenarios.ActorDoubleActivation())
}
