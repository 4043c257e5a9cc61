//go:build perf

package actorreminder_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestActorReminderRegistrationAndTriggerPerformance is Dapr's two actor_reminder tests,
// TestActorReminderRegistrationPerformance then TestActorReminderTriggerPerformance, in one
// run of one deployment (plan.ReminderPlan): the trigger phase's due time comes from the
// registration phase's achieved rate.
func TestActorReminderRegistrationAndTriggerPerformance(t *testing.T) {
	scenarios.Run(t, scenarios.ActorReminder())
}
