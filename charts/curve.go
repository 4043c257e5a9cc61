package charts

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// curveChart: a cost curve run against the offered rate. Above, the latency through both
// sidecars, the medians over each rate's rounds of service-time p50, p90 and p99 and of
// response-time p99, on a log axis (past the knee it grows by orders of magnitude), with the
// bound and the highest rate the searches found within it. Below, each process's CPU per
// request (µs of one core), the median over the rounds with its interval.
func curveChart(rep *perf.Report) (*figure, error) {
	pts := report.CurvePoints(rep)
	if len(pts) == 0 {
		return nil, nil
	}
	c := rep.Curve
	title := fmt.Sprintf("%s: latency through both sidecars against the offered rate (log axis), bound response-time p99 ≤ %.1f ms", heading(rep), 1e3*c.Bound.P99Seconds)
	_, highest, spread, found := report.CurveHighest(c)
	if found {
		title += fmt.Sprintf("; highest rate within it %.0f/s (%d searches, spread %.1f %%)", highest, len(c.Searches), 100*spread)
	}
	fig := twoPanel(title, "CPU per request of each process (µs of one core): median over the rate's rounds, with its interval")
	fig.Plot.X.Label.Text = "offered rate (requests/s)"
	fig.Plot.Y.Label.Text = "latency (ms, log)"
	fig.Plot.Y.Scale, fig.Plot.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	fig.Below.X.Label.Text = "offered rate (requests/s)"
	fig.Below.Y.Label.Text = "CPU per request (µs)"
	fig.Below.Y.Min = 0

	lines := []struct {
		name string
		get  func(report.CurvePoint) float64
		dash bool
	}{
		{"service p50", func(p report.CurvePoint) float64 { return p.P50 }, false},
		{"service p90", func(p report.CurvePoint) float64 { return p.P90 }, false},
		{"service p99", func(p report.CurvePoint) float64 { return p.P99 }, false},
		{"response p99 (bounded)", func(p report.CurvePoint) float64 { return p.ResponseP99 }, true},
	}
	lo, hi := math.Inf(1), 0.0
	for i, l := range lines {
		var xys plotter.XYs
		for _, p := range pts {
			if v := l.get(p); v > 0 {
				xys = append(xys, plotter.XY{X: float64(p.OfferedQPS), Y: 1e3 * v})
				lo, hi = min(lo, 1e3*v), max(hi, 1e3*v)
			}
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = seriesColor(i), seriesColor(i)
		points.Shape = draw.CircleGlyph{}
		if l.dash {
			line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		}
		fig.add(l.name, line)
		fig.Plot.Add(points)
		fig.Layers = append(fig.Layers, points)
	}
	if hi == 0 {
		return nil, nil
	}
	x0, x1 := float64(pts[0].OfferedQPS), float64(pts[len(pts)-1].OfferedQPS)
	bound := 1e3 * c.Bound.P99Seconds
	if err := addSegment(fig, "bound", plotter.XYs{{X: x0, Y: bound}, {X: x1, Y: bound}}); err != nil {
		return nil, err
	}
	if found {
		if err := addSegment(fig, fmt.Sprintf("highest rate within the bound, %.0f/s", highest), plotter.XYs{{X: highest, Y: min(lo, bound) / 1.5}, {X: highest, Y: max(hi, bound) * 1.5}}); err != nil {
			return nil, err
		}
	}
	fig.Plot.Y.Min, fig.Plot.Y.Max = min(lo, bound)/1.5, max(hi, bound)*3

	var procs []string // in the order they first appear
	for _, p := range pts {
		for _, cp := range p.CPU {
			if !slices.Contains(procs, cp.Process) {
				procs = append(procs, cp.Process)
			}
		}
	}
	topCPU := 0.0
	for i, proc := range procs {
		var xys plotter.XYs
		var errs plotter.YErrors
		name := proc
		for _, p := range pts {
			for _, cp := range p.CPU {
				if cp.Process == proc {
					name = cp.Role + " (" + cp.Process + ")"
					xys = append(xys, plotter.XY{X: float64(p.OfferedQPS), Y: cp.Micros()})
					topCPU = max(topCPU, 1e6*cp.High)
					errs = append(errs, struct{ Low, High float64 }{max(0, cp.Seconds-cp.Low) * 1e6, max(0, cp.High-cp.Seconds) * 1e6})
				}
			}
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = seriesColor(i+4), seriesColor(i+4)
		fig.addBelow(name, line)
		fig.Below.Add(points)
		bars := &plotter.YErrorBars{XYs: xys, YErrors: errs, LineStyle: draw.LineStyle{Color: seriesColor(i + 4), Width: vg.Points(1)}, CapWidth: vg.Points(6)}
		fig.Below.Add(bars)
		fig.BelowLayers = append(fig.BelowLayers, points, bars)
	}
	fig.Below.Y.Max = 1.1 * topCPU
	return markInvalid(fig, rep), nil
}

// addSegment draws a dashed line in the bound's colour with a legend entry.
func addSegment(fig *figure, name string, xys plotter.XYs) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.Color, l.Width, l.Dashes = boundColor, vg.Points(2), []vg.Length{vg.Points(8), vg.Points(4)}
	if name != "bound" {
		l.Color = color.Gray{Y: 0x60}
	}
	fig.add(name, l)
	return nil
}
