package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/daprperf/daprperf/charts/trend"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/history"
	"github.com/daprperf/daprperf/perf/report"
)

// decideAndDraw adds the run to the history, decides its figures, writes nightly.json and the
// trend page, prints the decisions, and returns the night's exit code given the run's outcome.
func (n *night) decideAndDraw(outcome perf.Outcome) perf.Outcome {
	fail := func(err error) perf.Outcome {
		fmt.Fprintf(n.stderr, "nightly: %v\n", err)
		return perf.Worst(outcome, perf.OutcomeInfra)
	}
	if _, err := os.Stat(n.runDir); err != nil {
		return fail(fmt.Errorf("the run wrote nothing: %w", err))
	}
	idx, err := n.addToHistory()
	if err != nil {
		return fail(err)
	}
	var tonight []history.Entry
	for _, e := range idx.Entries {
		if e.RunID == n.runID && strings.HasPrefix(e.Path, perf.RunsDir+"/") {
			tonight = append(tonight, e)
		}
	}
	var ds []Decision
	for _, e := range tonight {
		if !e.Valid || e.Incomplete {
			fmt.Fprintf(n.stdout, "nightly: %s: not decided: the run is %s\n", e.Scenario, map[bool]string{true: "incomplete", false: "invalid"}[e.Incomplete])
			continue
		}
		d, err := decide(idx, []history.Entry{e})
		if err != nil {
			return fail(err)
		}
		ds = append(ds, d...)
	}
	b, err := json.MarshalIndent(ds, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(n.runDir, "nightly.json"), append(b, '\n'), 0o644)
	}
	if err != nil {
		return fail(err)
	}
	page := trendPage(idx, tonight, ds, n.runID)
	pagePath := filepath.Join(n.root, history.Dir, "index.html")
	if err := trend.Write(pagePath, page); err != nil {
		return fail(err)
	}
	n.print(ds)
	fmt.Fprintf(n.stdout, "nightly: %s\nnightly: the history: %s\nnightly: the trend page: %s\nnightly: this night's decisions: %s\n",
		page.Finding, history.IndexPath(n.root), pagePath, filepath.Join(n.runDir, "nightly.json"))
	if outcome >= perf.OutcomeInvalid {
		return outcome
	}
	if len(regressed(ds)) > 0 {
		return OutcomeRegression
	}
	return outcome
}

// addToHistory adds the run's result files to the index, building the index from every result
// file under the root first when there is none.
func (n *night) addToHistory() (*history.Index, error) {
	if _, err := os.Stat(history.IndexPath(n.root)); errors.Is(err, fs.ErrNotExist) {
		_, warnings, err := history.Rebuild(n.root)
		for _, w := range warnings {
			fmt.Fprintf(n.stderr, "nightly: history: %s\n", w)
		}
		if err != nil {
			return nil, err
		}
	}
	return history.Add(n.root, n.runDir)
}

// print writes the decisions as a table: gated figures first, then the rest.
func (n *night) print(ds []Decision) {
	sorted := slices.Clone(ds)
	slices.SortStableFunc(sorted, func(a, b Decision) int {
		switch {
		case a.Gated == b.Gated:
			return 0
		case a.Gated:
			return -1
		default:
			return 1
		}
	})
	w := tabwriter.NewWriter(n.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "scenario\tfigure\tgates\tthis night\tearlier runs\tchange\tinterval\tverdict\tchange points")
	for _, d := range sorted {
		gate := ""
		if d.Gated {
			gate = "yes"
		}
		verdict := d.Difference.Verdict
		if d.held() {
			verdict += fmt.Sprintf(" (not gating: runs of %d day(s), %d needed)", d.Days, minGatingDays)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%d\n", d.Scenario, d.Figure, gate,
			report.FormatValue(d.Difference.B, d.Unit, false), d.Earlier, change(d),
			relInterval(d.Difference), verdict, len(d.ChangePoints))
	}
	w.Flush()
}

// trendPage is the page of every scenario the night ran: each figure's series on this machine
// and load, its change points, and this night's verdict.
func trendPage(idx *history.Index, tonight []history.Entry, ds []Decision, runID string) trend.Page {
	p := trend.Page{Title: "Nightly runs: " + runID}
	bad, held := regressed(ds), heldBack(ds)
	// named is each decision of ds as the finding names it, the day count after it when days.
	named := func(ds []Decision, days bool) string {
		var names []string
		for _, d := range ds {
			n := fmt.Sprintf("%s %s %s %s", d.Scenario, figureTitle(d.Figure), signedPct(d.Difference.Change), relInterval(d.Difference))
			if days {
				n += fmt.Sprintf(" against runs of %d day(s)", d.Days)
			}
			names = append(names, n)
		}
		return strings.Join(names, "; ")
	}
	switch {
	case len(tonight) == 0:
		p.Finding = "This night wrote no result file: nothing was decided."
		p.Alarm = true
	case len(bad) > 0:
		p.Finding = fmt.Sprintf("Regressed against the nights before: %s.", named(bad, false))
		p.Alarm = true
	case len(held) > 0:
		p.Finding = fmt.Sprintf("Nothing gates this night, but regressed against nights of fewer than %d days, whose spread holds too little of the machine's drift between days to gate: %s.",
			minGatingDays, named(held, true))
	default:
		counts := map[string]int{}
		for _, d := range ds {
			if d.Gated {
				counts[d.Difference.Verdict]++
			}
		}
		p.Finding = fmt.Sprintf("No overhead p50 or p90 regressed against the nights before: %d same, %d improved, %d undecided.",
			counts[perf.VerdictSame], counts[perf.VerdictImproved], counts[perf.VerdictUndecided])
	}
	if len(tonight) > 0 {
		m := tonight[0].Machine
		p.Notes = append(p.Notes, fmt.Sprintf("Machine %s: %s × %d, %.1f GiB, kernel %s; runs on other machines are left out of every series.",
			m.Hash, m.CPUModel, m.CPUs, float64(m.MemoryBytes)/(1<<30), m.KernelRelease))
	}
	p.Notes = append(p.Notes, report.RuleLine(report.DefaultChangeRule())+" A night's median is compared with the medians of the runs after the last change point before it (at most 30): the change against their mean, its interval the prediction interval of one more run from their spread (docs/method.md#a-night-against-earlier-nights).",
		"Change points: perf/changepoint over each series of runs (docs/method.md); a dashed line before the first run after a change.",
		"Each dot is a run's median over its rounds; the bar spans its rounds; small dots are the rounds.")
	for _, e := range tonight {
		sec := trend.Section{Title: fmt.Sprintf("%s (%s)", e.Scenario, e.Load)}
		for _, d := range ds {
			if d.Scenario != e.Scenario.String() {
				continue
			}
			s, err := idx.Series(e.Scenario, d.Figure, e.Machine.Hash)
			if err != nil {
				continue
			}
			c := trend.Chart{Title: figureTitle(d.Figure), Unit: d.Unit, Alarm: d.Gated && d.Difference.Verdict == perf.VerdictRegressed,
				Finding: chartFinding(d)}
			for _, pt := range s.Points {
				if pt.OtherMachine || pt.Load != e.Load || pt.Missing || !pt.Valid {
					continue
				}
				c.Points = append(c.Points, trend.Point{RunID: pt.RunID, Time: pt.Time, Version: pt.DaprVersion, Median: pt.Figure.Value, Rounds: pt.Figure.PerRound})
				if pt.RunID == e.RunID {
					break
				}
			}
			for _, cp := range d.ChangePoints {
				c.Changes = append(c.Changes, trend.Change{Index: cp.Index, Text: fmt.Sprintf("%s → %s: %s, p = %.3g", cp.From, cp.To, signedPct(cp.RelativeChange), cp.PValue)})
			}
			sec.Charts = append(sec.Charts, c)
		}
		p.Sections = append(p.Sections, sec)
	}
	return p
}

// chartFinding says what this night showed for one figure.
func chartFinding(d Decision) string {
	if d.Earlier == 0 {
		return "undecided: the first run of this load on this machine, nothing to compare with"
	}
	out := fmt.Sprintf("%s, %s %s against the %d run(s) before", d.Difference.Verdict, change(d), relInterval(d.Difference), d.Earlier)
	if d.held() {
		out += fmt.Sprintf(", of %d day(s): not gating (%d days needed)", d.Days, minGatingDays)
	}
	return out
}

// figureTitle is a history figure's name as a page says it.
func figureTitle(name string) string {
	switch {
	case strings.HasPrefix(name, "overhead."):
		return "overhead " + strings.TrimPrefix(name, "overhead.")
	case name == history.FigureQPS:
		return "achieved rate"
	case strings.HasPrefix(name, "cpuMicrosPerRequest:"):
		return "CPU per request, " + strings.TrimPrefix(name, "cpuMicrosPerRequest:")
	case strings.HasPrefix(name, "peakRSSBytes:"):
		return "peak RSS, " + strings.TrimPrefix(name, "peakRSSBytes:")
	}
	return name
}

// signedPct writes a relative change as "+12.3 %"; "n/a" when it is not a number.
func signedPct(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f %%", 100*x)
}

// relInterval writes a difference's interval relative to A with its confidence: the decision
// interval ("[+8.1 %, +15.0 %] at 99 %"), or for a verdict of same the equivalence interval that
// showed it; "(no interval)" when the rounds give neither.
func relInterval(d perf.Difference) string {
	a := math.Abs(d.A)
	switch {
	case a == 0:
	case d.Verdict == perf.VerdictSame && d.HasSameInterval:
		return fmt.Sprintf("[%s, %s] at %.0f %%", signedPct(d.SameLow/a), signedPct(d.SameHigh/a), 100*d.SameConfidence)
	case d.HasInterval:
		return fmt.Sprintf("[%s, %s] at %s", signedPct(d.Low/a), signedPct(d.High/a), report.ConfidencePct(d.Confidence))
	}
	return "(no interval)"
}

// change writes a decision's relative change, or "-" when there was nothing to compare with.
func change(d Decision) string {
	if d.Earlier == 0 {
		return "-"
	}
	return signedPct(d.Difference.Change)
}
