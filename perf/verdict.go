package perf

import (
	"fmt"
)

// Evaluate applies each threshold to figures (by Figure name). A missing figure fails its
// verdict, except for an IfMeasured bound, which gets no verdict (NotApplied names it).
func Evaluate(thresholds []Threshold, figures map[string]float64) []Verdict {
	out := make([]Verdict, 0, len(thresholds))
	for _, th := range thresholds {
		v := Verdict{Threshold: th}
		if th.notApplicable(figures) {
			continue
		}
		v.Got, v.Measured = figures[th.Figure]
		if v.Measured {
			switch th.Op {
			case AtMost:
				v.Pass = v.Got <= th.Limit
			case AtLeast:
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
func NotApplied(thresholds []Threshold, figures map[string]float64) []string {
	var out []string
	for _, th := range thresholds {
		if th.notApplicable(figures) {
			out = append(out, fmt.Sprintf("%s: this plan measures no %s; its bound (%s %s) does not apply", th.Source, th.Figure, th.Op, formatFigure(th.Figure, th.Limit)))
		}
	}
	return out
}
