package report

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/stats"
)

// CurveIntervalConfidence is the confidence asked of the interval of a point's CPU per request
// over its rounds (stats.MedianIntervalAt; with fewer than 6 rounds it is their range, of
// lower confidence, which the point states).
const CurveIntervalConfidence = 0.95

// CurveKeeps says whether a load of a curve run kept bound: no error, at least
// bound.KeptRatio of its offered rate (Result.KeptQPSRatio), and a response-time p99 (service
// time when the load has none) of at most bound.P99Seconds; why names what it missed.
func CurveKeeps(res *perf.Result, bound perf.CurveBound) (pass bool, why string) {
	var missed []string
	if n := res.Errors(); n > 0 {
		missed = append(missed, fmt.Sprintf("%d errors", n))
	}
	if k := res.KeptQPSRatio(); k < bound.KeptRatio {
		missed = append(missed, fmt.Sprintf("%.1f %% of the rate kept, under %.0f %%", 100*k, 100*bound.KeptRatio))
	}
	if p99, what := curveP99(res); p99 > bound.P99Seconds {
		missed = append(missed, fmt.Sprintf("%s p99 %.2f ms, above %.2f ms", what, 1e3*p99, 1e3*bound.P99Seconds))
	}
	return len(missed) == 0, strings.Join(missed, "; ")
}

// curveP99 is the load's response-time p99, or its service-time p99 when it has no response
// time, in seconds, and which it is.
func curveP99(res *perf.Result) (float64, string) {
	if d, err := res.ResponsePercentile(99); err == nil {
		return d.Seconds(), "response-time"
	}
	d, _ := res.Percentile(99)
	return d.Seconds(), "service-time"
}

// CurveProbeOf reads a load of a curve run into a CurveProbe: its rates, latencies, errors and
// whether it kept bound (CurveKeeps). The processes' CPU is the plan's to add.
func CurveProbeOf(name string, qps int, res *perf.Result, bound perf.CurveBound) perf.CurveProbe {
	q := func(p float64) float64 {
		d, _ := res.Percentile(p)
		return d.Seconds()
	}
	rp99, _ := curveP99(res)
	pr := perf.CurveProbe{Load: name, OfferedQPS: qps, AchievedQPS: res.ActualQPS, KeptRatio: res.KeptQPSRatio(),
		P50: q(50), P90: q(90), P99: q(99), ResponseP99: rp99, Errors: res.Errors()}
	pr.Pass, pr.Why = CurveKeeps(res, bound)
	return pr
}

// CurvePoint is one offered rate of a curve, summarised over its rounds: medians, the errors
// of all rounds, how many rounds kept the bound, and each process's CPU per request.
type CurvePoint struct {
	OfferedQPS  int
	Rounds      int
	Passed      int
	AchievedQPS float64
	// P50, P90, P99 (service time) and ResponseP99 are the medians over the rounds, seconds.
	P50, P90, P99, ResponseP99 float64
	Errors                     int64
	CPU                        []CPUPerRequest
}

// CPUPerRequest is one process's CPU per request at one rate: in each round its mean cores
// over the round's achieved rate (core-seconds per request, as ProcessCosts), their median and
// its interval (stats.MedianIntervalAt at CurveIntervalConfidence, Confidence the actual one).
type CPUPerRequest struct {
	Process, Role      string
	Seconds, Low, High float64
	Confidence         float64
	Rounds             int
	// PeakRSSBytes is the process's highest RSS over the rate's rounds, bytes.
	PeakRSSBytes uint64
}

// Micros is Seconds in microseconds of one core per request.
func (c CPUPerRequest) Micros() float64 { return 1e6 * c.Seconds }

// CurvePoints summarises each point of r's curve (nil when r has none).
func CurvePoints(r *perf.Report) []CurvePoint {
	if r.Curve == nil {
		return nil
	}
	var out []CurvePoint
	for _, pt := range r.Curve.Points {
		if len(pt.Rounds) == 0 {
			continue
		}
		cp := CurvePoint{OfferedQPS: pt.OfferedQPS, Rounds: len(pt.Rounds)}
		var ach, p50, p90, p99, rp99 []float64
		cpu := map[string][]float64{}
		rss := map[string]uint64{}
		var procs []perf.ProcessUse
		for _, rd := range pt.Rounds {
			ach, p50, p90, p99, rp99 = append(ach, rd.AchievedQPS), append(p50, rd.P50), append(p90, rd.P90), append(p99, rd.P99), append(rp99, rd.ResponseP99)
			cp.Errors += rd.Errors
			if rd.Pass {
				cp.Passed++
			}
			for _, c := range rd.CPU {
				if rd.AchievedQPS > 0 {
					if _, seen := cpu[c.Process]; !seen {
						procs = append(procs, c)
					}
					cpu[c.Process] = append(cpu[c.Process], c.Cores/rd.AchievedQPS)
					rss[c.Process] = max(rss[c.Process], c.PeakRSSBytes)
				}
			}
		}
		cp.AchievedQPS, cp.P50, cp.P90, cp.P99, cp.ResponseP99 = stats.Median(ach), stats.Median(p50), stats.Median(p90), stats.Median(p99), stats.Median(rp99)
		for _, pc := range procs {
			iv := stats.MedianIntervalAt(cpu[pc.Process], CurveIntervalConfidence)
			cp.CPU = append(cp.CPU, CPUPerRequest{Process: pc.Process, Role: pc.Role, Seconds: iv.Median, Low: iv.Low, High: iv.High, Confidence: iv.Confidence, Rounds: len(cpu[pc.Process]), PeakRSSBytes: rss[pc.Process]})
		}
		slices.SortFunc(cp.CPU, func(a, b CPUPerRequest) int { return strings.Compare(a.Role+a.Process, b.Role+b.Process) })
		out = append(out, cp)
	}
	return out
}

// CurveHighest is the searches' highest rates that kept the bound, their median, and their
// spread, (max − min) / median; ok is false with no search or a median of 0.
func CurveHighest(c *perf.CurveReport) (rates []int, median, spread float64, ok bool) {
	if c == nil || len(c.Searches) == 0 {
		return nil, 0, 0, false
	}
	var xs []float64
	for _, s := range c.Searches {
		rates = append(rates, s.HighestQPS)
		xs = append(xs, float64(s.HighestQPS))
	}
	median = stats.Median(xs)
	if median <= 0 {
		return rates, 0, 0, false
	}
	return rates, median, (slices.Max(xs) - slices.Min(xs)) / median, true
}

// CurveInvalid are the reasons a curve run measured nothing to read: no curve, no rate that
// kept the bound, or (with searches planned) a search that found no rate. nil when valid.
func CurveInvalid(c *perf.CurveReport, searches int) []string {
	if c == nil || len(c.Points) == 0 {
		return []string{"curve: no rate was measured"}
	}
	var out []string
	passed := false
	for _, pt := range c.Points {
		for _, rd := range pt.Rounds {
			passed = passed || rd.Pass
		}
	}
	if !passed {
		out = append(out, fmt.Sprintf("curve: no load kept the bound, the lowest rate (%d requests/s) included", c.Points[0].OfferedQPS))
	}
	if len(c.Searches) < searches {
		out = append(out, fmt.Sprintf("curve: %d of %d searches ran", len(c.Searches), searches))
	}
	for i, s := range c.Searches {
		if s.HighestQPS == 0 {
			out = append(out, fmt.Sprintf("curve: search %d found no rate that kept the bound: %s", i+1, s.Reason))
		}
	}
	return out
}

// curveKind: the cost curve (CurvePlan).
type curveKind struct{ kindBase }

func (curveKind) Name() string { return perf.KindCurve }

func (curveKind) LoadsCharted() bool { return false }

func (curveKind) Headline(r *perf.Report, _ *perf.Figures) string { return curveHeadline(r) }

func (curveKind) Header(r *perf.Report) string {
	n := 0
	if r.Curve != nil {
		n = len(r.Curve.Points)
	}
	return fmt.Sprintf("curve plan: %d rate(s), %d connections, loads of %v", n, r.Params.Connections, r.Params.Duration)
}

func (curveKind) Figures(r *perf.Report, f *perf.Figures) {
	f.NoOverhead = "the curve plan runs no baseline phase: it measures the latency through both sidecars and each sidecar's CPU per request against the offered rate"
	if _, median, spread, ok := CurveHighest(r.Curve); ok {
		f.Gates[perf.CurveHighestFigure] = median
		f.Gates[perf.CurveSpreadFigure] = spread
	}
}

func (curveKind) Missing(r *perf.Report) []string {
	if r.Curve == nil || len(r.Curve.Points) == 0 {
		return []string{"no curve point"}
	}
	return nil
}

// Table writes a line per rate (achieved rate, rounds that kept the bound, latency medians and
// each sidecar's CPU per request with its interval), then the searches.
func (curveKind) Table(b *strings.Builder, r *perf.Report, _ *perf.Figures) {
	if r.Curve == nil {
		return
	}
	c := r.Curve
	fmt.Fprintf(b, "bound: response-time p99 at most %.2f ms, no error, at least %.0f %% of the rate kept (%s)\n", 1e3*c.Bound.P99Seconds, 100*c.Bound.KeptRatio, c.Bound.Source)
	w := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "offered QPS\tQPS\tkept bound\tp50 (ms)\tp90 (ms)\tp99 (ms)\tresp p99 (ms)\terrors\tCPU per request (µs of one core [interval]), peak RSS\t")
	for _, pt := range CurvePoints(r) {
		var cpus []string
		for _, cp := range pt.CPU {
			cpus = append(cpus, fmt.Sprintf("%s %.0f [%.0f, %.0f] %.1f MiB", cp.Role, cp.Micros(), 1e6*cp.Low, 1e6*cp.High, float64(cp.PeakRSSBytes)/(1<<20)))
		}
		fmt.Fprintf(w, "%d\t%.1f\t%d of %d\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%s\t\n", pt.OfferedQPS, pt.AchievedQPS, pt.Passed, pt.Rounds,
			1e3*pt.P50, 1e3*pt.P90, 1e3*pt.P99, 1e3*pt.ResponseP99, pt.Errors, strings.Join(cpus, ", "))
	}
	_ = w.Flush()
	if c.Stopped != "" {
		fmt.Fprintf(b, "stopped: %s\n", c.Stopped)
	}
	if rates, median, spread, ok := CurveHighest(c); ok {
		fmt.Fprintf(b, "highest rate within the bound: %.0f requests/s, the median of %d searches %v (spread %.1f %%); search: %s\n", median, len(rates), rates, 100*spread, c.Search)
	}
	if d, ok := CurveMachineDrift(c); ok {
		fmt.Fprintf(b, "machine drift between the searches: %s\n", d)
	}
	for i, s := range c.Searches {
		var steps []string
		for _, st := range s.Steps {
			word := "pass"
			if !st.Pass {
				word = "fail"
			}
			steps = append(steps, fmt.Sprintf("%d %s", st.OfferedQPS, word))
		}
		fmt.Fprintf(b, "search %d: %s; %s\n", i+1, strings.Join(steps, ", "), s.Reason)
	}
}
