//go:build perf

package actoractivation_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestActorActivate is Dapr's actor_activation: new actor ids activated through the tester's
// daprd at a fixed rate. Subtests: "actor_activation", Dapr's (the actor state on PostgreSQL
// v2, as Dapr's CI), then "actor_activation_redis" and "actor_activation_in-memory", the same
// load with the actor state on Redis and in memory (scenarios.ActorActivationOn).
func TestActorActivate(t *testing.T) {
	sc := scenarios.ActorActivation()
	t.Run(sc.Test, func(t *testing.T) { scenarios.Run(t, sc) })
	for _, store := range scenarios.ActorStateStores {
		sc := scenarios.ActorActivationOn(store)
		t.Run(sc.Test, func(t *testing.T) { scenarios.Run(t, sc) })
	}
}
