package report

import (
	"fmt"
	"slices"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/stats"
)

// MachineDrift is how far the machine's own speed moved between a curve run's searches, read
// from the app's CPU per request: the app answers and does nothing else, so its cost per
// request at a given rate moves only with the machine (the CPU's clock, a neighbour on the
// host), and the sidecars' moves with it. Slowest and Fastest are the searches' medians, µs of
// one core per request, over their loads at the rates every search offered and kept; Change
// is Slowest / Fastest − 1.
type MachineDrift struct {
	Fastest, Slowest float64
	FastestSearch    int // 1-based
	SlowestSearch    int
	Change           float64
}

// machineDriftAlarm is the change in the app's CPU per request past which a curve's finding
// says the machine moved under its searches: twice the 5 % the searches must agree within.
const machineDriftAlarm = 0.10

// CurveMachineDrift is the machine's drift between c's searches (MachineDrift); ok is false
// with fewer than two searches, or no rate every search offered and kept with the app's CPU
// measured.
func CurveMachineDrift(c *perf.CurveReport) (MachineDrift, bool) {
	if c == nil || len(c.Searches) < 2 {
		return MachineDrift{}, false
	}
	appMicros := func(st perf.CurveProbe) (float64, bool) {
		for _, u := range st.CPU {
			if u.Role == perf.RoleApp && st.AchievedQPS > 0 && st.KeptRatio >= c.Bound.KeptRatio {
				return 1e6 * u.Cores / st.AchievedQPS, true
			}
		}
		return 0, false
	}
	// The rates every search offered and kept, with the app's CPU measured.
	var common []int
	for i, s := range c.Searches {
		var rates []int
		for _, st := range s.Steps {
			if _, ok := appMicros(st); ok && !slices.Contains(rates, st.OfferedQPS) {
				rates = append(rates, st.OfferedQPS)
			}
		}
		if i == 0 {
			common = rates
			continue
		}
		common = slices.DeleteFunc(common, func(q int) bool { return !slices.Contains(rates, q) })
	}
	if len(common) == 0 {
		return MachineDrift{}, false
	}
	var d MachineDrift
	for i, s := range c.Searches {
		var xs []float64
		for _, st := range s.Steps {
			if v, ok := appMicros(st); ok && slices.Contains(common, st.OfferedQPS) {
				xs = append(xs, v)
			}
		}
		m := stats.Median(xs)
		if i == 0 || m < d.Fastest {
			d.Fastest, d.FastestSearch = m, i+1
		}
		if i == 0 || m > d.Slowest {
			d.Slowest, d.SlowestSearch = m, i+1
		}
	}
	if d.Fastest <= 0 {
		return MachineDrift{}, false
	}
	d.Change = d.Slowest/d.Fastest - 1
	return d, true
}

// String says the drift in words: "the app's CPU per request was 55 µs in search 1 and 76 µs in
// search 3 (+38 %)".
func (d MachineDrift) String() string {
	return fmt.Sprintf("the app's CPU per request was %.0f µs in search %d and %.0f µs in search %d (+%.0f %%)",
		d.Fastest, d.FastestSearch, d.Slowest, d.SlowestSearch, 100*d.Change)
}
