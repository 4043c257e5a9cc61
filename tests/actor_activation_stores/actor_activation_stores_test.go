//go:build perf

package actoractivationstores_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestActorActivationPerformance runs actor_activation with the actor state store on Redis
// and on PostgreSQL v2, one subtest per store (Dapr's test uses in-memory only:
// tests/actor_activation).
func TestActorActivationPerformance(t *testing.T) {
	for _, store := range scenarios.ActorStateStores {
		sc := scenarios.ActorActivationOn(store)
		t.Run(sc.Test, func(t *testing.T) { scenarios.Run(t, sc) })
	}
}
