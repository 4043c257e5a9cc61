package report

import (
	"fmt"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// perEventLines writes, for each phase whose requests published several events, its service
// time per event: the mean, p50 and p90 divided by the events per request, in µs.
func perEventLines(b *strings.Builder, figures *perf.Figures) {
	for _, ph := range figures.Phases {
		n := float64(ph.EventsPerRequest)
		if n <= 1 {
			continue
		}
		p50, _ := ph.Quantile(50, false)
		p90, _ := ph.Quantile(90, false)
		fmt.Fprintf(b, "%s per event (%d events per request): mean %.1f µs, p50 %.1f µs, p90 %.1f µs; %.0f events/s\n",
			ph.Phase, ph.EventsPerRequest, 1e6*ph.MeanSeconds/n, 1e6*p50/n, 1e6*p90/n, ph.QPS*n)
	}
}
