package report

import (
	"fmt"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/hdr"
)

// LatencyAt is a latency's value at percentile p (0 to 100), in seconds; ok is false where the
// report did not measure it.
type LatencyAt func(p float64) (seconds float64, ok bool)

// loadsLatency is the summary latency of a kind whose figures are its named loads: their
// latency histograms merged, named "<k's latency>, <n> <k's loads> merged"; nil when a load has
// no histogram or none has a sample.
func loadsLatency(k Kind, r *perf.Report) (string, LatencyAt) {
	var all *hdr.Histogram
	for i := range r.Loads {
		h, err := r.Loads[i].Latency.Histogram()
		if err != nil {
			return "", nil
		}
		if all == nil {
			all = h
		} else {
			all.Merge(h)
		}
	}
	if all == nil || all.Count() == 0 {
		return "", nil
	}
	_, short := k.LatencyWhat()
	word := k.LoadWord() + "s"
	if len(r.Loads) == 1 {
		word = k.LoadWord()
	}
	return fmt.Sprintf("%s, %d %s merged", short, len(r.Loads), word), func(p float64) (float64, bool) { return all.Percentile(p).Seconds(), true }
}

// fromPercentiles reads a latency stored by percentile name ("p99"), seconds.
func fromPercentiles(m map[string]float64) LatencyAt {
	return func(p float64) (float64, bool) {
		v, ok := m[perf.PercentileName(p)]
		return v, ok
	}
}

func (k overheadKind) SummaryLatency(r *perf.Report) (string, LatencyAt)   { return loadsLatency(k, r) }
func (k growthKind) SummaryLatency(r *perf.Report) (string, LatencyAt)     { return "", nil }
func (k stagesKind) SummaryLatency(r *perf.Report) (string, LatencyAt)     { return loadsLatency(k, r) }
func (k iterationsKind) SummaryLatency(r *perf.Report) (string, LatencyAt) { return loadsLatency(k, r) }
func (k faultsKind) SummaryLatency(r *perf.Report) (string, LatencyAt)     { return loadsLatency(k, r) }
func (k curveKind) SummaryLatency(r *perf.Report) (string, LatencyAt)      { return loadsLatency(k, r) }

// SummaryLatency of a delivery run is its delivery latency (a configuration subscription's
// update-to-notification latency), measured when a message arrived.
func (deliveryKind) SummaryLatency(r *perf.Report) (string, LatencyAt) {
	d := r.Delivery
	if d == nil {
		return "", nil
	}
	what := "delivery latency"
	if d.Mode == perf.SubscribeConfiguration {
		what = "update-to-notification latency"
	}
	return what, func(p float64) (float64, bool) {
		v, err := d.Latency.Percentile(p)
		return v.Seconds(), err == nil && d.Received > 0
	}
}

// SummaryLatency of a jobs run is its trigger lag.
func (jobsKind) SummaryLatency(r *perf.Report) (string, LatencyAt) {
	if r.Jobs == nil {
		return "", nil
	}
	return "trigger lag", fromPercentiles(r.Jobs.Lag)
}

// SummaryLatency of a reminders run is its fire lag, or its loads' latency when the fire lag
// was not recorded.
func (k remindersKind) SummaryLatency(r *perf.Report) (string, LatencyAt) {
	if r.Reminders == nil {
		return "", nil
	}
	if r.Reminders.LagSeconds == nil {
		return loadsLatency(k, r)
	}
	return "fire lag", fromPercentiles(r.Reminders.LagSeconds)
}
