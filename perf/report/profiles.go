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
			for _, k := range perf.ProfileFileKinds {
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

// profileDiffSummary writes an A/B run's profile differences (perf.ProfileDiff) to b: per role
// and kind, the functions whose flat share changed the most, in percentage points, with both
// shares.
func profileDiffSummary(b *strings.Builder, ds []perf.ProfileDiff) {
	for _, d := range ds {
		what := map[string]string{"cpu": "CPU", "alloc": "bytes allocated"}[d.Kind]
		var parts []string
		for _, f := range d.Functions {
			if f.Beyond && len(parts) < profileLines {
				parts = append(parts, fmt.Sprintf("%s %+.1f pts (%.1f -> %.1f %%)", f.Function, 100*f.Delta, 100*f.A, 100*f.B))
			}
		}
		found := strings.Join(parts, "; ")
		if len(parts) == 0 {
			found = "no function's share changed beyond sampling noise"
		}
		fmt.Fprintf(b, "profile diff, %s's %s, B - A (flat share; %.0f and %.0f samples): %s\n", orNone(d.Role), what, d.SamplesA, d.SamplesB, found)
	}
}

// ProfileDiffText is the profile differences ds as the summary writes them, a line per role
// and kind.
func ProfileDiffText(ds []perf.ProfileDiff) string {
	var b strings.Builder
	profileDiffSummary(&b, ds)
	return b.String()
}
