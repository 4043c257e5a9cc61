package report

import (
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/growth"
)

// ResourcesWithoutGrowth sums rounds' resource series (SummariseResources) and clears every
// memory-growth class: for plans whose loads are too short, too sparse or not counted in
// requests for an RSS slope per 1,000 requests to mean anything; GrowthNote says so. Peak RSS
// and mean CPU stay.
func ResourcesWithoutGrowth(rounds []perf.Round) []perf.ResourceSummary {
	out := SummariseResources(rounds, nil)
	for i := range out {
		out[i].Growth = growth.Classification{}
		out[i].GrowthNote = "not classified by this plan"
	}
	return out
}
