package local

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHoldNeverEndsEarly(t *testing.T) {
	timer, err := newHoldTimer()
	require.NoError(t, err)
	for _, d := range []time.Duration{0, 50 * time.Microsecond, 370 * time.Microsecond, 2 * time.Millisecond} {
		for range 5 {
			start := time.Now()
			require.NoError(t, timer.hold(d))
			assert.GreaterOrEqual(t, time.Since(start), d, "a hold of %v", d)
		}
	}
	require.NoError(t, timer.Close())
	assert.Error(t, timer.hold(time.Millisecond), "a closed timer")

}

// measureHold gives 0 for no delay, and otherwise a hold no shorter than the delay asked: a
// hold never ends early, however coarse the machine's timer.
func TestMeasureHoldIsNeverShorterThanTheDelay(t *testing.T) {
	held, err := measureHold(0)
	require.NoError(t, err)
	assert.Zero(t, held)
	for _, d := range []time.Duration{50 * time.Microsecond, 370 * time.Microsecond, 3 * time.Millisecond} {
		got, err := measureHold(d)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, got, d, "hold of %v", d)
		assert.Less(t, got, d+50*time.Millisecond, "hold of %v: a median of %d waits", d, holdSamples)
	}
}

// BenchmarkHold reports how late a hold of 370 µs ends (late-µs/op), against time.Sleep's
// (sleep-late-µs/op): on a KVM guest with kvm-clock about 0.1 ms against about 0.75 ms.
func BenchmarkHold(b *testing.B) {
	const d = 370 * time.Microsecond
	timer, err := newHoldTimer()
	require.NoError(b, err)
	defer timer.Close()
	var late, sleepLate time.Duration
	for b.Loop() {
		start := time.Now()
		_ = timer.hold(d)
		late += time.Since(start) - d
		start = time.Now()
		time.Sleep(d)
		sleepLate += time.Since(start) - d
	}
	b.ReportMetric(float64(late.Microseconds())/float64(b.N), "late-µs/op")
	b.ReportMetric(float64(sleepLate.Microseconds())/float64(b.N), "sleep-late-µs/op")
}
