package report_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

func TestSetAsideWarnings(t *testing.T) {
	rounds := func(phases ...string) []perf.SetAsideRound {
		var out []perf.SetAsideRound
		for i, p := range phases {
			out = append(out, perf.SetAsideRound{Round: i + 1, Phase: p})
		}
		return out
	}
	assert.Empty(t, report.SetAsideWarnings(nil))
	assert.Empty(t, report.SetAsideWarnings(rounds(perf.SetAsideMainB)), "one round says nothing of a build")
	assert.Empty(t, report.SetAsideWarnings(rounds(perf.SetAsideMainB, perf.SetAsideMainA)), "spread over the builds")
	assert.Empty(t, report.SetAsideWarnings(rounds(perf.SetAsideBaseline, perf.SetAsideBaseline)), "the baseline is neither build's")
	w := report.SetAsideWarnings(rounds(perf.SetAsideMainB, perf.SetAsideMainB, perf.SetAsideMainB))
	if assert.Len(t, w, 1) {
		assert.Contains(t, w[0], "all 3 rounds set aside fell behind in the main of build B phase")
	}
}
