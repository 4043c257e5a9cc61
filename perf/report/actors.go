package report

import (
	"fmt"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// actorFigures adds the gate figures of the actor hosts' counters: "actors.activations",
// "actors.doubleActivations", "actors.errors" and "actors.timersUnfired" (counts, summed over
// hosts), and "actors.timerLag.p99" (seconds, the highest over hosts) when timers fired.
func actorFigures(gates map[string]float64, hosts []perf.ActorStats) {
	if len(hosts) == 0 {
		return
	}
	var act, dbl, errs, unfired float64
	for _, h := range hosts {
		act += float64(h.Activations)
		dbl += float64(h.DoubleActivations)
		errs += float64(h.Errors)
		if h.TimersNeverFired != nil {
			unfired += float64(*h.TimersNeverFired)
		} else {
			unfired += float64(max(h.TimersRegistered-h.TimerFires, 0))
		}
		if lag, ok := h.TimerLagSeconds["p99"]; ok {
			gates["actors.timerLag.p99"] = max(gates["actors.timerLag.p99"], lag)
		}
	}
	gates["actors.activations"] = act
	gates["actors.doubleActivations"] = dbl
	gates["actors.errors"] = errs
	gates["actors.timersUnfired"] = unfired
}

// actorSummary is the summary's lines on the actor hosts.
func actorSummary(hosts []perf.ActorStats) string {
	var b strings.Builder
	for _, h := range hosts {
		fmt.Fprintf(&b, "actor host %s (lock %s): %d activations of %d ids (at most %d per id), %d double activations, %d calls through daprd, %d direct, %d deactivations, %d errors",
			h.App, h.Lock, h.Activations, h.IDs, h.MaxActivationsPerID, h.DoubleActivations, h.Calls, h.DirectCalls, h.Deactivations, h.Errors)
		if h.TimersRegistered > 0 {
			fmt.Fprintf(&b, "; timers %d registered, %d fired", h.TimersRegistered, h.TimerFires)
			if l := h.TimerLagSeconds; l != nil {
				fmt.Fprintf(&b, ", fire lag p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms", l["p50"]*1e3, l["p90"]*1e3, l["p99"]*1e3, l["max"]*1e3)
			}
		}
		if h.LastError != "" {
			fmt.Fprintf(&b, "; last error: %s", h.LastError)
		}
		b.WriteString("\n")
	}
	return b.String()
}
