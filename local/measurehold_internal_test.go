package local

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// measureHold gives 0 for no delay, and otherwise a hold no shorter than the delay asked: a
// sleep never ends early, however coarse the machine's timer.
func TestMeasureHoldIsNeverShorterThanTheDelay(t *testing.T) {
	assert.Zero(t, measureHold(0))
	for _, d := range []time.Duration{50 * time.Microsecond, 370 * time.Microsecond, 3 * time.Millisecond} {
		got := measureHold(d)
		assert.GreaterOrEqual(t, got, d, "hold of %v", d)
		assert.Less(t, got, d+50*time.Millisecond, "hold of %v: a median of %d waits", d, holdSamples)
	}
}
