package plan

import (
	"fmt"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/testers"
)

// runSetup sends each of sc.Setup through dep's tester, in order. A setup that cannot be
// routed, that the tester refuses, or that has any failed request (Result.Errors) or none at
// all is an error naming it, and the run stops before its first phase.
func runSetup(s perf.Session, dep perf.Deployment) error {
	if len(s.Scenario().Setup) == 0 {
		return nil
	}
	tester, err := testers.NewClient(dep, s.Scenario().Tester)
	if err != nil {
		return err
	}
	for _, su := range s.Scenario().Setup {
		p, err := su.SetupParams()
		if err != nil {
			return err
		}
		if p, err = routed(dep, s.Scenario(), su.Route, p); err != nil {
			return fmt.Errorf("setup %q: %w", su.Name, err)
		}
		start := time.Now()
		res, err := testers.RunLoad(s.T().Context(), tester, p)
		if err != nil {
			return fmt.Errorf("setup %q: %w", su.Name, err)
		}
		if res.Requests == 0 || res.Errors() > 0 {
			return fmt.Errorf("setup %q: %d of %d requests failed (codes %v)", su.Name, res.Errors(), res.Requests, res.RetCodes)
		}
		s.T().Logf("setup %s: %d requests (%s %s), all succeeded, in %v", su.Name, res.Requests, p.Operation.Kind, p.Operation.Key, time.Since(start).Round(time.Millisecond))
	}
	return nil
}
