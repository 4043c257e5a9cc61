package report

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/daprperf/daprperf/perf"
)

// deriveFaultFigures fills in f for a fault plan's report.
func deriveFaultFigures(r *perf.Report, f *perf.Figures) {
	f.NoOverhead = "the fault plan runs no baseline phase (Dapr's actor_double_activation has none): it gates on errors outside the injected ones and on double activations"
	for i := range r.Loads {
		l := &r.Loads[i]
		f.Phases = append(f.Phases, derivePhaseFigures(l.Name, []perf.Round{{Main: l.Result}}, func(rd *perf.Round) *perf.Result { return &rd.Main }))
	}
	faultGates(f.Gates, r.Loads, r.Actors)
}

// faultGates derives a fault plan's gate figures from its loads and its hosts' counters into
// gates: "errors", "errors.500", "errors.injected", "errors.other", "faults.calls" (counts) and
// "<phase>.p95", "<phase>.mean" (service time, seconds). errors.other = the errors that are not
// HTTP 500 + max(0, the 500s - the injected 500s): a 500 the hosts did not inject, or a 500
// beyond their count, is not excused. When daprd does not relay every injected 500 (it retries,
// or the caller went away), up to that many foreign 500s could hide in the difference; the
// summary gives both counts.
func faultGates(gates map[string]float64, loads []perf.NamedLoad, hosts []perf.ActorStats) {
	var errs, e500 int64
	for i := range loads {
		l := &loads[i]
		errs += l.Errors()
		e500 += l.RetCodes["500"]
		if v, err := l.Percentile(95); err == nil {
			gates[l.Name+".p95"] = v.Seconds()
		}
		gates[l.Name+".mean"] = l.Latency.AvgSeconds
	}
	var injected, calls int64
	for _, h := range hosts {
		if h.Faults != nil {
			injected += h.Faults.Failed
			calls += h.Faults.Calls
		}
	}
	gates["errors"] = float64(errs)
	gates["errors.500"] = float64(e500)
	gates["errors.injected"] = float64(injected)
	gates["errors.other"] = float64(errs - e500 + max(0, e500-injected))
	gates["faults.calls"] = float64(calls)
}

// faultTable writes one line per phase (peak VUs, requests, QPS, errors, 500s, the iterations
// interrupted at the graceful stop, p50/p95/p99 and max service time in ms) and the fault
// window's counts. An interrupted iteration is in no other column (k6 drops them the same way),
// so the table shows it.
func faultTable(b *strings.Builder, r *perf.Report, figures *perf.Figures) {
	w := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "phase\tpeak VUs\trequests\tQPS\terrors\t500s\tinterrupted\tp50 (ms)\tp95 (ms)\tp99 (ms)\tmax (ms)\t")
	for i := range r.Loads {
		l := &r.Loads[i]
		q := func(p float64) string {
			if v, err := l.Percentile(p); err == nil {
				return fmt.Sprintf("%.1f", float64(v)/1e6)
			}
			return "-"
		}
		var vus int
		var interrupted int64
		if l.Executor != nil {
			vus, interrupted = l.Executor.MaxActiveVUs, l.Executor.Interrupted
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%.1f\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", l.Name, vus, l.Requests, l.ActualQPS, l.Errors(), l.RetCodes["500"], interrupted, q(50), q(95), q(99), fmt.Sprintf("%.1f", float64(l.Max())/1e6))
	}
	_ = w.Flush()
	if fr := r.Faults; fr != nil {
		g := figures.Gates
		fmt.Fprintf(b, "faults: %v delay, %.0f %% 500s for %v, %s; %.0f calls in the window, %.0f 500s injected, %.0f 500s at the client, %.0f errors other than injected 500s\n",
			fr.Delay, 100*fr.FailFraction, fr.Window, fr.Note, g["faults.calls"], g["errors.injected"], g["errors.500"], g["errors.other"])
	}
}
