package charts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/growth"
	"github.com/daprperf/daprperf/perf/report"
)

// compareMarkdown is the Markdown of comparison c, written to dir: links to the chart file and
// to the scenarios' READMEs (or result files, for runs without charts) are relative to dir.
func compareMarkdown(c comparison, dir, chartFile, multiplesFile string) string {
	var b strings.Builder
	o := c.Opts
	fmt.Fprintf(&b, "# %s vs %s\n\n", c.A, c.B)
	fmt.Fprintf(&b, "%s: %s %s; %s: %s %s.\n\n", c.A, c.SideA.Kind, relTo(dir, c.SideA.Path), c.B, c.SideB.Kind, relTo(dir, c.SideB.Path))
	fmt.Fprintf(&b, "Each side is the median over its rounds, with the order-statistics interval of the median at %g %% when\n", 100*o.Confidence)
	b.WriteString("the rounds give one (6 rounds or more at 95 %). Change is the change of the medians; the U test is a\n")
	b.WriteString("Mann-Whitney U test of the per-round values (golang.org/x/perf/benchmath, as benchstat), its p and the\n")
	b.WriteString("rounds on each side. The interval is that of the Hodges–Lehmann shift B − A, relative to A's median,\n")
	b.WriteString("from the Mann-Whitney distribution, with its actual confidence (\"widest\": the rounds give none at the\n")
	b.WriteString("confidence asked for).\n")
	b.WriteString(report.RuleLine(o.rule()) + "\n")
	if len(o.Gate) > 0 {
		fmt.Fprintf(&b, "Only figures starting with %s gate.\n", strings.Join(o.Gate, ", "))
	}
	if chartFile != "" {
		fmt.Fprintf(&b, "\n![Overhead p50, p90, p99: %s vs %s](%s)\n", c.A, c.B, filepath.ToSlash(chartFile))
	}
	if multiplesFile != "" {
		fmt.Fprintf(&b, "\n![Every scenario's overhead p90, sidecar CPU per request and peak RSS: %s vs %s, with the verdicts](%s)\n", c.A, c.B, filepath.ToSlash(multiplesFile))
	}
	for _, s := range c.Scenarios {
		fmt.Fprintf(&b, "\n## %s\n\n", s.Key)
		fmt.Fprintf(&b, "Reports: %s, %s.\n\n", readmeLink(c.A, dir, s.A), readmeLink(c.B, dir, s.B))
		fmt.Fprintf(&b, "%s: %s, %s. %s: %s, %s.\n", c.A, measuredLine(s.A.Report), envLine(s.A.Report),
			c.B, measuredLine(s.B.Report), envLine(s.B.Report))
		if d := envDifferences(s.A.Report, s.B.Report); d != "" {
			fmt.Fprintf(&b, "\n**The environments differ** (%s): compare with care.\n", d)
		}
		b.WriteString("\n")
		if s.A.Report.Growth != nil && s.B.Report.Growth != nil {
			writeGrowthComparison(&b, c.A, c.B, s.A.Report.Growth, s.B.Report.Growth)
			continue
		}
		fmt.Fprintf(&b, "Validity: %s %s; %s %s.\n\n", c.A, validityText(s.A.Report), c.B, validityText(s.B.Report))
		rows := make([][]string, 0, len(s.Rows))
		for _, r := range s.Rows {
			verdict := r.Verdict
			if r.Verdict == perf.VerdictRegressed {
				verdict = "**" + verdict + "**"
				if !r.Gates {
					verdict += " (not gating)"
				}
			}
			rows = append(rows, []string{r.Figure, r.A, r.B, r.Change, r.Interval, r.Test, verdict})
		}
		writeTable(&b, []string{"figure", c.A, c.B, "change", "interval of the change", "U test", "verdict"}, "lrrrrrl", rows)
		if len(s.Profiles) > 0 || len(s.ProfileWarnings) > 0 {
			fmt.Fprintf(&b, "\nProfiles, %s against %s (A = %s, B = %s; docs/method.md#profiles):\n\n```\n%s", c.B, c.A, c.A, c.B, report.ProfileDiffText(s.Profiles))
			for _, w := range s.ProfileWarnings {
				b.WriteString("WARNING: " + w + "\n")
			}
			b.WriteString("```\n")
		}
	}
	if len(c.OnlyA) > 0 {
		fmt.Fprintf(&b, "\nOnly in %s: %s.\n", c.A, strings.Join(c.OnlyA, ", "))
	}
	if len(c.OnlyB) > 0 {
		fmt.Fprintf(&b, "\nOnly in %s: %s.\n", c.B, strings.Join(c.OnlyB, ", "))
	}
	fmt.Fprintf(&b, "\n%s\n", verdictLine(c.Regressions, c.Undecided, o))
	return b.String()
}

// relTo is path relative to dir when it can be, with forward slashes.
func relTo(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil {
		path = rel
	}
	return filepath.ToSlash(path)
}

// readmeLink links to the README.md next to sc's result file, relative to dir, or to the
// result file itself when there is no README (a run whose charts were not drawn).
func readmeLink(text, dir string, sc scenario) string {
	path := filepath.Join(sc.Dir, "README.md")
	if _, err := os.Stat(path); err != nil {
		path = sc.Path
	}
	return fmt.Sprintf("[%s](%s)", text, relTo(dir, path))
}

func envLine(rep *perf.Report) string {
	env := rep.Environment
	return fmt.Sprintf("daprd %s on %s, %s, %s", orNone(env.DaprVersion), orNone(env.Platform), cpuText(env), fmtTime(env.StartTime))
}

// sittingGap is how far apart two runs' starts may be and still count as one sitting of the
// machine: the nightly runs of reports/measurements.md moved by 30 % or more between sittings
// hours apart, with the same build.
const sittingGap = 2 * time.Hour

// fmtGap is d rounded for a sentence: "3 h", "2 days".
func fmtGap(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%.0f days", d.Hours()/24)
	}
	return fmt.Sprintf("%.0f h", d.Hours())
}

// envDifferences names what differs between the machines of a and b, or "".
func envDifferences(a, b *perf.Report) string {
	var d []string
	ea, eb := a.Environment, b.Environment
	if ea.Platform != eb.Platform {
		d = append(d, "platform")
	}
	if ea.CPUModel != eb.CPUModel || ea.CPUs != eb.CPUs {
		d = append(d, "CPU")
	}
	if a.Params.QPS != b.Params.QPS || a.Params.Connections != b.Params.Connections ||
		a.Params.PayloadBytes != b.Params.PayloadBytes || a.Params.Duration != b.Params.Duration {
		d = append(d, "load parameters")
	}
	if a.AppWork != b.AppWork {
		d = append(d, "the app's work")
	}
	if gap := eb.StartTime.Sub(ea.StartTime).Abs(); !ea.StartTime.IsZero() && !eb.StartTime.IsZero() && gap > sittingGap {
		d = append(d, fmt.Sprintf("sitting: run %s apart, and this machine's speed drifts between sittings as much as "+
			"a version change; an interleaved A/B run (DAPR_PERF_DAPRD_B) tells them apart", fmtGap(gap)))
	}
	return strings.Join(d, ", ")
}

// writeGrowthComparison writes, per variant and sidecar present in both growth reports, the
// RSS slope (KiB per 1,000 requests) and verdict of a and b side by side.
func writeGrowthComparison(b *strings.Builder, nameA, nameB string, a, g *growth.Report) {
	fmt.Fprintf(b, "Thresholds: %s %.0f, %s %.0f KiB per 1,000 requests.\n\n", nameA, a.ThresholdKiBPer1000, nameB, g.ThresholdKiBPer1000)
	var rows [][]string
	for _, va := range a.Variants {
		for _, sa := range va.Sidecars {
			for _, vb := range g.Variants {
				if vb.Name != va.Name {
					continue
				}
				for _, sb := range vb.Sidecars {
					if sb.Process != sa.Process {
						continue
					}
					rows = append(rows, []string{va.Name, sa.Role,
						fmt.Sprintf("%.0f", sa.Growth.SlopeKiBPer1000), growthVerdict(sa.Growth),
						fmt.Sprintf("%.0f", sb.Growth.SlopeKiBPer1000), growthVerdict(sb.Growth)})
				}
			}
		}
	}
	writeTable(b, []string{"variant", "sidecar", nameA + " slope", nameA + " verdict", nameB + " slope", nameB + " verdict"}, "llrlrl", rows)
}

// measuredLine says what a run measured: its rounds, or a growth run's variants and rounds.
func measuredLine(rep *perf.Report) string {
	if g := rep.Growth; g != nil {
		return fmt.Sprintf("%s of %s of %d requests", plural(len(g.Variants), "variant"), plural(g.Rounds, "round"), g.RequestsPerRound)
	}
	return plural(len(rep.Rounds), "round")
}
