package report

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/daprperf/daprperf/perf"
)

// deliveryGates adds the delivery figures to gates: lost, duplicated, timeouts, the delivery
// latency percentiles ("delivery.p95", seconds), errors and qps.ratio of the loads (qps.ratio
// of the fixed-rate ones: a closed loop has no target rate), and the main load's own request
// time as k6 gates it ("latency.p95", "latency.mean", seconds; the publish request, or the
// update and its wait with a timed Await).
func deliveryGates(r *perf.Report, gates map[string]float64) {
	dr := r.Delivery
	if dr == nil {
		return
	}
	var errs int64
	ratio, rated := 0.0, false
	for _, l := range r.Loads {
		errs += l.Errors()
		if l.ClosedLoop() {
			continue
		}
		if q := l.QPSRatio(); !rated || q < ratio {
			ratio, rated = q, true
		}
	}
	if len(r.Loads) > 0 {
		gates["errors"] = float64(errs)
	}
	if rated {
		gates["qps.ratio"] = ratio
	}
	if base := deliveryBaseline(r); base != nil {
		gates[perf.PhaseBaseline+".mean"] = base.Latency.AvgSeconds
		for _, p := range perf.GatePercentiles {
			if d, err := base.Latency.Percentile(p); err == nil {
				gates[perf.PhaseBaseline+"."+perf.PercentileName(p)] = d.Seconds()
			}
		}
	}
	main := deliveryMain(r)
	if main == nil || dr.DrainWindowSeconds == 0 {
		return
	}
	gates["latency.mean"] = main.Latency.AvgSeconds
	for _, p := range perf.GatePercentiles {
		if d, err := main.Latency.Percentile(p); err == nil {
			gates["latency."+perf.PercentileName(p)] = d.Seconds()
		}
	}
	gates["delivery.timeouts"] = float64(dr.AwaitTimeouts)
	gates["delivery.lost"] = float64(dr.Lost)
	gates["delivery.duplicated"] = float64(dr.Duplicated)
	if dr.Received > 0 {
		gates["delivery.mean"] = dr.Latency.AvgSeconds
	}
	for _, p := range dr.Latency.Percentiles {
		gates["delivery."+perf.PercentileName(p.P)] = p.Seconds
	}
}

// deliveryBaseline is the baseline load of a delivery run that ran one (its first load, named
// perf.PhaseBaseline), else nil.
func deliveryBaseline(r *perf.Report) *perf.Result {
	if len(r.Loads) > 0 && r.Loads[0].Name == perf.PhaseBaseline {
		return &r.Loads[0].Result
	}
	return nil
}

// deliveryMain is the main load of a delivery run: its last load, unless that is its baseline
// (the main load did not complete); nil when there is none.
func deliveryMain(r *perf.Report) *perf.Result {
	if n := len(r.Loads); n > 0 && r.Loads[n-1].Name != perf.PhaseBaseline {
		return &r.Loads[n-1].Result
	}
	return nil
}

// deliveryTable is the summary's block of a delivery run.
func deliveryTable(b *strings.Builder, r *perf.Report) {
	dr := r.Delivery
	if dr.Mode == perf.SubscribeConfiguration {
		fmt.Fprintf(b, "delivery: configuration subscribe over %s, store %s (%s), updates written straight to the store %s, %d-byte values\n",
			r.Transport, dr.PubSub, orNone(string(dr.Broker)), pace(r.Params, "/s"), r.Params.PayloadBytes)
	} else {
		fmt.Fprintf(b, "delivery: %s subscribe over %s, pubsub %s (%s), topic %s, published through the tester's daprd %s, %d-byte messages\n",
			dr.Mode, orHTTP(dr.Delivery), dr.PubSub, orNone(string(dr.Broker)), dr.Topic, pace(r.Params, " msg/s"), r.Params.PayloadBytes)
	}
	fmt.Fprintf(b, "messages: sent %d (of %d stamped, %d publish errors), received %d, LOST %d, duplicated %d, stale %d, malformed %d; drain %.2f s of %.0f s (%s)\n",
		dr.Sent, dr.Sequenced, dr.PublishErrors, dr.Received, dr.Lost, dr.Duplicated, dr.Stale, dr.Malformed, dr.DrainSeconds, dr.DrainWindowSeconds,
		map[bool]string{true: "all in", false: "window ended"}[dr.DrainComplete])
	if a := r.Params.Await; a != nil {
		fmt.Fprintf(b, "each iteration waited up to %v for its messages: %d timed out\n", a.Timeout, dr.AwaitTimeouts)
	}
	if br := dr.BrokerRestart; br != nil {
		fmt.Fprintf(b, "broker restart: %s stopped %.1f s into the main load, down %.2f s %s\n", dr.Broker, br.AtSeconds, br.DownSeconds, br.Error)
	}
	w := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "\tmean\tp50\tp90\tp95\tp99\tmax\t")
	row := func(name string, l perf.Latency) {
		ms := func(p float64) string {
			for _, q := range l.Percentiles {
				if q.P == p {
					return fmt.Sprintf("%.3f", 1e3*q.Seconds)
				}
			}
			return "-"
		}
		fmt.Fprintf(w, "%s (ms)\t%.3f\t%s\t%s\t%s\t%s\t%.3f\t\n", name, 1e3*l.AvgSeconds, ms(50), ms(90), ms(95), ms(99), 1e3*l.MaxSeconds)
	}
	name := "publish request"
	if dr.Mode == perf.SubscribeConfiguration {
		name = "update request"
	}
	if a := r.Params.Await; a != nil && a.Timed {
		name += " and wait"
	}
	base := deliveryBaseline(r)
	if main := deliveryMain(r); main != nil && r.Params.HasExecutor() {
		if base != nil {
			row("baseline: "+name, base.Latency)
		}
		row(name, main.Latency)
	}
	if bd := dr.Baseline; bd != nil {
		row("baseline: delivery latency", bd.Latency)
	}
	row("delivery latency", dr.Latency)
	row("subscriber handler", dr.Handler)
	_ = w.Flush()
	fmt.Fprintf(b, "subscriber: %d delivery calls for %d messages\n", dr.HandlerCalls, dr.Received+dr.Duplicated)
	if bd := dr.Baseline; bd != nil {
		fmt.Fprintf(b, "baseline (the subscriber on the store's own notifications, no daprd): sent %d, received %d, LOST %d, duplicated %d, %d timed out; drain %.2f s (%s)\n",
			bd.Sent, bd.Received, bd.Lost, bd.Duplicated, bd.AwaitTimeouts, bd.DrainSeconds, map[bool]string{true: "all in", false: "window ended"}[bd.DrainComplete])
	}
	if o, ok := r.OverheadOf("mean"); ok {
		fmt.Fprintf(b, "sidecar overhead (main minus baseline, one run each, no interval): mean %+.3f ms", 1e3*o.MedianSeconds)
		for _, p := range []string{"p50", "p90", "p99"} {
			if o, ok := r.OverheadOf(p); ok {
				fmt.Fprintf(b, ", %s %+.3f ms", p, 1e3*o.MedianSeconds)
			}
		}
		b.WriteString("\n")
	}
}

// pace is how p's load went: "at <rate><unit> x <duration>", or its executor's VUs.
func pace(p perf.Params, unit string) string {
	if p.HasExecutor() {
		return fmt.Sprintf("by %s, up to %d VUs over %v", p.Executor.Kind, p.Executor.PeakVUs(), p.Executor.ScheduleDuration())
	}
	return fmt.Sprintf("at %d%s x %v", p.QPS, unit, p.Duration)
}

func orHTTP(p perf.Protocol) perf.Protocol {
	if p == "" {
		return perf.HTTP
	}
	return p
}

func orNone(s string) string {
	if s == "" {
		return "in-memory"
	}
	return s
}
