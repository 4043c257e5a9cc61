package charts

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// compareAB compares, in every A/B result that name (a run id, a version directory or a
// result file) holds, build B against build A round by round (report.PairedDifferences by the
// options' rule, over the looks the run recorded in its ab.rule), and writes the Markdown to w
// or opts.Out. It returns exitRegression when a gating figure of B regressed. A name with no A/B
// result is bad input.
func compareAB(opts compareOptions, name string, w io.Writer) (int, error) {
	s, err := resolveSide(opts.Reports, name)
	if err != nil {
		return exitBadInput, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# A/B: %s\n\n", name)
	b.WriteString("Both daprd builds ran in the same run, on the same apps, tester and machine, their rounds\n")
	b.WriteString("interleaved (A B, then B A, ...) after a shared baseline. Per figure: each build's median over\n")
	b.WriteString("rounds, the median of the per-round differences B − A with its order-statistics interval (the sign\n")
	b.WriteString("test's, benchmath.AssumeNothing) and the interval's actual confidence (\"widest\": the rounds give none\n")
	b.WriteString("at the confidence asked for), and the change relative to A.\n")
	var regressions []string
	undecided, found := 0, 0
	for _, key := range sortedKeys(s.Scenarios) {
		sc := s.Scenarios[key]
		rep := sc.Report
		if rep.AB == nil {
			continue
		}
		found++
		ab := rep.AB
		fmt.Fprintf(&b, "\n## %s\n\n", key)
		fmt.Fprintf(&b, "A: daprd %s (%s). B: daprd %s (%s). %s, order %s; %s each side, %s. Result file: %s.\n\n",
			ab.A.Version, orNone(ab.A.Daprd), ab.B.Version, orNone(ab.B.Daprd), plural(len(ab.Rounds), "round"),
			strings.Join(ab.Order, " "), fmt.Sprintf("%d QPS × %v", rep.Params.QPS, rep.Params.Duration),
			envLine(rep), sc.Path)
		fmt.Fprintf(&b, "Validity: %s.\n\n", validityText(rep))
		if line := report.StopLine(ab.Stop); line != "" {
			b.WriteString(line + "\n\n")
		}
		rule := opts.rule()
		if ab.Rule != nil {
			rule.Looks = ab.Rule.Looks
		}
		fmt.Fprintf(&b, "%s\n\n", report.RuleLine(rule))
		var rows [][]string
		for _, d := range report.PairedDifferences(rep.Rounds, ab.Rounds, rule) {
			conf := report.ConfidencePct(d.Confidence)
			if !d.HasInterval {
				conf += " (widest)"
			}
			verdict := d.Verdict
			switch {
			case d.Verdict == perf.VerdictRegressed && gates(d.Figure, opts.Gate):
				regressions = append(regressions, fmt.Sprintf("%s %s (%+.1f %%)", key, d.Figure, 100*d.Change))
				verdict = "**" + verdict + "**"
			case d.Verdict == perf.VerdictUndecided:
				undecided++
			}
			rows = append(rows, []string{d.Figure, report.FormatValue(d.A, d.Unit, false), report.FormatValue(d.B, d.Unit, false),
				report.FormatValue(d.Median, d.Unit, true),
				fmt.Sprintf("[%s, %s]", report.FormatValue(d.Low, d.Unit, true), report.FormatValue(d.High, d.Unit, true)),
				conf, fmt.Sprintf("%+.1f %%", 100*d.Change), verdict})
		}
		writeTable(&b, []string{"figure", "A " + ab.A.Version, "B " + ab.B.Version, "B − A (median)", "interval", "confidence", "change", "verdict"}, "lrrrrrrl", rows)
	}
	if found == 0 {
		return exitBadInput, badInput("charts compare: %s (%s) holds no A/B result (set DAPR_PERF_DAPRD_B for a run of two builds), and compare needs two sides otherwise", s.Path, s.Kind)
	}
	fmt.Fprintf(&b, "\n%s\n", verdictLine(regressions, undecided, opts))
	md := b.String()
	if opts.Out != "" {
		if err := os.WriteFile(opts.Out, []byte(md), 0o644); err != nil {
			return exitBadInput, fmt.Errorf("charts: %w", err)
		}
		fmt.Fprintf(w, "%s: %d A/B scenarios\n%s\n", opts.Out, found, verdictLine(regressions, undecided, opts))
	} else {
		fmt.Fprint(w, md)
	}
	if len(regressions) > 0 {
		return exitRegression, nil
	}
	return exitNoRegression, nil
}
