package report

import (
	"fmt"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/daprperf/daprperf/perf"
)

// deriveStageFigures fills in f for a stage plan's report: one phase per stage (named as the
// stage), its mean as the gate StageMeanFigure, "errors" over every stage and "qps.ratio" the
// lowest stage's.
func deriveStageFigures(r *perf.Report, f *perf.Figures) {
	f.NoOverhead = "the stage plan runs no baseline phase (Dapr's k6 stage tests have none): each stage is gated on its own mean"
	var errs int64
	minRatio := math.Inf(1)
	for i := range r.Loads {
		l := &r.Loads[i]
		f.Phases = append(f.Phases, derivePhaseFigures(l.Name, []perf.Round{{Main: l.Result}}, func(rd *perf.Round) *perf.Result { return &rd.Main }))
		f.Gates[perf.StageMeanFigure(l.Name)] = l.Latency.AvgSeconds
		errs += l.Errors()
		minRatio = min(minRatio, l.QPSRatio())
	}
	f.Gates["errors"] = float64(errs)
	if !math.IsInf(minRatio, 1) {
		f.Gates["qps.ratio"] = minRatio
	}
}

// stageTable writes one line per stage: target and achieved QPS, requests, errors, mean and
// p50/p90/p99 service time and the p99 response time, in ms.
func stageTable(b *strings.Builder, r *perf.Report, figures *perf.Figures) {
	w := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "stage\tpayload (B)\tconns\ttarget QPS\tQPS\trequests\terrors\tmean (ms)\tp50 (ms)\tp90 (ms)\tp99 (ms)\tresp p99 (ms)\t")
	for i := range r.Loads {
		l := &r.Loads[i]
		ph := figures.Phase(l.Name)
		if ph == nil {
			continue
		}
		q := func(p float64, resp bool) string {
			if v, ok := ph.Quantile(p, resp); ok {
				return fmt.Sprintf("%.3f", 1e3*v)
			}
			return "-"
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%.0f\t%.1f\t%d\t%d\t%.3f\t%s\t%s\t%s\t%s\t\n", l.Name, l.Params.PayloadBytes, l.Params.Connections, ph.TargetQPS, ph.QPS,
			ph.Requests, ph.Errors, 1e3*ph.MeanSeconds, q(50, false), q(90, false), q(99, false), q(99, true))
	}
	_ = w.Flush()
}
