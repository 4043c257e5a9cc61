package charts

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// The charts of plans whose results are a list of named loads (perf.Report.Loads, no
// baseline/main rounds): the stage plan (one load per k6 stage), the iterations plan (one per
// shared-iterations run), the fault plan (base, faults), the reminder plan (its registration
// loads) and the delivery plan (its one publish load). The growth and curve plans have Loads
// too, but their figures are drawn on their own (the RSS slope, the curve), so their Kind
// leaves them out here (report.Kind.LoadsCharted).

// namedLoads reports whether rep's figures are its Loads: it has loads, no rounds, and its
// plan kind charts them.
func namedLoads(rep *perf.Report) bool {
	return len(rep.Rounds) == 0 && len(rep.Loads) > 0 && report.KindOf(rep).LoadsCharted()
}

// loadPercentiles are the percentiles drawn per load: Dapr's k6 reports give p90 and p95
// (its workflow report p50, p90, p95), and p99 is the tail this project reports everywhere.
var loadPercentiles = []float64{50, 90, 95, 99}

// loadWord names one load of rep's plan for titles and axes: "stage", "run", "phase" or "load".
func loadWord(rep *perf.Report) string { return report.KindOf(rep).LoadWord() }

// latencyWhat names what a load's latency times for rep's plan: one request's service time,
// or one iteration's whole duration (the iterations plan: one workflow, started and awaited).
func latencyWhat(rep *perf.Report) string {
	long, _ := report.KindOf(rep).LatencyWhat()
	return long
}

// latencyAxis is latencyWhat, short, for a y axis.
func latencyAxis(rep *perf.Report) string {
	_, short := report.KindOf(rep).LatencyWhat()
	return short
}

// loadBound is a verdict on one load's latency: its load's index, the statistic ("mean" or a
// percentile p) and the verdict.
type loadBound struct {
	load int
	stat string // "mean", or a percentile name "p95"
	p    float64
	v    perf.Verdict
}

// loadLatencyBounds finds the verdicts on a load's latency, by the figure names the plans
// give them: perf.StageMeanFigure ("stage.<name>.mean"), perf.RunFigurePercentile
// ("run.<name>.p95") and the fault plan's "<phase>.p95". Figures of other units (a run's
// rate) are left out.
func loadLatencyBounds(rep *perf.Report) []loadBound {
	var out []loadBound
	for _, v := range rep.Verdicts {
		for i, l := range rep.Loads {
			var stat string
			for _, prefix := range []string{"stage." + l.Name + ".", "run." + l.Name + ".", l.Name + "."} {
				if s, ok := strings.CutPrefix(v.Figure, prefix); ok {
					stat = s
					break
				}
			}
			if stat == "" {
				continue
			}
			if stat == "mean" {
				out = append(out, loadBound{load: i, stat: stat, v: v})
				break
			}
			if num, ok := strings.CutPrefix(stat, "p"); ok {
				if p, err := strconv.ParseFloat(strings.ReplaceAll(num, "_", "."), 64); err == nil && p > 0 && p < 100 {
					out = append(out, loadBound{load: i, stat: stat, p: p, v: v})
					break
				}
			}
		}
	}
	return out
}

// verdictState is "pass", "FAIL" or "missed, warn only".
func verdictState(v perf.Verdict) string {
	switch {
	case v.Pass:
		return "pass"
	case v.WarnOnly:
		return "missed, warn only"
	}
	return "FAIL"
}

// percentileStyle is the marker of percentile p in the per-load charts: colour and shape both
// differ, so the chart reads without colour too.
func percentileStyle(p float64) draw.GlyphStyle {
	switch p {
	case 50:
		return draw.GlyphStyle{Color: okabeIto[0], Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
	case 90:
		return draw.GlyphStyle{Color: okabeIto[2], Radius: vg.Points(4.5), Shape: draw.TriangleGlyph{}}
	case 95:
		return draw.GlyphStyle{Color: okabeIto[1], Radius: vg.Points(4), Shape: draw.BoxGlyph{}}
	}
	return draw.GlyphStyle{Color: okabeIto[4], Radius: vg.Points(4.5), Shape: draw.PyramidGlyph{}}
}

// loadsLatencyChart: per load (x, in run order), its service time at p50, p90, p95 and p99
// (from its HDR histogram) and its mean, joined by a thin line from p50 to p99, and every bound
// of the run's thresholds on one load's latency drawn as a dashed segment across that load; a
// load whose bound failed says so under its name. For the iterations plan the latency is one
// iteration's whole duration.
func loadsLatencyChart(rep *perf.Report) (*figure, error) {
	if !namedLoads(rep) {
		return nil, nil
	}
	type stat struct {
		ok   bool
		secs float64
	}
	vals := make([][]stat, len(rep.Loads)) // per load: loadPercentiles..., then the mean
	largest := 0.0
	drawn := false
	for i := range rep.Loads {
		l := &rep.Loads[i]
		for _, p := range loadPercentiles {
			d, err := l.Percentile(p)
			s := stat{ok: err == nil && l.Requests > 0, secs: d.Seconds()}
			vals[i] = append(vals[i], s)
			if s.ok {
				largest, drawn = max(largest, s.secs), true
			}
		}
		vals[i] = append(vals[i], stat{ok: l.Requests > 0, secs: l.Latency.AvgSeconds})
	}
	if !drawn {
		return nil, nil
	}
	bounds := loadLatencyBounds(rep)
	for _, b := range bounds {
		largest = max(largest, b.v.Limit)
	}
	u := latencyUnit(largest)
	word := loadWord(rep)
	title := fmt.Sprintf("%s: %s per %s: p50, p90, p95, p99 and mean", heading(rep), latencyWhat(rep), word)
	if len(bounds) > 0 {
		title += fmt.Sprintf(", with each %s's bound", word)
	}
	fig := newFigure(title)
	fig.Plot.Y.Label.Text = latencyAxis(rep) + " (" + u.Name + ")"
	fig.Plot.Y.Min = 0

	for i := range rep.Loads {
		var span plotter.XYs
		for k := range loadPercentiles {
			if vals[i][k].ok {
				span = append(span, plotter.XY{X: float64(i), Y: vals[i][k].secs * u.PerSecond})
			}
		}
		if len(span) > 1 {
			line, err := plotter.NewLine(plotter.XYs{span[0], span[len(span)-1]})
			if err != nil {
				return nil, err
			}
			line.Color, line.Width = color.Gray{Y: 0x90}, vg.Points(1.5)
			fig.add("", line)
		}
	}
	for k, p := range loadPercentiles {
		var xys plotter.XYs
		for i := range rep.Loads {
			if vals[i][k].ok {
				xys = append(xys, plotter.XY{X: float64(i), Y: vals[i][k].secs * u.PerSecond})
			}
		}
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = percentileStyle(p)
		fig.add(perf.PercentileName(p), sc)
	}
	var means plotter.XYs
	for i := range rep.Loads {
		if m := vals[i][len(loadPercentiles)]; m.ok {
			means = append(means, plotter.XY{X: float64(i) + 0.18, Y: m.secs * u.PerSecond})
		}
	}
	if len(means) > 0 {
		sc, err := plotter.NewScatter(means)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}
		fig.add("mean", sc)
	}

	failed := make([][]string, len(rep.Loads))
	named := map[string]bool{} // one legend entry per statistic, limit and source
	for _, b := range bounds {
		y := b.v.Limit * u.PerSecond
		seg, err := plotter.NewLine(plotter.XYs{{X: float64(b.load) - 0.4, Y: y}, {X: float64(b.load) + 0.4, Y: y}})
		if err != nil {
			return nil, err
		}
		seg.Color, seg.Width, seg.Dashes = boundColor, vg.Points(2.5), []vg.Length{vg.Points(6), vg.Points(3)}
		name := fmt.Sprintf("bound: %s %s %.4g %s (%s)", b.stat, opText(b.v.Op), y, u.Name, shorten(b.v.Source, 60))
		if named[name] {
			name = ""
		}
		named[name] = true
		fig.add(name, seg)
		if !b.v.Pass {
			failed[b.load] = append(failed[b.load], b.stat+" "+verdictState(b.v))
		}
	}
	names := make([]string, len(rep.Loads))
	for i, l := range rep.Loads {
		names[i] = wrapName(l.Name, 14)
		if len(failed[i]) > 0 {
			names[i] += "\n" + strings.Join(failed[i], ", ")
		}
	}
	nominalX(fig.Plot, names)
	fig.Plot.X.Label.Text = word + " (in run order)"
	if len(rep.Loads) > 6 {
		fig.Width = max(chartWidth, 100*len(rep.Loads)+120)
	}
	fig.Plot.Y.Max = largest * u.PerSecond * 1.08
	return markInvalid(fig, rep), nil
}
