package charts

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/daprperf/daprperf/perf"
)

// spectrumPoints is the number of points of each percentile-spectrum line.
const spectrumPoints = 160

// percentileTicks label a percentile axis drawn as x = 1/(1-p): x = 2 is p50, 10 is p90,
// 100 is p99, 1000 is p99.9, 10000 is p99.99; p75 (x = 4) is a minor tick.
type percentileTicks struct{}

// Ticks implements plot.Ticker.
func (percentileTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range []struct {
		x     float64
		label string
	}{{1, "p0"}, {2, "p50"}, {4, "p75"}, {10, "p90"}, {100, "p99"}, {1000, "p99.9"}, {1e4, "p99.99"}, {1e5, "p99.999"}} {
		if t.x >= lo*(1-1e-9) && t.x <= hi*(1+1e-9) {
			label := t.label
			if t.x == 4 {
				label = "" // minor
			}
			out = append(out, plot.Tick{Value: t.x, Label: label})
		}
	}
	return out
}

// percentileX is the x position of percentile p (0 <= p < 100) on a spectrum axis: 1/(1-p/100).
func percentileX(p float64) float64 { return 1 / (1 - p/100) }

// spectrumMaxX is the largest x of a spectrum over n requests: the decade at which at least 10
// requests lie above the percentile (n/10), at least 100 (p99) and at most 1e5 (p99.999).
func spectrumMaxX(n int64) float64 {
	if n < 1000 {
		return 100
	}
	return math.Min(1e5, math.Pow(10, math.Floor(math.Log10(float64(n)/10))))
}

// spectrum is a result's service time against percentile, from its stored HDR histogram at
// spectrumPoints percentiles up to maxX, or (an older file without one) at its stored
// percentiles. Seconds; nil when neither is there.
func spectrum(r *perf.Result, maxX float64) plotter.XYs {
	if h, err := r.Latency.Histogram(); err == nil && h.Count() > 0 {
		xys := make(plotter.XYs, 0, spectrumPoints)
		for i := range spectrumPoints {
			x := math.Pow(maxX, float64(i)/float64(spectrumPoints-1))
			p := 100 * (1 - 1/x)
			xys = append(xys, plotter.XY{X: x, Y: h.Percentile(p).Seconds()})
		}
		return xys
	}
	var xys plotter.XYs
	for _, q := range r.Latency.Percentiles {
		if x := percentileX(q.P); x <= maxX*(1+1e-9) {
			xys = append(xys, plotter.XY{X: x, Y: q.Seconds})
		}
	}
	return xys
}

// medianLine is, at each x, the median over lines (all of one length and the same xs).
func medianLine(lines []plotter.XYs) plotter.XYs {
	if len(lines) == 0 {
		return nil
	}
	out := make(plotter.XYs, len(lines[0]))
	for i := range out {
		ys := make([]float64, 0, len(lines))
		for _, l := range lines {
			if i < len(l) {
				ys = append(ys, l[i].Y)
			}
		}
		out[i] = plotter.XY{X: lines[0][i].X, Y: median(ys)}
	}
	return out
}

// latencyChart: the service-time percentile spectrum of baseline and main, with x = 1/(1-p)
// on a log scale (p50, p90, p99, p99.9 evenly spaced, as HdrHistogram plots it): one faint line
// per round and a bold line for the median over rounds.
func latencyChart(rep *perf.Report) (*figure, error) {
	var n int64
	for _, rd := range rep.Rounds {
		n = max(n, rd.Baseline.Requests, rd.Main.Requests)
	}
	maxX := spectrumMaxX(n)
	type phase struct {
		name  string
		c     color.Color
		lines []plotter.XYs
	}
	phases := []*phase{{name: baselineName, c: baselineColor}, {name: mainName, c: mainColor}}
	var largest float64
	for _, rd := range rep.Rounds {
		for i, r := range []*perf.Result{&rd.Baseline, &rd.Main} {
			xys := spectrum(r, maxX)
			if len(xys) < 2 {
				continue
			}
			for _, xy := range xys {
				largest = max(largest, xy.Y)
			}
			phases[i].lines = append(phases[i].lines, xys)
		}
	}
	if len(phases[0].lines) == 0 && len(phases[1].lines) == 0 {
		return nil, nil
	}
	u := latencyUnit(largest)
	what := "median of " + plural(len(rep.Rounds), "round")
	if len(rep.Rounds) > 1 {
		what += " (bold), each round faint"
	}
	minX := math.Inf(1)
	for _, ph := range phases {
		for _, l := range ph.lines {
			minX = min(minX, l[0].X)
		}
	}
	if minX > 1 {
		what += "; from the stored percentiles (no histogram in this file)"
	}
	fig := newFigure(fmt.Sprintf("%s: service time by percentile, %s", heading(rep), what))
	fig.Plot.X.Scale = plot.LogScale{}
	fig.Plot.X.Tick.Marker = percentileTicks{}
	fig.Plot.X.Label.Text = "percentile (axis: 1/(1-p), log scale)"
	fig.Plot.Y.Label.Text = "service time (" + u.Name + ")"
	fig.Plot.Y.Min = 0
	for _, ph := range phases {
		if len(ph.lines) == 0 {
			continue
		}
		if len(ph.lines) > 1 {
			for _, l := range ph.lines {
				line, err := plotter.NewLine(scaledXYs(l, u))
				if err != nil {
					return nil, err
				}
				line.Color, line.Width = withAlpha(ph.c, 0x60), vg.Points(1)
				fig.add("", line)
			}
		}
		line, err := plotter.NewLine(scaledXYs(medianLine(ph.lines), u))
		if err != nil {
			return nil, err
		}
		line.Color, line.Width = ph.c, vg.Points(2.5)
		if ph.c == baselineColor {
			line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)} // told apart without colour too
		}
		fig.add(ph.name, line)
	}
	fig.Plot.X.Min, fig.Plot.X.Max = minX, maxX
	return markInvalid(fig, rep), nil
}

// scaledXYs converts the y values of xys from seconds to u.
func scaledXYs(xys plotter.XYs, u unit) plotter.XYs {
	out := make(plotter.XYs, len(xys))
	for i, xy := range xys {
		out[i] = plotter.XY{X: xy.X, Y: xy.Y * u.PerSecond}
	}
	return out
}
