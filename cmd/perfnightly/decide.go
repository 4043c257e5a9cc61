package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/changepoint"
	"github.com/daprperf/daprperf/perf/history"
	"github.com/daprperf/daprperf/perf/report"
)

// gatedFigures are the figures whose regression makes the night's exit code 7: the overhead
// percentiles Dapr's suite bounds (p50 and p90). The others are decided and drawn but only
// reported: with every figure of every scenario gating, a 1 % false-alarm rate per figure
// would raise an alarm on about half of all nights (60 figures: 1 − 0.99^60 ≈ 45 %).
var gatedFigures = []string{history.FigureOverheadP50, history.FigureOverheadP90}

// Decision is what a night says about one figure of one scenario.
type Decision struct {
	Scenario string `json:"scenario"`
	Figure   string `json:"figure"`
	Unit     string `json:"unit"`
	Gated    bool   `json:"gated"`
	// Machine is the fingerprint hash the series was compared on, Load the load it ran at;
	// Nights is how many runs of that machine and load the series holds, this night included.
	Machine string `json:"machine"`
	Load    string `json:"load"`
	Nights  int    `json:"nights"`
	// Earlier is how many earlier runs this night was compared with: those after the last
	// change point before it, at most maxEarlier; Days is on how many UTC days they ran.
	Earlier int `json:"earlier"`
	Days    int `json:"days"`
	// Difference is the night against the earlier runs (report.CompareWithEarlier); its
	// Verdict is one of perf's four words.
	Difference perf.Difference `json:"difference"`
	// ChangePoints are the change points of the whole series, this night's included.
	ChangePoints []Change `json:"changePoints"`
	// OtherMachines counts the runs of the scenario measured on other machines, left out.
	OtherMachines int `json:"otherMachines,omitempty"`
}

// Change is one change point of a series, with the builds on each side of it.
type Change struct {
	// Index is the first run after the change, in the series' order; RunID that run's.
	Index int    `json:"index"`
	RunID string `json:"runID"`
	// From and To name the daprd builds of the runs just before and at the change ("1.16.5",
	// or "1.17.5 (commit abc123)").
	From           string  `json:"from"`
	To             string  `json:"to"`
	PValue         float64 `json:"pValue"`
	RelativeChange float64 `json:"relativeChange"`
	// Before and After are the medians of the run medians either side, in the figure's unit.
	Before float64 `json:"before"`
	After  float64 `json:"after"`
}

// minGatingDays is how many UTC days the earlier runs must span before a regressed gated figure
// makes the night's exit code 7. The prediction interval a night is judged by assumes it is
// drawn like the earlier nights; nights run back to back in one sitting (make release-history)
// share that sitting's machine, and their spread holds none of the drift between sittings,
// which on the machine here moved one build's overhead p90 by 30 % within an hour
// (docs/method.md#a-night-against-earlier-nights). A nightly job's history, one night per day,
// spans 3 days after its fourth night.
const minGatingDays = 3

// maxEarlier bounds the earlier runs a night is compared with, as Otava's window of 50 bounds
// its history; older runs say less about the build a night follows.
const maxEarlier = 30

// decide decides every figure of the night's entries against the index.
func decide(idx *history.Index, nightEntries []history.Entry) ([]Decision, error) {
	var out []Decision
	for _, e := range nightEntries {
		for _, f := range e.Figures {
			d, err := decideFigure(idx, e, f)
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// decideFigure decides figure f of night entry e.
func decideFigure(idx *history.Index, e history.Entry, f history.Figure) (Decision, error) {
	d := Decision{Scenario: e.Scenario.String(), Figure: f.Name, Unit: f.Unit, Gated: slices.Contains(gatedFigures, f.Name),
		Machine: e.Machine.Hash, Load: e.Load}
	s, err := idx.Series(e.Scenario, f.Name, e.Machine.Hash)
	if err != nil {
		return d, err
	}
	var pts []history.Point
	for _, p := range s.Points {
		switch {
		case p.OtherMachine:
			d.OtherMachines++
		case p.Load == e.Load && !p.Missing && p.Valid:
			pts = append(pts, p)
		}
	}
	at := slices.IndexFunc(pts, func(p history.Point) bool { return p.RunID == e.RunID })
	if at < 0 {
		return d, fmt.Errorf("nightly: run %s is not in the history's %s %s series", e.RunID, d.Scenario, f.Name)
	}
	pts = pts[:at+1] // a night is judged against the nights before it
	d.Nights = len(pts)
	cps, err := changePoints(pts)
	if err != nil {
		return d, fmt.Errorf("nightly: %s %s: %w", d.Scenario, f.Name, err)
	}
	d.ChangePoints = cps
	first := max(0, at-maxEarlier)
	for _, c := range cps {
		if c.Index < at && c.Index > first {
			first = c.Index
		}
	}
	var earlier [][]float64
	days := map[string]bool{}
	for _, p := range pts[first:at] {
		earlier = append(earlier, rounds(p.Figure))
		days[p.Time.UTC().Format(time.DateOnly)] = true
	}
	d.Earlier, d.Days = len(earlier), len(days)
	d.Difference = report.CompareWithEarlier(f.Name, f.Unit, rounds(f), earlier, f.Unit == "requests/s", report.DefaultChangeRule())
	return d, nil
}

// rounds is a figure's per-round values, or its one value when it has none.
func rounds(f history.Figure) []float64 {
	if len(f.PerRound) > 0 {
		return f.PerRound
	}
	return []float64{f.Value}
}

// changePoints runs the change-point detector over pts, each a sample of its rounds.
func changePoints(pts []history.Point) ([]Change, error) {
	if len(pts) < 2 {
		return nil, nil
	}
	series := make([]changepoint.Point, len(pts))
	for i, p := range pts {
		series[i] = changepoint.Point{Values: rounds(p.Figure), Label: p.RunID}
	}
	found, err := changepoint.Detect(series, changepoint.DefaultOptions())
	if err != nil {
		return nil, err
	}
	out := make([]Change, len(found))
	for i, c := range found {
		out[i] = Change{Index: c.Index, RunID: pts[c.Index].RunID, From: build(pts[c.Index-1]), To: build(pts[c.Index]),
			PValue: c.PValue, RelativeChange: c.RelativeChange, Before: c.Before.Median, After: c.After.Median}
	}
	return out, nil
}

// build names a point's daprd build.
func build(p history.Point) string {
	if p.DaprdCommit != "" && !strings.Contains(p.DaprVersion, p.DaprdCommit) {
		return fmt.Sprintf("%s (commit %s)", p.DaprVersion, p.DaprdCommit)
	}
	return p.DaprVersion
}

// regressedAgainst says whether d is a gated figure called regressed.
func (d Decision) regressedAgainst() bool {
	return d.Gated && d.Difference.Verdict == perf.VerdictRegressed
}

// held says whether d is a gated regression that does not gate: its earlier runs ran on fewer
// than minGatingDays days.
func (d Decision) held() bool { return d.regressedAgainst() && d.Days < minGatingDays }

// regressed returns the gated regressions against earlier runs of at least minGatingDays days:
// those that make the night's exit code 7.
func regressed(ds []Decision) []Decision {
	return slices.DeleteFunc(slices.Clone(ds), func(d Decision) bool { return !d.regressedAgainst() || d.held() })
}

// heldBack returns the gated regressions that do not gate (Decision.held): shown first, but
// not gating.
func heldBack(ds []Decision) []Decision {
	return slices.DeleteFunc(slices.Clone(ds), func(d Decision) bool { return !d.held() })
}
