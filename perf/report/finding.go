package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/growth"
)

// Finding is one sentence of what a run found, built from its figures for the line under a
// page's banner: the kind's own headline (Kind.Headline: the gated overhead with its interval,
// a growing sidecar and how many times the threshold its slope is, the highest rate within a
// curve's bound), then each bound missed with how far (got / limit for an upper bound, limit /
// got for a lower one), then the callee sidecar's CPU per request when the run has it. "" when
// the run has none of these.
func Finding(r *perf.Report) string {
	f := DeriveFigures(r)
	var parts []string
	if h := KindOf(r).Headline(r, &f); h != "" {
		parts = append(parts, h)
	}
	for _, v := range r.Verdicts {
		if v.Pass || !v.Measured {
			continue
		}
		m := v.String()
		if ratio, ok := missRatio(v); ok {
			m = fmt.Sprintf("%s = %s, %.2f× its bound %s %s", v.Figure, perf.FormatFigure(v.Figure, v.Got), ratio, v.Op, perf.FormatFigure(v.Figure, v.Limit))
			if v.WarnOnly {
				m += " (warn only)"
			}
		}
		parts = append(parts, "missed: "+m)
	}
	busiest := -1 // of several callee sidecars (actor hosts), the one that took the load
	for i, c := range f.Cost {
		if c.Role == perf.RoleCalleeSidecar && (busiest < 0 || c.CPUSecondsPerRequest > f.Cost[busiest].CPUSecondsPerRequest) {
			busiest = i
		}
	}
	if busiest >= 0 {
		parts = append(parts, fmt.Sprintf("callee sidecar %.0f µs CPU per request", f.Cost[busiest].CPUMicrosPerRequest()))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "."
}

// missRatio is how far v missed its bound, as a factor above 1: got / limit for an upper bound,
// limit / got for a lower one; false when a figure or limit of 0 (or a sign change) gives none.
func missRatio(v perf.Verdict) (float64, bool) {
	num, den := v.Got, v.Limit
	if !v.Op.Upper() {
		num, den = v.Limit, v.Got
	}
	if !(num > 0 && den > 0) {
		return 0, false
	}
	return num / den, true
}

// overheadHeadline: the gated overhead percentile (p90 when gated, else the first gated one),
// its median with its interval and what it is measured against.
func overheadHeadline(r *perf.Report) string {
	figure := "p90"
	for _, t := range r.Verdicts {
		if name, ok := strings.CutPrefix(t.Figure, "overhead."); ok {
			figure = name
			break
		}
	}
	i := slices.IndexFunc(r.Overhead, func(o perf.Overhead) bool { return o.Figure == figure })
	if i < 0 {
		return ""
	}
	o := r.Overhead[i]
	s := fmt.Sprintf("overhead %s %+.2f ms", o.Figure, 1e3*o.MedianSeconds)
	if o.HasInterval {
		s += fmt.Sprintf(" [%+.2f, %+.2f] over %d rounds", 1e3*o.LowSeconds, 1e3*o.HighSeconds, len(o.PerRoundSeconds))
	}
	return s
}

// growthHeadline: each growing sidecar with its slope as a multiple of the threshold, or that
// every sidecar stayed flat.
func growthHeadline(r *perf.Report) string {
	if r.Growth == nil {
		return ""
	}
	var growing []string
	n := 0
	for _, v := range r.Growth.Variants {
		for _, s := range v.Sidecars {
			n++
			c := s.Growth
			if c.Verdict != growth.Growing {
				continue
			}
			x := ""
			if c.ThresholdKiBPer1000 > 0 {
				x = fmt.Sprintf(", %.1f× the threshold", c.SlopeKiBPer1000/c.ThresholdKiBPer1000)
			}
			growing = append(growing, fmt.Sprintf("%s's %s grows %.2f MiB per 1,000 requests%s", v.Name, s.Role, c.SlopeKiBPer1000/1024, x))
		}
	}
	if len(growing) == 0 {
		return fmt.Sprintf("no sidecar's memory grows (%d read)", n)
	}
	return strings.Join(growing, "; ")
}

// curveHeadline: the highest rate within the bound and how far the searches agree.
func curveHeadline(r *perf.Report) string {
	rates, median, spread, ok := CurveHighest(r.Curve)
	if !ok {
		return ""
	}
	out := fmt.Sprintf("highest rate within the bound (response-time p99 at most %.0f ms) %.0f requests/s, %d searches %.1f %% apart",
		1e3*r.Curve.Bound.P99Seconds, median, len(rates), 100*math.Abs(spread))
	if d, ok := CurveMachineDrift(r.Curve); ok && d.Change >= machineDriftAlarm {
		out += "; the machine's speed moved under them: " + d.String()
	}
	return out
}

// deliveryHeadline: what was received of what was sent, lost and duplicated, and the delivery
// latency at p50 and p99.
func deliveryHeadline(r *perf.Report) string {
	d := r.Delivery
	if d == nil {
		return ""
	}
	s := fmt.Sprintf("%d of %d messages received, %d lost, %d duplicated", d.Received, d.Sent, d.Lost, d.Duplicated)
	if d.Mode == perf.SubscribeConfiguration {
		s = fmt.Sprintf("%d of %d updates told, %d lost, %d told twice", d.Received, d.Sent, d.Lost, d.Duplicated)
	}
	p50, err50 := d.Latency.Percentile(50)
	p99, err99 := d.Latency.Percentile(99)
	if err50 == nil && err99 == nil {
		s += fmt.Sprintf("; delivery p50 %s, p99 %s", humanSeconds(p50.Seconds()), humanSeconds(p99.Seconds()))
	}
	return s
}

// jobsHeadline: jobs fired of those scheduled, never or twice, and the trigger lag at p50.
func jobsHeadline(r *perf.Report) string {
	j := r.Jobs
	if j == nil {
		return ""
	}
	s := fmt.Sprintf("%d of %d jobs fired, %d never, %d twice", j.Fired, j.Scheduled, j.NeverFired, j.FiredTwice)
	if lag, ok := j.Lag["p50"]; ok {
		s += fmt.Sprintf("; trigger lag p50 %s", humanSeconds(lag))
	}
	return s
}

// remindersHeadline: fires that came of those expected, and their rate.
func remindersHeadline(r *perf.Report) string {
	m := r.Reminders
	if m == nil { // Dapr's registration test alone: its load is the finding
		return loadsHeadline(r)
	}
	if m.ExpectedFires == 0 {
		return fmt.Sprintf("%d reminders registered in %.1f s", m.Registered, m.RegisteredSeconds)
	}
	return fmt.Sprintf("%d of %d fires came, %d missing, %.0f fires/s", m.Fires, m.ExpectedFires, m.Missing, m.TriggerRate)
}

// loadsHeadline: the slowest of a run's named loads at p90 and its achieved rate (stages,
// iterations, faults).
func loadsHeadline(r *perf.Report) string {
	worst := -1
	var worstP90 float64
	for i := range r.Loads {
		if d, err := r.Loads[i].Percentile(90); err == nil && r.Loads[i].Requests > 0 && d.Seconds() > worstP90 {
			worst, worstP90 = i, d.Seconds()
		}
	}
	if worst < 0 {
		return ""
	}
	l := &r.Loads[worst]
	what, _ := KindOf(r).LatencyWhat()
	return fmt.Sprintf("slowest %s %s: %s p90 %s at %.1f%s", KindOf(r).LoadWord(), l.Name, what, humanSeconds(worstP90), l.ActualQPS, KindOf(r).Rate().Short)
}

// faultsHeadline: the double activations and errors under the faults injected, then the
// slowest load.
func faultsHeadline(r *perf.Report, f *perf.Figures) string {
	s := loadsHeadline(r)
	if d, ok := f.Gates["actors.doubleActivations"]; ok {
		s = fmt.Sprintf("%.0f double activations beside %.0f injected faults; %s", d, f.Gates["errors.injected"], s)
	}
	return s
}

// humanSeconds writes seconds in µs, ms or s, whichever keeps 1 to 3 digits before the point.
func humanSeconds(s float64) string {
	switch a := math.Abs(s); {
	case a < 1e-3:
		return fmt.Sprintf("%.0f µs", 1e6*s)
	case a < 1:
		return fmt.Sprintf("%.2f ms", 1e3*s)
	default:
		return fmt.Sprintf("%.2f s", s)
	}
}
