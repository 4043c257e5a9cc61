package report

import (
	"fmt"

	"github.com/daprperf/daprperf/perf"
)

// Evaluate applies each threshold to figures (by Figure name). A missing figure fails its
// verdict, except for an IfMeasured bound, which gets no verdict (NotApplied names it).
func Evaluate(thresholds []perf.Threshold, figures map[string]float64) []perf.Verdict {
	out := make([]perf.Verdict, 0, len(thresholds))
	for _, th := range thresholds {
		v := perf.Verdict{Threshold: th}
		if th.NotApplicable(figures) {
			continue
		}
		v.Got, v.Measured = figures[th.Figure]
		if v.Measured {
			switch th.Op {
			case perf.AtMost:
				v.Pass = v.Got <= th.Limit
			case perf.AtLeast:
				v.Pass = v.Got >= th.Limit
			}
		}
		out = append(out, v)
	}
	return out
}

// NotApplied says, one line each, which IfMeasured bounds Evaluate dropped from figures because
// the plan does not measure their figure: "DAPR_PERF_MIN_QPS_RATIO: this plan measures no
// qps.ratio; its bound (at least 0.9700) does not apply".
func NotApplied(thresholds []perf.Threshold, figures map[string]float64) []string {
	var out []string
	for _, th := range thresholds {
		if th.NotApplicable(figures) {
			out = append(out, fmt.Sprintf("%s: this plan measures no %s; its bound (%s %s) does not apply", th.Source, th.Figure, th.Op, perf.FormatFigure(th.Figure, th.Limit)))
		}
	}
	return out
}
