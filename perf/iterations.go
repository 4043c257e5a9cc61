package perf

import (
	"fmt"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf/secondsjson"
)

// IterationRun is one load of an IterationsPlan: k6's shared-iterations executor, VUs virtual
// users sharing Iterations iterations, for at most MaxDuration (k6's maxDuration). It mirrors
// one scenario of Dapr's workflow k6 script (t_30_300: 30 VUs, 300 iterations, 200 s).
type IterationRun struct {
	// Name names the run in the result, the summary and as a subtest when it starts a
	// deployment (Fresh): lowercase letters, digits, '-' and '_', such as "t_30_300-1".
	Name string `json:"name"`
	// VUs are the virtual users, 1 to driver.MaxVUsLimit.
	VUs int `json:"vus"`
	// Iterations are the iterations the VUs share, 1 to driver.MaxIterations.
	Iterations int64 `json:"iterations"`
	// MaxDuration bounds the run (k6's maxDuration); iterations not started by then are
	// dropped (and gated on). Above 0 and at most 12 h.
	MaxDuration time.Duration `json:"maxDuration"`
	// Fresh starts this run on a deployment of its own, the previous one stopped first: Dapr's
	// app restart between subtests (restart = true in dapr/dapr tests/perf/workflows), here a
	// restart of every process, the store and the control plane included. The first run always
	// has a fresh deployment.
	Fresh bool `json:"fresh,omitempty"`
}

// IterationsUnfinishedFigure is the gate figure of the iterations planned but not completed,
// over all runs of an iterations plan.
const IterationsUnfinishedFigure = "iterations.unfinished"

// IterationsPercentiles are the service-time percentiles the iterations plan reports per run
// (Dapr's workflow report gives p50, p90 and p95; p99 is ours).
var IterationsPercentiles = []float64{50, 90, 95, 99}

// RunFigureRate and RunFigurePercentile name a run's figures in Figures.Gates: its rate,
// iterations/s ("run.t_30_300-1.rate"), and a service-time percentile in seconds
// ("run.t_30_300-1.p95").
func RunFigureRate(name string) string { return "run." + name + ".rate" }

// RunFigurePercentile names a run's service-time percentile p in Figures.Gates: see RunFigureRate.
func RunFigurePercentile(name string, p float64) string {
	return fmt.Sprintf("run.%s.p%s", name, strings.ReplaceAll(fmt.Sprintf("%g", p), ".", "_"))
}

// MarshalJSON writes IterationRun with its durations in seconds, under their names with "Seconds"
// after them (package secondsjson).
func (i IterationRun) MarshalJSON() ([]byte, error) {
	type plain IterationRun
	return secondsjson.Marshal(plain(i))
}

// UnmarshalJSON reads IterationRun's durations in seconds, or in nanoseconds under their bare names
// (result files of schema 1).
func (i *IterationRun) UnmarshalJSON(b []byte) error {
	type plain IterationRun
	return secondsjson.Unmarshal(b, (*plain)(i))
}
