package plan

import (
	"context"
	"testing"

	"github.com/daprperf/daprperf/perf"
)

// planOf is sc's plan, or the overhead plan when it names none (as these tests' scenarios do;
// the runner refuses a nil Plan).
func planOf(sc perf.Scenario) perf.Plan {
	if sc.Plan == nil {
		return OverheadPlan{}
	}
	return sc.Plan
}

// testPlatform is a Platform that only has a name: for a plan's configuration, which may
// depend on the platform.
type testPlatform string

func (p testPlatform) Name() string                                                 { return string(p) }
func (testPlatform) Start(context.Context, testing.TB, ...perf.App) perf.Deployment { return nil }
