package history

import (
	"slices"
	"strings"
	"time"
)

// Series is one figure of one scenario over the runs of an index, in time order.
type Series struct {
	Scenario Scenario
	Figure   string
	// Machine is the fingerprint hash the series was asked for: the machine its points are
	// compared as.
	Machine string
	Points  []Point
	// OtherMachines are the fingerprint hashes of the points measured elsewhere, sorted; empty
	// when every point is from Machine.
	OtherMachines []string
}

// Point is one run's value of a Series' figure.
type Point struct {
	Time  time.Time
	RunID string
	// Paths are the result files this point was read from, relative to the root: more than
	// one when one run's file was also published (runs/<id>/... and v<version>/... hold the
	// same run), which counts once.
	Paths       []string
	DaprVersion string
	DaprdCommit string
	// Load is the run's load (Entry.Load): points of one series may have run at different ones.
	Load    string
	Machine string
	// OtherMachine is set when the point was measured on another machine than the series'
	// Machine (another fingerprint hash, or one with fields unknown): it must not be compared
	// as if it were the same machine.
	OtherMachine bool
	Pass, Valid  bool
	// Missing is set when the point's result file is gone (the index keeps its figures).
	Missing bool
	Figure  Figure
}

// SameMachine returns the points measured on the series' Machine.
func (s Series) SameMachine() []Point {
	return slices.DeleteFunc(slices.Clone(s.Points), func(p Point) bool { return p.OtherMachine })
}

// Series returns figure (FigureOverheadP90, CPUFigure(...), ...) of sc over idx's entries, in
// time order, as compared on machine, a fingerprint hash (perf.MachineFingerprint.Hash): each
// point from another machine is flagged (Point.OtherMachine) and its hash listed in
// OtherMachines. sc.Plan, when set, must match too. An entry without the figure is left out;
// so is a second file of the same run (the same run id, scenario and start time), which adds
// its path to the first one's point. It is an error when machine is empty, no entry is of sc,
// or none has the figure (the error lists the figures they have).
func (idx *Index) Series(sc Scenario, figure, machine string) (Series, error) {
	if machine == "" {
		return Series{}, errorf("series %s %s: name the machine to compare on (a fingerprint hash, as perfhistory list shows it)", sc, figure)
	}
	s := Series{Scenario: sc, Figure: figure, Machine: machine}
	var matched int
	have := map[string]bool{}
	type runKey struct {
		id, scenario string
		start        time.Time
	}
	at := map[runKey]int{}
	entries := slices.Clone(idx.Entries)
	(&Index{Entries: entries}).sort()
	for _, e := range entries {
		if e.Scenario.Test != sc.Test || e.Scenario.Transport != sc.Transport || (sc.Plan != "" && e.Scenario.Plan != sc.Plan) {
			continue
		}
		matched++
		for _, f := range e.Figures {
			have[f.Name] = true
		}
		f, ok := e.Figure(figure)
		if !ok {
			continue
		}
		k := runKey{e.RunID, e.Scenario.String(), e.StartTime}
		if i, dup := at[k]; dup && e.RunID != "" {
			s.Points[i].Paths = append(s.Points[i].Paths, e.Path)
			s.Points[i].Missing = s.Points[i].Missing && e.Missing // one copy left is enough
			continue
		}
		at[k] = len(s.Points)
		p := Point{Time: e.StartTime, RunID: e.RunID, Paths: []string{e.Path}, DaprVersion: e.DaprVersion,
			DaprdCommit: e.DaprdCommit, Load: e.Load, Machine: e.Machine.Hash, OtherMachine: e.Machine.Hash != machine,
			Pass: e.Pass, Valid: e.Valid, Missing: e.Missing, Figure: f}
		if p.OtherMachine && !slices.Contains(s.OtherMachines, p.Machine) {
			s.OtherMachines = append(s.OtherMachines, p.Machine)
		}
		s.Points = append(s.Points, p)
	}
	slices.Sort(s.OtherMachines)
	switch {
	case matched == 0:
		return Series{}, errorf("series %s: no run of that scenario in the index", sc)
	case len(s.Points) == 0:
		names := make([]string, 0, len(have))
		for n := range have {
			names = append(names, n)
		}
		slices.Sort(names)
		return Series{}, errorf("series %s: no run has figure %q; they have %s", sc, figure, strings.Join(names, ", "))
	}
	return s, nil
}
