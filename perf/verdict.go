package perf

import (
	"fmt"
	"strconv"
	"strings"
)

// Op is how a figure is compared with its limit.
type Op string

// The comparisons: AtMost (<=) and AtLeast (>=), and the strict Below (<) and Above (>), each as
// the bound's source writes it (Dapr's require.Greater is Above, its LessOrEqual AtMost).
const (
	AtMost  Op = "at most"
	AtLeast Op = "at least"
	Below   Op = "below"
	Above   Op = "above"
)

// Upper reports whether op bounds a figure from above (AtMost, Below).
func (op Op) Upper() bool { return op == AtMost || op == Below }

// Threshold is one bound a run must keep.
type Threshold struct {
	// Figure names what is measured: "errors" (count, all measured phases), "restarts"
	// (unexpected exits and restarts, count), "qps.ratio" (lowest achieved/target QPS of the
	// main phases), "overhead.p90" (seconds; see Overhead.GateSeconds), likewise other
	// percentiles; the main phases' own "latency.p95", "latency.mean" (seconds), "requests",
	// "dropped" (counts) and "qps" (requests/s), k6's kind of gate (Figures.Gates).
	Figure string `json:"figure"`
	Op     Op     `json:"op"`
	// Limit is in the figure's unit: seconds, a count or a ratio.
	Limit float64 `json:"limit"`
	// Source says where the bound comes from, e.g. "Dapr v1.17 perf suite" or an env variable.
	Source string `json:"source"`
	// WarnOnly bounds are reported but do not fail the test (DAPR_PERF_OVERHEAD_GATE=warn).
	WarnOnly bool `json:"warnOnly,omitempty"`
	// IfMeasured marks a bound an env variable added to a scenario whose own bounds do not
	// include its figure: it applies where the plan measures the figure, and is dropped, with a
	// warning (report.NotApplied), where it does not (a closed loop or the jobs trigger plan has no
	// qps.ratio). A scenario's own bounds fail when their figure is missing.
	IfMeasured bool `json:"ifMeasured,omitempty"`
}

// Verdict is a Threshold applied to a run.
type Verdict struct {
	Threshold
	// Got is the measured figure, in the Limit's unit; Measured is false when the run did not
	// produce it (which fails the verdict).
	Got      float64 `json:"got"`
	Measured bool    `json:"measured"`
	Pass     bool    `json:"pass"`
	// Basis says which figure Got is when a figure has several, e.g. for an overhead "upper
	// bound of the 75 % range interval of 3 rounds" (Overhead.GateBasis).
	Basis string `json:"basis,omitempty"`
}

// String reads like "overhead.p90 = 1.480 ms, at most 2.000 ms (Dapr v1.17 perf suite): pass",
// with the basis after the figure when there is one: "= 1.480 ms (upper bound of ...)".
func (v Verdict) String() string {
	got := "not measured"
	if v.Measured {
		got = FormatFigure(v.Figure, v.Got)
		if v.Basis != "" {
			got += " (" + v.Basis + ")"
		}
	}
	word := "pass"
	switch {
	case !v.Pass && v.WarnOnly:
		word = "MISSED (warn only)"
	case !v.Pass:
		word = "FAIL"
	}
	return fmt.Sprintf("%s = %s, %s %s (%s): %s", v.Figure, got, v.Op, FormatFigure(v.Figure, v.Limit), v.Source, word)
}

func FormatFigure(figure string, x float64) string {
	switch {
	case strings.HasPrefix(figure, "overhead."), strings.HasPrefix(figure, "latency."), strings.HasPrefix(figure, "delivery.p"), strings.HasPrefix(figure, "actors.timerLag."), strings.HasSuffix(figure, ".mean"), strings.HasPrefix(figure, "reminders.lag."):
		return fmt.Sprintf("%.3f ms", x*1e3)
	case figure == "qps", figure == "reminders.triggerRate", figure == CurveHighestFigure:
		return fmt.Sprintf("%.2f/s", x)
	case figure == "qps.ratio":
		return fmt.Sprintf("%.4f", x)
	case figure == CurveSpreadFigure:
		return fmt.Sprintf("%.1f %%", 100*x)
	default:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
}

// Dapr's default bounds, from its perf suite (tests/perf/service_invocation_*): 0 errors,
// 0 restarts, achieved QPS > 0.99 x target (require.True(ActualQPS > QPS*0.99)), and
// 0 < p90 overhead <= 2 ms (HTTP) / 2.5 ms (gRPC) (require.Greater(p90, 0.0),
// require.LessOrEqual(p90, 2.0)).
const daprSuite = "Dapr v1.17 perf suite"

// DefaultThresholds are Dapr's bounds for a service-invocation scenario over transport.
func DefaultThresholds(transport Protocol) []Threshold {
	p90 := 0.002
	if transport == GRPC {
		p90 = 0.0025
	}
	return []Threshold{
		{Figure: "errors", Op: AtMost, Limit: 0, Source: daprSuite},
		{Figure: "restarts", Op: AtMost, Limit: 0, Source: daprSuite},
		{Figure: "qps.ratio", Op: Above, Limit: 0.99, Source: daprSuite},
		{Figure: "overhead.p90", Op: Above, Limit: 0, Source: daprSuite + ": the sidecars add time"},
		{Figure: "overhead.p90", Op: AtMost, Limit: p90, Source: daprSuite},
	}
}

// Env variables that override thresholds.
const (
	EnvMaxErrors    = "DAPR_PERF_MAX_ERRORS"    // a count, >= 0
	EnvMaxRestarts  = "DAPR_PERF_MAX_RESTARTS"  // a count, >= 0
	EnvMinQPSRatio  = "DAPR_PERF_MIN_QPS_RATIO" // a ratio in (0, 1]
	EnvOverheadGate = "DAPR_PERF_OVERHEAD_GATE" // "enforce" (default) or "warn"
	// EnvInvalidRetries: how many times an invalid run runs again at the same load (0 to 3).
	EnvInvalidRetries = "DAPR_PERF_INVALID_RETRIES"
	// EnvMaxOverheadPrefix + P50, P75, P90, P99 or P999: a Go duration such as 2ms.
	EnvMaxOverheadPrefix = "DAPR_PERF_MAX_OVERHEAD_"
)

// MaxOverheadEnv is the variable that bounds the overhead at percentile p:
// DAPR_PERF_MAX_OVERHEAD_P90 for 90, _P999 for 99.9.
func MaxOverheadEnv(p float64) string {
	return EnvMaxOverheadPrefix + strings.ToUpper(strings.ReplaceAll(PercentileName(p), ".", ""))
}

// NotApplicable reports whether th is an IfMeasured bound whose figure the plan did not measure.
func (th Threshold) NotApplicable(figures map[string]float64) bool {
	_, measured := figures[th.Figure]
	return th.IfMeasured && !measured
}
