package charts

import "testing"

// A latency reads in ms below a second and in seconds from one on, either sign.
func TestFmtLatencyScalesItsUnit(t *testing.T) {
	for s, want := range map[float64]string{
		0.0012345: "1.234 ms", 0.8675141: "867.514 ms", 1.8675141: "1.868 s", 40.063992: "40.064 s", -2.5: "-2.500 s", -0.004: "-4.000 ms",
	} {
		if got := fmtLatency(s); got != want {
			t.Errorf("fmtLatency(%g) = %q, want %q", s, got, want)
		}
	}
}
