package report

import (
	"fmt"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

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
