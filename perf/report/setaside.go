package report

import (
	"fmt"

	"github.com/daprperf/daprperf/perf"
)

// SetAsideWarnings flags an A/B run whose set-aside rounds all fell behind in the same build's
// main phase, two or more of them: falling behind is then likely that build's doing, not the
// machine's, and the rounds kept (those in which it kept up) understate its cost. None when the
// rounds set aside are fewer than two or spread over the phases.
func SetAsideWarnings(sa []perf.SetAsideRound) []string {
	if len(sa) < 2 {
		return nil
	}
	phase := sa[0].Phase
	for _, r := range sa[1:] {
		if r.Phase != phase {
			return nil
		}
	}
	if phase != perf.SetAsideMainA && phase != perf.SetAsideMainB {
		return nil
	}
	return []string{fmt.Sprintf("A/B: all %d rounds set aside fell behind in the %s phase: that build may be what falls behind, "+
		"and the rounds kept, in which it kept up, may understate its latency; see ab.setAside in the result file", len(sa), phase)}
}
