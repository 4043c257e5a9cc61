//go:build perf

package actortimer_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

func TestActorTimerWithStatePerformance(t *testing.T) {
	scenarios.Run(t, scenarios.ActorTimer())
}
