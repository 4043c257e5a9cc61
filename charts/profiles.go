package charts

import (
	"fmt"
	"strings"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// profileRows is how many functions the page lists per sidecar and kind.
const profileRows = 10

// writeProfiles writes the Profiles section of a scenario page (DAPR_PERF_PROFILES=on): per
// daprd, the load it was read during, what it sampled and allocated, its top functions of CPU
// and of allocation (flat and cumulative share), links to the pprof files, and what was not
// read; then an A/B run's profile differences. Nothing without profiles.
func writeProfiles(b *strings.Builder, rep *perf.Report) {
	if len(rep.Profiles) == 0 {
		return
	}
	b.WriteString("\n## Profiles\n\n")
	b.WriteString("Each daprd's pprof profiles during the measured load named with it (docs/method.md#profiles): flat is the share of the function itself, cumulative with what it calls.\n")
	for _, p := range rep.Profiles {
		fmt.Fprintf(b, "\n### %s (%s), %s\n\n", p.Process, p.Role, p.During)
		fmt.Fprintf(b, "%.2f s of CPU sampled in a %.0f s window; %.1f MiB allocated during the load, heap in use %+.1f MiB; %d goroutines at its end.\n",
			p.CPUSampleSeconds, p.CPUWindowSeconds, float64(p.AllocBytes)/(1<<20), float64(p.InUseGrowthBytes)/(1<<20), p.Goroutines)
		if len(p.Files) > 0 {
			var links []string
			for _, k := range perf.ProfileFileKinds {
				if f, ok := p.Files[k]; ok {
					links = append(links, fmt.Sprintf("[%s](%s)", k, f))
				}
			}
			fmt.Fprintf(b, "Files for `go tool pprof`: %s.\n", strings.Join(links, ", "))
		}
		for _, e := range p.Errors {
			fmt.Fprintf(b, "\n**Not read**: %s\n", e)
		}
		writeFlameLink(b, p)
		writeShares(b, "CPU", p.TopCPU)
		writeShares(b, "bytes allocated", p.TopAlloc)
	}
	if rep.AB != nil && len(rep.AB.Profiles) > 0 {
		b.WriteString("\n### Build B against build A\n\n```\n" + report.ProfileDiffText(rep.AB.Profiles) + "```\n")
	}
}

// writeShares writes the first profileRows of fs as a table, under what.
func writeShares(b *strings.Builder, what string, fs []perf.FunctionShare) {
	if len(fs) == 0 {
		return
	}
	rows := make([][]string, 0, profileRows)
	for _, f := range fs[:min(profileRows, len(fs))] {
		rows = append(rows, []string{"`" + f.Function + "`", fmt.Sprintf("%.1f %%", 100*f.Flat), fmt.Sprintf("%.1f %%", 100*f.Cum)})
	}
	b.WriteString("\n")
	writeTable(b, []string{what + ": function", "flat", "cumulative"}, "lrr", rows)
}
