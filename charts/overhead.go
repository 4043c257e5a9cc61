package charts

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/daprperf/daprperf/perf"
)

// overheadChart: per percentile, the overhead of every round as a dot, the median over rounds
// as a bar-less marker with its interval where the report has one, and each overhead bound of
// the run's thresholds as a line across its percentile.
func overheadChart(rep *perf.Report) (*figure, error) {
	var (
		names   []string
		ovs     []perf.Overhead
		largest float64
	)
	for _, o := range rep.Overhead {
		if o.Figure == "mean" {
			continue
		}
		names = append(names, o.Figure)
		ovs = append(ovs, o)
		largest = max(largest, math.Abs(o.MedianSeconds), math.Abs(o.LowSeconds), math.Abs(o.HighSeconds))
		for _, d := range o.PerRoundSeconds {
			largest = max(largest, math.Abs(d))
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	type bound struct {
		x float64
		v perf.Verdict
	}
	var bounds []bound
	for _, v := range rep.Verdicts {
		fig, ok := strings.CutPrefix(v.Figure, "overhead.")
		if !ok {
			continue
		}
		if i := slices.Index(names, fig); i >= 0 {
			bounds = append(bounds, bound{x: float64(i), v: v})
			largest = max(largest, math.Abs(v.Limit))
		}
	}
	u := latencyUnit(largest)
	note := "single run: no interval"
	var withIv []perf.Overhead
	var ivX []float64
	for i, o := range ovs {
		if o.HasInterval {
			withIv = append(withIv, o)
			ivX = append(ivX, float64(i))
		}
	}
	if len(withIv) > 0 {
		note = fmt.Sprintf("%s, median and %s", plural(len(rep.Rounds), "round"), withIv[0].IntervalLabel())
	}
	fig := newFigure(fmt.Sprintf("%s: sidecar overhead per percentile, %s", heading(rep), note))
	fig.Plot.Y.Label.Text = "overhead, main minus baseline (" + u.Name + ")"

	var dots plotter.XYs
	for i, o := range ovs {
		k := len(o.PerRoundSeconds)
		for j, d := range o.PerRoundSeconds {
			off := 0.0
			if k > 1 {
				off = -0.15 + 0.3*float64(j)/float64(k-1) // rounds side by side, in order
			}
			dots = append(dots, plotter.XY{X: float64(i) + off, Y: d * u.PerSecond})
		}
	}
	if len(dots) > 0 && len(rep.Rounds) > 1 { // with one round the dot is the median
		sc, err := plotter.NewScatter(dots)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: mainColor, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
		fig.add("each round", sc)
	}
	med := make(plotter.XYs, len(ovs))
	for i, o := range ovs {
		med[i] = plotter.XY{X: float64(i), Y: o.MedianSeconds * u.PerSecond}
	}
	msc, err := plotter.NewScatter(med)
	if err != nil {
		return nil, err
	}
	msc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5), Shape: draw.BoxGlyph{}}
	fig.add("median over rounds", msc)
	if len(withIv) > 0 {
		fig.add("", intervalBars(ivX, withIv, u))
	}
	for _, b := range bounds {
		seg, err := plotter.NewLine(plotter.XYs{{X: b.x - 0.45, Y: b.v.Limit * u.PerSecond}, {X: b.x + 0.45, Y: b.v.Limit * u.PerSecond}})
		if err != nil {
			return nil, err
		}
		seg.Color, seg.Width, seg.Dashes = boundColor, vg.Points(2.5), []vg.Length{vg.Points(8), vg.Points(4)}
		state := "pass"
		switch {
		case !b.v.Pass && b.v.WarnOnly:
			state = "missed, warn only"
		case !b.v.Pass:
			state = "FAIL"
		}
		fig.add(fmt.Sprintf("bound: %s %s %.3g %s (%s): %s", b.v.Figure, opText(b.v.Op), b.v.Limit*u.PerSecond, u.Name, b.v.Source, state), seg)
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 0}, {X: float64(len(names)) - 0.5, Y: 0}})
	if err != nil {
		return nil, err
	}
	zero.Color, zero.Width = color.Gray{Y: 0x80}, vg.Points(0.75)
	fig.add("", zero)
	nominalX(fig.Plot, names)
	return markInvalid(fig, rep), nil
}

// opText is "≤", "≥", "<" or ">" for a threshold's operator.
func opText(op perf.Op) string {
	switch op {
	case perf.AtLeast:
		return "≥"
	case perf.Below:
		return "<"
	case perf.Above:
		return ">"
	}
	return "≤"
}

// intervalBars draws [Low, High] of each overhead around its median at xs.
func intervalBars(xs []float64, ovs []perf.Overhead, u unit) *plotter.YErrorBars {
	e := &plotter.YErrorBars{
		XYs:       make(plotter.XYs, len(ovs)),
		YErrors:   make(plotter.YErrors, len(ovs)),
		LineStyle: draw.LineStyle{Color: color.Black, Width: vg.Points(1.5)},
		CapWidth:  vg.Points(10),
	}
	for i, o := range ovs {
		e.XYs[i] = plotter.XY{X: xs[i], Y: o.MedianSeconds * u.PerSecond}
		// YErrorBars takes distances from the median; a bound on the wrong side of it (which an
		// interval of the median never gives) is drawn at the median.
		e.YErrors[i].Low = max(0, o.MedianSeconds-o.LowSeconds) * u.PerSecond
		e.YErrors[i].High = max(0, o.HighSeconds-o.MedianSeconds) * u.PerSecond
	}
	return e
}

// closedLoopRateChart: the rate a closed loop reached in each round's baseline and main phase,
// requests/s. A closed loop has no target rate, so there is no ratio to a target and no schedule
// to fall behind.
func closedLoopRateChart(rep *perf.Report) (*figure, error) {
	fig := newFigure(fmt.Sprintf("%s: rate reached per round (closed loop: no target rate, no schedule)", heading(rep)))
	fig.Plot.Y.Label.Text = "achieved rate (requests/s)"
	fig.Plot.X.Label.Text = "round"
	fig.Plot.Y.Min = 0
	fig.Plot.X.Min, fig.Plot.X.Max = 0.5, float64(len(rep.Rounds))+0.5
	fig.Plot.X.Tick.Marker = roundTicks(len(rep.Rounds))
	top := 0.0
	for k, name := range []string{"baseline", "main"} {
		var xys plotter.XYs
		for i, rd := range rep.Rounds {
			r := [2]perf.Result{rd.Baseline, rd.Main}[k]
			xys = append(xys, plotter.XY{X: float64(i+1) + 0.06*float64(2*k-1), Y: r.ActualQPS})
			top = max(top, r.ActualQPS)
		}
		line, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		c := []color.Color{baselineColor, mainColor}[k]
		line.Color, pts.Color, pts.Radius = c, c, vg.Points(4)
		fig.add(name, line)
		fig.add("", pts)
	}
	fig.Plot.Y.Max = top * 1.3
	return markInvalid(fig, rep), nil
}
