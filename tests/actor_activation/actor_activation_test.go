//go:build perf

package actoractivation_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

func TestActorActivationPerformance(t *testing.T) {
	scenarios.Run(t, scenarios.ActorActivation())
}
