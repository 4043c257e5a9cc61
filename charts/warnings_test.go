package charts

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Alike warnings of several rounds become one line with their rounds and the range of each of
// their numbers; a warning alike no other stays as it is; alike ones without a round are counted.
func TestGroupWarnings(t *testing.T) {
	got := groupWarnings([]string{
		"round 1 baseline: coordinated omission: response-time p99 1.352 ms is 3.1x the service-time p99 0.440 ms (flagged above 2x)",
		"round 2 baseline: coordinated omission: response-time p99 1.397 ms is 2.9x the service-time p99 0.484 ms (flagged above 2x)",
		"round 1 main: connection churn: 496 TCP connections opened for 16 configured",
		"round 4 baseline: coordinated omission: response-time p99 1.504 ms is 2.5x the service-time p99 0.598 ms (flagged above 2x)",
		"memory growth is not classified by the stage plan",
		"stage a: 3 requests late",
		"stage b: 5 requests late",
	})
	assert.Equal(t, []string{
		"rounds 1–2, 4 baseline: coordinated omission: response-time p99 1.352 to 1.504 ms is 2.5 to 3.1x the service-time p99 0.440 to 0.598 ms (flagged above 2x)",
		"round 1 main: connection churn: 496 TCP connections opened for 16 configured",
		"memory growth is not classified by the stage plan",
		"stage a: 3 requests late",
		"stage b: 5 requests late",
	}, got)
	assert.Equal(t, []string{"late by 1 to 7 ms (3 alike)"}, groupWarnings([]string{"late by 7 ms", "late by 1 ms", "late by 2 ms"}))
}
