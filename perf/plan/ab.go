package plan

import (
	"github.com/daprperf/daprperf/perf"
)

// buildOf names the daprd build dep runs: its version, binary and any injected slowdown.
func buildOf(dep perf.Deployment) perf.Build {
	b := perf.Build{Version: dep.DaprVersion()}
	if p, ok := dep.(perf.DaprdPather); ok {
		b.Daprd = p.DaprdPath()
	}
	if s, ok := dep.(perf.Slowed); ok {
		b.InjectedDelaySeconds = s.InjectedDelay().Seconds()
		b.HeldDelaySeconds = s.HeldDelay().Seconds()
	}
	return b
}
