package charts

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// referenceCPUs is the vCPU count of the nodes behind Dapr's published figures.
const referenceCPUs = 8

// image is a chart embedded in a README: File relative to the README, Title its alt text, PNG
// its bytes (embedded in the HTML report).
type image struct {
	File, Title string
	PNG         []byte
	// SVG is the drawing in SVG: a chart's twin of its PNG, or a flame graph's only form. A page
	// embeds it where it is set.
	SVG []byte
}

// scenarioMarkdown is the README.md of one scenario directory: the tables of rep and the
// images, linked relative to that directory.
func scenarioMarkdown(rep *perf.Report, images []image) string {
	return scenarioMarkdownWith(rep, images, "", nil)
}

// scenarioMarkdownWith is scenarioMarkdown with a section that sets it beside prev, the same
// scenario published for the version prevName before it (writeAgainstPrevious; none when prev
// is nil).
func scenarioMarkdownWith(rep *perf.Report, images []image, prevName string, prev *perf.Report) string {
	var b strings.Builder
	env := rep.Environment
	fmt.Fprintf(&b, "# %s over %s, Dapr %s\n\n", rep.Test, transportName(rep.Transport), orNone(env.DaprVersion))
	fmt.Fprintf(&b, "Result: **%s**. %s\n", resultWord(rep), resultSentence(rep))
	if f := report.Finding(rep); f != "" {
		fmt.Fprintf(&b, "\n**Finding:** %s\n", f)
	}
	if rep.Preflight != nil {
		fmt.Fprintf(&b, "\nLoad: %s.\n", rep.Preflight.Note)
	}

	if len(rep.Rounds) == 0 && hasSummary(rep) {
		b.WriteString("\n")
		writeTable(&b, append([]string{"transport"}, summaryHeader()...), "l",
			[][]string{append([]string{string(rep.Transport)}, summaryCells(rep)...)})
		fmt.Fprintf(&b, "\n%s", loadsSummaryNote)
		writeLoadsTables(&b, rep)
		b.WriteString("\n## Resources\n\n")
		invalidNote(&b, rep)
		writeResourcesTable(&b, rep)
	}

	if len(rep.Rounds) > 0 {
		b.WriteString("\n")
		writeTable(&b, append([]string{"transport"}, summaryHeader()...), "l",
			[][]string{append([]string{string(rep.Transport)}, summaryCells(rep)...)})
		fmt.Fprintf(&b, "\n%s", summaryNote(len(rep.Rounds)))

		b.WriteString("\n## Latency\n\n")
		invalidNote(&b, rep)
		writeLatencyTable(&b, rep)

		b.WriteString("\n## Load (main phase)\n\n")
		invalidNote(&b, rep)
		writeLoadTable(&b, rep)

		b.WriteString("\n## Rounds\n\n")
		invalidNote(&b, rep)
		writeRoundsTable(&b, rep)

		b.WriteString("\n## Resources (main phases)\n\n")
		invalidNote(&b, rep)
		writeResourcesTable(&b, rep)
	}

	if rep.Growth != nil {
		b.WriteString("\n## Memory growth\n\n")
		invalidNote(&b, rep)
		writeGrowth(&b, rep.Growth)
	}
	writeCurve(&b, rep)
	writeFaultAndHosts(&b, rep)
	writeProfiles(&b, rep)
	writeAgainstPrevious(&b, rep, prevName, prev)
	writeWarnings(&b, rep)

	b.WriteString("\n## Verdicts\n\n")
	if len(rep.Verdicts) == 0 {
		b.WriteString("No verdicts recorded.\n")
	}
	for _, v := range rep.Verdicts {
		fmt.Fprintf(&b, "- %s\n", v.String())
	}

	b.WriteString("\n## Validity\n\n")
	if rep.Validity.Valid {
		b.WriteString("Valid: the load kept to its schedule in every phase.\n")
	} else {
		b.WriteString("**Invalid**: the run cannot pass.\n")
		if len(rep.Validity.Reasons) == 0 {
			b.WriteString("\n- no reason recorded\n")
		} else {
			b.WriteString("\n")
		}
		for _, r := range rep.Validity.Reasons {
			fmt.Fprintf(&b, "- %s\n", r)
		}
	}

	b.WriteString("\n## Unexpected exits and restarts\n\n")
	if len(rep.Exits) == 0 {
		b.WriteString("None.\n")
	}
	for _, e := range rep.Exits {
		fmt.Fprintf(&b, "- %s at %s: %s (restarts: %d)\n", e.Process, fmtTime(e.At), e.Reason, e.Restarts)
	}

	b.WriteString("\n## Environment\n\n")
	writeEnvironment(&b, rep)

	if note := noTimelineNote(rep); len(images) > 0 || note != "" {
		b.WriteString("\n## Charts\n")
		if note != "" {
			fmt.Fprintf(&b, "\n%s\n", note)
		}
		for _, im := range images {
			if im.PNG != nil && im.SVG != nil {
				b.WriteString("\nEach chart is also beside its PNG as an SVG of the same name (for slides; report.html embeds it).\n")
				break
			}
		}
		for _, im := range images {
			fmt.Fprintf(&b, "\n![%s](%s)\n", im.Title, filepath.ToSlash(im.File))
		}
	}
	return b.String()
}
