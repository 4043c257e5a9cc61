package charts

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// timedPhase is one measured load on the run's clock: its legend name, colour and result.
type timedPhase struct {
	name string
	c    color.Color
	r    *perf.Result
}

// timedPhases are the report's loads with a timeline, in order: each round's baseline (blue)
// and main (orange), or each group of named loads (loadGroup: a variant's rounds, a search's
// steps) in a colour of its own, named for the group with its count of loads. A load shared by
// several testers is drawn once per tester, in the load's colour, with each tester's own share.
func timedPhases(rep *perf.Report) []timedPhase {
	var out []timedPhase
	for i := range rep.Rounds {
		rd := &rep.Rounds[i]
		out = append(out, timedPhase{baselineName, baselineColor, &rd.Baseline}, timedPhase{mainName, mainColor, &rd.Main})
	}
	var groups []string
	group := make([]string, len(rep.Loads))
	count := map[string]int{}
	for i, l := range rep.Loads {
		g := loadGroup(l.Name)
		if count[g] == 0 {
			groups = append(groups, g)
		}
		group[i] = g
		count[g]++
	}
	for i := range rep.Loads {
		g := group[i]
		name := g
		if count[g] > 1 {
			name = fmt.Sprintf("%s (%d loads)", g, count[g])
		}
		out = append(out, timedPhase{name, seriesColor(slices.Index(groups, g)), &rep.Loads[i].Result})
	}
	var kept []timedPhase
	for _, ph := range out {
		if len(ph.r.Timeline) > 0 {
			kept = append(kept, ph)
		}
		if len(ph.r.Timeline) == 0 { // several testers: per-second percentiles do not merge, so each is drawn
			for i := range ph.r.Testers {
				if len(ph.r.Testers[i].Timeline) > 0 {
					kept = append(kept, timedPhase{ph.name, ph.c, &ph.r.Testers[i]})
				}
			}
		}
	}
	return kept
}

// timelineChart: the run second by second, every phase on the run's clock (seconds since the
// first phase started, so warmups and idle windows are gaps). Top: the service time's p50
// (solid) and p99 (dashed) of each second's answers; below: answers per second, with the target
// rate, and the legend. A phase's last second is drawn only if it is whole, since a partial second is no rate.
// Nil when no phase has a timeline (older files).
func timelineChart(rep *perf.Report) (*figure, error) {
	phases := timedPhases(rep)
	if len(phases) == 0 {
		return nil, nil
	}
	t0 := phases[0].r.StartTime
	for _, ph := range phases {
		if ph.r.StartTime.Before(t0) {
			t0 = ph.r.StartTime
		}
	}
	var largest, end float64
	for _, ph := range phases {
		for _, s := range ph.r.Timeline {
			largest = max(largest, s.P99Seconds)
		}
		end = max(end, ph.r.StartTime.Sub(t0).Seconds()+float64(len(ph.r.Timeline)))
	}
	u := latencyUnit(largest)
	kind := "each phase"
	if len(rep.Rounds) > 0 {
		kind = "baseline and main, " + plural(len(rep.Rounds), "round")
	}
	fig := newFigure(fmt.Sprintf("%s: second by second, %s: service time p50 (solid) and p99 (dashed); answers per second", heading(rep), kind))
	top := fig.Plot
	top.Y.Label.Text = "service time (" + u.Name + ")"
	top.Y.Min, top.Y.Max = 0, largest*u.PerSecond*1.1
	bottom := plot.New()
	bottom.Add(plotter.NewGrid())
	bottom.X.Label.Text = "seconds since the first phase started"
	bottom.Y.Label.Text = "answers per second"
	bottom.Y.Min = 0
	fig.Below = bottom
	bottom.Y.Tick.Marker = readableTicks{}
	for _, p := range []*plot.Plot{top, bottom} {
		p.X.Min, p.X.Max = 0, math.Max(end, 1)
		p.X.Tick.Marker = readableTicks{}
	}
	named := map[string]bool{}
	var highest float64
	for _, ph := range phases {
		off := ph.r.StartTime.Sub(t0).Seconds()
		var p50, p99, rate plotter.XYs
		whole := ph.r.ActualDuration.Seconds()
		for _, s := range ph.r.Timeline {
			x := off + float64(s.T) + 0.5 // the middle of the second
			if s.Requests > 0 {
				p50 = append(p50, plotter.XY{X: x, Y: s.P50Seconds * u.PerSecond})
				p99 = append(p99, plotter.XY{X: x, Y: s.P99Seconds * u.PerSecond})
			}
			if float64(s.T+1) <= whole+1e-9 {
				rate = append(rate, plotter.XY{X: x, Y: float64(s.Requests)})
				highest = max(highest, float64(s.Requests))
			}
		}
		legend := ""
		if !named[ph.name] {
			legend, named[ph.name] = ph.name, true
		}
		for i, xys := range []plotter.XYs{p50, p99} {
			if len(xys) == 0 {
				continue
			}
			line, err := plotter.NewLine(xys)
			if err != nil {
				return nil, err
			}
			line.Color, line.Width = ph.c, vg.Points(2)
			if i == 1 {
				line.Dashes, line.Width = []vg.Length{vg.Points(5), vg.Points(3)}, vg.Points(1.5)
			}
			fig.add("", line)
		}
		if len(rate) > 0 {
			line, pts, err := plotter.NewLinePoints(rate)
			if err != nil {
				return nil, err
			}
			line.Color, line.Width = ph.c, vg.Points(1.5)
			pts.Color, pts.Radius = ph.c, vg.Points(2)
			fig.addBelow(legend, line)
			fig.addBelow("", pts)
		}
		if q := ph.r.RequestedQPS; q > 0 {
			target, err := plotter.NewLine(plotter.XYs{{X: off, Y: q}, {X: off + whole, Y: q}})
			if err != nil {
				return nil, err
			}
			target.Color, target.Width, target.Dashes = boundColor, vg.Points(1), []vg.Length{vg.Points(2), vg.Points(2)}
			name := ""
			if !named["target"] {
				name, named["target"] = "target rate", true
			}
			fig.addBelow(name, target)
			highest = max(highest, q)
		}
	}
	// The legend is below the panels (figure.drawLegend): the axis need only hold the rates.
	bottom.Y.Max = math.Max(highest*1.1, 1)
	if x0, x1, ok := faultWindow(rep, t0); ok {
		for i, p := range []*plot.Plot{top, bottom} {
			y1 := p.Y.Max
			shade, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: x1, Y: 0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
			if err != nil {
				return nil, err
			}
			shade.Color, shade.LineStyle.Width = withAlpha(boundColor, 0x30), 0
			if i == 0 {
				fig.add(fmt.Sprintf("fault window, %s on %s", rep.Faults.Window, rep.Faults.Target), shade)
			} else {
				fig.addBelow("", shade)
			}
		}
	}
	top.X.Label.Text = ""
	return markInvalid(fig, rep), nil
}

// faultWindow is the injected fault's window on the timeline's clock (seconds since t0): it
// opens as the load named "faults" starts and lasts FaultReport.Window. false for a run
// without a fault or that load.
func faultWindow(rep *perf.Report, t0 time.Time) (x0, x1 float64, ok bool) {
	if rep.Faults == nil || rep.Faults.Window <= 0 {
		return 0, 0, false
	}
	for i := range rep.Loads {
		if rep.Loads[i].Name == "faults" {
			x0 = rep.Loads[i].StartTime.Sub(t0).Seconds()
			return x0, x0 + rep.Faults.Window.Seconds(), true
		}
	}
	return 0, 0, false
}

// timelineCharts are the scenario charts that draw a run second by second.
func timelineCharts() []chartSpec {
	var out []chartSpec
	for _, spec := range scenarioCharts() {
		if spec.timeline {
			out = append(out, spec)
		}
	}
	return out
}

// hasTimeline says whether rep holds a second-by-second record that one of the timeline
// charts draws.
func hasTimeline(rep *perf.Report) bool {
	for _, spec := range timelineCharts() {
		if fig, err := spec.Build(rep); err == nil && fig != nil {
			return true
		}
	}
	return false
}

// noTimelineNote is the page's line for a result with no second-by-second record (a file
// written before its plan kind recorded one): "" when it has one.
func noTimelineNote(rep *perf.Report) string {
	if hasTimeline(rep) {
		return ""
	}
	return fmt.Sprintf("No timeline: this result holds no second-by-second record of its loads (daprperf %s wrote it before the %s plan recorded one); a new run of the scenario draws it.",
		orNone(shortHash(rep.Environment.DaprperfCommit)), report.KindOf(rep).Name())
}

// shortHash is a commit's first 12 hex digits, as git's short form prints it.
func shortHash(commit string) string { return commit[:min(len(commit), 12)] }
