package report

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/daprperf/daprperf/perf"
)

// deriveIterationsFigures fills in f for an iterations plan's report: one phase per run, its
// rate and percentiles as figures, "errors" and IterationsUnfinishedFigure over every run.
func deriveIterationsFigures(r *perf.Report, f *perf.Figures) {
	f.NoOverhead = "the iterations plan runs no baseline phase (Dapr's k6 workflow tests have none): each iteration's whole duration is the figure"
	var errs, unfinished int64
	for i := range r.Loads {
		l := &r.Loads[i]
		f.Phases = append(f.Phases, derivePhaseFigures(l.Name, []perf.Round{{Main: l.Result}}, func(rd *perf.Round) *perf.Result { return &rd.Main }))
		f.Gates[perf.RunFigureRate(l.Name)] = l.ActualQPS
		for _, p := range perf.IterationsPercentiles {
			if v, err := l.Percentile(p); err == nil {
				f.Gates[perf.RunFigurePercentile(l.Name, p)] = v.Seconds()
			}
		}
		errs += l.Errors()
		if l.Executor != nil {
			unfinished += max(l.Executor.Scheduled-l.Requests, 0)
		}
	}
	f.Gates["errors"] = float64(errs)
	f.Gates[perf.IterationsUnfinishedFigure] = float64(unfinished)
}

// iterationsTable writes one line per run: VUs, iterations done of planned, failed, elapsed,
// rate, and p50/p90/p95/p99 of one iteration's duration in ms.
func iterationsTable(b *strings.Builder, r *perf.Report) {
	w := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "run\tVUs\titerations\tplanned\tfailed\telapsed (s)\trate (/s)\tp50 (ms)\tp90 (ms)\tp95 (ms)\tp99 (ms)\t")
	for i := range r.Loads {
		l := &r.Loads[i]
		var vus int
		var planned int64
		if l.Executor != nil {
			vus, planned = l.Executor.MaxVUs, l.Executor.Scheduled
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t", l.Name, vus, l.Requests, planned, l.Errors(), l.ActualDuration.Seconds(), l.ActualQPS)
		for _, p := range perf.IterationsPercentiles {
			v, err := l.Percentile(p)
			if err != nil {
				fmt.Fprint(w, "-\t")
				continue
			}
			fmt.Fprintf(w, "%.1f\t", 1e3*v.Seconds())
		}
		fmt.Fprintln(w)
	}
	_ = w.Flush()
}
