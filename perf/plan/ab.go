package plan

import (
	"github.com/daprperf/daprperf/perf"
)

func buildOf(dep perf.Deployment) perf.Build {
	b := perf.Build{Version: dep.DaprVersion()}
	if p, ok := dep.(perf.DaprdPather); ok {
		b.Daprd = p.DaprdPath()
	}
	return b
}
