package report

import (
	"fmt"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// profileLines is how many functions the summary names per list of a sidecar's profiles.
const profileLines = 5

// profilesSummary writes the sidecars' profiles (DAPR_PERF_PROFILES=on) to b: per daprd, the
// load they were read during, the CPU they sampled with its top functions (flat share, and
// cumulative), the bytes allocated with their top sites, the heap in use's change and the
// goroutines, and the files for go tool pprof; what could not be read is said.
func profilesSummary(b *strings.Builder, ps []perf.SidecarProfiles) {
	for _, p := range ps {
		fmt.Fprintf(b, "profiles of %s (%s) during %s: %.2f s of CPU sampled in a %.0f s window; %.1f MiB allocated, heap in use %+.1f MiB, %d goroutines at the end\n",
			p.Process, orNone(p.Role), p.During, p.CPUSampleSeconds, p.CPUWindowSeconds,
			float64(p.AllocBytes)/(1<<20), float64(p.InUseGrowthBytes)/(1<<20), p.Goroutines)
		topLine(b, "  CPU, flat (cumulative)", p.TopCPU)
		topLine(b, "  allocated, flat (cumulative)", p.TopAlloc)
		if len(p.Files) > 0 {
			files := make([]string, 0, len(p.Files))
			for _, k := range []string{"cpu", "heap-start", "heap-end", "goroutine"} {
				if f, ok := p.Files[k]; ok {
					files = append(files, f)
				}
			}
			fmt.Fprintf(b, "  files (go tool pprof): %s\n", strings.Join(files, " "))
		}
		for _, e := range p.Errors {
			fmt.Fprintf(b, "  NOT READ: %s\n", e)
		}
	}
}

// topLine writes the first profileLines of fs, as "name 12.3 % (40.1 %)".
func topLine(b *strings.Builder, title string, fs []perf.FunctionShare) {
	if len(fs) == 0 {
		return
	}
	parts := make([]string, 0, profileLines)
	for _, f := range fs[:min(profileLines, len(fs))] {
		parts = append(parts, fmt.Sprintf("%s %.1f %% (%.1f %%)", f.Function, 100*f.Flat, 100*f.Cum))
	}
	fmt.Fprintf(b, "%s: %s\n", title, strings.Join(parts, "; "))
}
