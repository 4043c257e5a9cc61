//go:build perf

package actorreminder_test

import (
	"testing"

	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestActorReminderRegistrationPerformance is Dapr's: reminders registered through the host's
// daprd at 3000 QPS over 24 connections for 1 minute, its gate the achieved rate.
func TestActorReminderRegistrationPerformance(t *testing.T) {
	scenarios.Run(t, scenarios.ActorReminderRegistration())
}

// TestActorReminderTriggerPerformance is Dapr's: 20,000 reminders due at one time, 5 fires
// each, its gate the trigger rate and every fire in the window.
func TestActorReminderTriggerPerformance(t *testing.T) {
	scenarios.Run(t, scenarios.ActorReminderTrigger())
}
