package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// The steps several plans share: connect to the tester, run the discarded warmup, sum the
// resources of loads too short or sparse for a growth verdict, and record a plan that ended
// before all its loads.

// startTester returns the client of the scenario's tester in dep, watched by the progress
// lines (live QPS and errors). Errors: the tester's endpoint or token is unknown to dep.
func startTester(s perf.Session, dep perf.Deployment) (perf.TesterClient, error) {
	tester, err := perf.NewTesterClient(dep, s.Scenario().Tester)
	if err != nil {
		return perf.TesterClient{}, err
	}
	s.WatchTester(tester)
	return tester, nil
}

// runWarmup runs warm on tester as the progress phase "warmup (discarded)<what>" of about d
// (0: unknown), and returns its result, which no figure uses. Errors: the load failed, wrapped
// with "warmup: ".
func runWarmup(s perf.Session, tester perf.TesterClient, warm perf.Params, what string, d time.Duration) (perf.Result, error) {
	done := s.Phase("warmup (discarded)"+what, d)
	res, err := perf.RunLoad(s.T().Context(), tester, warm)
	done()
	if err != nil {
		return perf.Result{}, fmt.Errorf("warmup: %w", err)
	}
	return res, nil
}

// endLoads records the end of a plan of want loads in r: the load error runErr (nil for none)
// as an infrastructure error, and r as incomplete when fewer than want loads completed,
// "<done> of <want> <unit> completed[: <runErr>]".
func endLoads(r *perf.Report, want int, unit string, runErr error) {
	if runErr != nil {
		r.InfraErrors = append(r.InfraErrors, "load: "+runErr.Error())
	}
	if len(r.Loads) < want {
		r.Incomplete = true
		r.IncompleteReason = fmt.Sprintf("%d of %d %s completed", len(r.Loads), want, unit)
		if runErr != nil {
			r.IncompleteReason += ": " + runErr.Error()
		}
	}
}

// loadParams sets cfg's main and warmup Params from sc's options (NewParams, which applies
// Dapr's env overrides, and NewWarmupParams), passing each error to add.
func loadParams(sc perf.Scenario, cfg *perf.RunConfig, add func(error)) {
	var err error
	cfg.Main, err = perf.NewParams(sc.MainOptions...)
	add(err)
	cfg.Warmup, err = perf.NewWarmupParams(sc.WarmupOptions...)
	add(err)
}

// problems collects a run's configuration errors, so that one error names every bad field
// and variable at once (errors.Join of them).
type problems []error

// add keeps err when it is not nil.
func (ps *problems) add(err error) {
	if err != nil {
		*ps = append(*ps, err)
	}
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
