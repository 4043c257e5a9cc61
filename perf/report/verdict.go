package report

import (
	"fmt"
	"strings"

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
			case perf.Below:
				v.Pass = v.Got < th.Limit
			case perf.Above:
				v.Pass = v.Got > th.Limit
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

// MissedWarnOnly are r's verdicts that missed a warn-only bound: reported, but not failing the
// run (perf.Threshold.WarnOnly).
func MissedWarnOnly(r *perf.Report) []perf.Verdict {
	var out []perf.Verdict
	for _, v := range r.Verdicts {
		if !v.Pass && v.WarnOnly {
			out = append(out, v)
		}
	}
	return out
}

// Headline is a run's result as the summary's last line and the charts' banner state it, so
// that a pass never hides a missed bound: "FAIL" when r did not pass; "PASS" when it missed no
// bound; and when it passed but missed warn-only bounds, their count: "PASS, 1 of Dapr's bounds
// missed (warn only)", "PASS, 2 of Dapr's bounds missed (warn only)", or "PASS, 1 bound missed
// (warn only)" when one of them is not Dapr's (its Source does not start with "Dapr ").
func Headline(r *perf.Report) string {
	if !r.Pass {
		return "FAIL"
	}
	missed := MissedWarnOnly(r)
	if len(missed) == 0 {
		return "PASS"
	}
	dapr := true
	for _, v := range missed {
		dapr = dapr && strings.HasPrefix(v.Source, "Dapr ")
	}
	switch {
	case dapr:
		return fmt.Sprintf("PASS, %d of Dapr's bounds missed (warn only)", len(missed))
	case len(missed) == 1:
		return "PASS, 1 bound missed (warn only)"
	}
	return fmt.Sprintf("PASS, %d bounds missed (warn only)", len(missed))
}
