package runner

import (
	"fmt"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// The steps several plans share: connect to the tester, run the discarded warmup, sum the
// resources of loads too short or sparse for a growth verdict, and record a plan that ended
// before all its loads.

// startTester returns the client of the scenario's tester in dep, watched by the progress
// lines (live QPS and errors). Errors: the tester's endpoint or token is unknown to dep.
func (s *session) startTester(dep perf.Deployment) (perf.TesterClient, error) {
	tester, err := perf.NewTesterClient(dep, s.sc.Tester)
	if err != nil {
		return perf.TesterClient{}, err
	}
	s.prog.watchTester(tester)
	return tester, nil
}

// runWarmup runs warm on tester as the progress phase "warmup (discarded)<what>" of about d
// (0: unknown), and returns its result, which no figure uses. Errors: the load failed, wrapped
// with "warmup: ".
func (s *session) runWarmup(tester perf.TesterClient, warm perf.Params, what string, d time.Duration) (perf.Result, error) {
	done := s.prog.phase("warmup (discarded)"+what, d)
	res, err := perf.RunLoad(s.t.Context(), tester, warm)
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
