package charts

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// fixedRate reports whether l ran at a target rate (fortio's fixed-rate load), not a closed
// loop of the driver.
func fixedRate(l *perf.NamedLoad) bool {
	return l.RequestedQPS > 0 && !l.Params.Executor.ClosedLoop() && l.Executor == nil
}

// loadsRateChart: the rate each load kept. When every load ran at a target rate (the stage
// plan, the delivery plan's publish), two panels as the QPS chart: the achieved rate as a share
// of the planned one, against the validity line (99 %), and the share of the schedule not kept,
// against its line (1 %). Otherwise (closed loops: the iterations and fault plans) the achieved
// rate of each load as a bar labelled with its value and, for the iterations plan, the
// iterations done of those planned; a load that also had a target gets it drawn as a dashed
// segment.
func loadsRateChart(rep *perf.Report) (*figure, error) {
	if !namedLoads(rep) {
		return nil, nil
	}
	all := true
	for i := range rep.Loads {
		all = all && fixedRate(&rep.Loads[i])
	}
	if all {
		return loadsScheduleChart(rep)
	}
	word := loadWord(rep)
	rate := report.KindOf(rep).Rate()
	unitName, iterWord, what := rate.Unit, rate.Count, rate.What
	fig := newFigure(fmt.Sprintf("%s: %s per %s", heading(rep), what, word))
	fig.Plot.Y.Label.Text = unitName
	fig.Plot.Y.Min = 0
	vals := make([]float64, len(rep.Loads))
	names := make([]string, len(rep.Loads))
	var labels plotter.XYLabels
	largest := 0.0
	var targets []int
	for i := range rep.Loads {
		l := &rep.Loads[i]
		vals[i] = l.ActualQPS
		largest = max(largest, l.ActualQPS, l.RequestedQPS)
		names[i] = wrapName(l.Name, 14)
		label := fmtNum(l.ActualQPS) + "/s"
		if e := l.Executor; e != nil {
			if e.Scheduled > 0 {
				label += fmt.Sprintf("\n%s of %s %s", fmtCount(l.Requests), fmtCount(e.Scheduled), iterWord)
			} else {
				label += fmt.Sprintf("\n%s %s", fmtCount(l.Requests), iterWord)
			}
		}
		if fixedRate(l) {
			targets = append(targets, i)
			label += fmt.Sprintf("\nof %.0f/s", l.RequestedQPS)
		}
		if n := l.Errors(); n > 0 {
			label += "\n" + fmtCount(n) + " failed"
		}
		labels.XYs = append(labels.XYs, plotter.XY{X: float64(i), Y: l.ActualQPS})
		labels.Labels = append(labels.Labels, label)
	}
	fig.add("", groupedBars(vals, 0, 1, translucent(mainColor)))
	for _, i := range targets {
		y := rep.Loads[i].RequestedQPS
		seg, err := plotter.NewLine(plotter.XYs{{X: float64(i) - 0.45, Y: y}, {X: float64(i) + 0.45, Y: y}})
		if err != nil {
			return nil, err
		}
		seg.Color, seg.Width, seg.Dashes = boundColor, vg.Points(2.5), []vg.Length{vg.Points(6), vg.Points(3)}
		name := ""
		if i == targets[0] {
			name = "target rate"
		}
		fig.add(name, seg)
	}
	lbl, err := barLabels(labels, draw.YBottom, 9, 3)
	if err != nil {
		return nil, err
	}
	fig.add("", lbl)
	nominalX(fig.Plot, names)
	fig.Plot.X.Label.Text = word + " (in run order)"
	fig.Plot.Y.Max = max(largest, 1e-9) * 1.3 // room for the labels above the bars
	if len(rep.Loads) > 6 {
		fig.Width = max(chartWidth, 100*len(rep.Loads)+120)
	}
	return markInvalid(fig, rep), nil
}

// loadsScheduleChart is loadsRateChart for loads that all ran at a target rate: per load the
// achieved rate over the target and the share of the schedule not kept, each against its
// validity line. Validity judges the rate against the requests fortio planned, with the last
// request's own time allowed for (perf.Result.KeptQPSRatio: up to connections / (QPS x
// duration) below the target for a short, slow load, and duration / (duration + service time)
// for slow requests), so a load at or above the 99 % line is valid and one just below it may be.
func loadsScheduleChart(rep *perf.Report) (*figure, error) {
	var ratio, behind plotter.XYs
	lowest, highest, top := 100.0, 0.0, 100.0
	var labels plotter.XYLabels
	for i := range rep.Loads {
		l := &rep.Loads[i]
		q := 100 * l.QPSRatio()
		b := 100 * l.Schedule.BehindFraction()
		ratio = append(ratio, plotter.XY{X: float64(i), Y: q})
		behind = append(behind, plotter.XY{X: float64(i), Y: b})
		lowest, highest, top = min(lowest, q), max(highest, b), max(top, q)
		labels.XYs = append(labels.XYs, plotter.XY{X: float64(i), Y: q})
		labels.Labels = append(labels.Labels, fmt.Sprintf("%.4g of %.0f/s", l.ActualQPS, l.RequestedQPS))
	}
	word := loadWord(rep)
	fig := newFigure(fmt.Sprintf("%s: load kept per %s, achieved / target rate", heading(rep), word))
	upper := fig.Plot
	upper.Y.Label.Text = "achieved / target (%)"
	upper.Y.Min, upper.Y.Max = math.Min(98, math.Floor(lowest-0.5)), top+0.8
	bottom := plot.New()
	bottom.Add(plotter.NewGrid())
	bottom.Title.Text = "share of the schedule not kept (skipped or late)"
	bottom.Y.Label.Text = "behind schedule (%)"
	bottom.Y.Min, bottom.Y.Max = 0, math.Max(1.5, highest*1.15)
	fig.Below = bottom
	n := float64(len(rep.Loads))
	names := make([]string, len(rep.Loads))
	for i, l := range rep.Loads {
		names[i] = wrapName(l.Name, 14)
	}
	for _, p := range []*plot.Plot{upper, bottom} {
		nominalX(p, names)
	}
	bottom.X.Label.Text = word + " (in run order)"
	for pi, xys := range []plotter.XYs{ratio, behind} {
		line, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		line.Color, line.Width = mainColor, vg.Points(1.5)
		pts.Color, pts.Shape, pts.Radius = mainColor, draw.CircleGlyph{}, vg.Points(4)
		if pi == 0 {
			fig.add("achieved / target", line)
			fig.add("", pts)
		} else {
			fig.addBelow("behind schedule", line)
			fig.addBelow("", pts)
		}
	}
	lbl, err := barLabels(labels, draw.YTop, 8, -5)
	if err != nil {
		return nil, err
	}
	fig.add("", lbl)
	if err := fig.addValidityLines(-0.5, n-0.5, "valid from 99 % (of the planned requests)"); err != nil {
		return nil, err
	}
	if len(rep.Loads) > 6 {
		fig.Width = max(chartWidth, 100*len(rep.Loads)+120)
	}
	fig.Height = chartHeight + 100
	return markInvalid(fig, rep), nil
}

// loadsSpectrumChart: each load's service time (or iteration duration) against percentile,
// on the percentile axis of the latency chart (x = 1/(1-p), log scale), one line per load from
// its HDR histogram, up to the percentile its request count supports (p = 1 - 1/n for n
// requests, at most spectrumMaxX).
func loadsSpectrumChart(rep *perf.Report) (*figure, error) {
	if !namedLoads(rep) {
		return nil, nil
	}
	var n int64
	for _, l := range rep.Loads {
		n = max(n, l.Requests)
	}
	maxX := spectrumMaxX(n)
	type line struct {
		name string
		xys  plotter.XYs
	}
	var ls []line
	largest := 0.0
	for i := range rep.Loads {
		l := &rep.Loads[i]
		if l.Requests == 0 {
			continue
		}
		// Up to x = n, p = 1 - 1/n: beyond it every percentile is the slowest request.
		xys := spectrum(&l.Result, max(2, min(spectrumMaxX(l.Requests), float64(l.Requests))))
		if len(xys) < 2 {
			continue
		}
		for _, xy := range xys {
			largest = max(largest, xy.Y)
		}
		ls = append(ls, line{l.Name, xys})
	}
	if len(ls) == 0 {
		return nil, nil
	}
	u := latencyUnit(largest)
	fig := newFigure(fmt.Sprintf("%s: %s by percentile, one line per %s (log axis of 1/(1-p))", heading(rep), latencyWhat(rep), loadWord(rep)))
	fig.Plot.X.Scale = plot.LogScale{}
	fig.Plot.X.Tick.Marker = percentileTicks{}
	fig.Plot.X.Label.Text = "percentile (axis: 1/(1-p), log scale); each line ends where its requests run out"
	fig.Plot.Y.Label.Text = latencyAxis(rep) + " (" + u.Name + ")"
	fig.Plot.Y.Min = 0
	for i, l := range ls {
		pl, err := plotter.NewLine(scaledXYs(l.xys, u))
		if err != nil {
			return nil, err
		}
		pl.Color, pl.Width = seriesColor(i), vg.Points(2)
		if i%2 == 1 || i >= len(okabeIto) {
			pl.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		}
		fig.add(l.name, pl)
	}
	end := 10.0 // at least to p90
	for _, l := range ls {
		end = max(end, l.xys[len(l.xys)-1].X)
	}
	fig.Plot.X.Min, fig.Plot.X.Max = 1, min(maxX, end)
	return markInvalid(fig, rep), nil
}

// fmtNum writes a chart label's figure: three significant digits below 1,000 ("51.7",
// "0.9995"), whole with thousands separators from there ("1,590").
func fmtNum(x float64) string {
	if math.Abs(x) >= 1000 {
		return fmtCount(int64(math.Round(x)))
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}
