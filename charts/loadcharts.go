package charts

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/hdr"
)

// histogramBinsPerDecade is the resolution of the histogram chart's log-x bins.
const histogramBinsPerDecade = 20

// histogramChart: the service-time distribution of the last round's baseline and main phases,
// from their stored HDR histograms, on a log latency axis: the share of requests in each of
// histogramBinsPerDecade equal bins per decade, so body and tail both show and the shares of
// a phase add up to 100 %. A phase without a stored histogram (an older result file) is left
// out.
func histogramChart(rep *perf.Report) (*figure, error) {
	if len(rep.Rounds) == 0 {
		return nil, nil
	}
	last := rep.Rounds[len(rep.Rounds)-1]
	type phase struct {
		name string
		c    color.Color
		bars []hdr.Bar
		n    int64
	}
	var phases []phase
	lo, hi := math.Inf(1), 0.0
	for i, r := range []*perf.Result{&last.Baseline, &last.Main} {
		h, err := r.Latency.Histogram()
		if err != nil || h.Count() == 0 {
			continue
		}
		ph := phase{name: []string{baselineName, mainName}[i], c: []color.Color{baselineColor, mainColor}[i], bars: h.Bars(), n: h.Count()}
		lo, hi = min(lo, max(h.Min().Seconds(), 1e-7)), max(hi, h.Max().Seconds())
		phases = append(phases, ph)
	}
	if len(phases) == 0 || hi <= 0 {
		return nil, nil
	}
	u := latencyUnit(hi)
	first := math.Floor(math.Log10(lo) * histogramBinsPerDecade)
	last10 := math.Ceil(math.Log10(hi)*histogramBinsPerDecade) + 1
	nb := int(last10 - first)
	edge := func(k int) float64 { return math.Pow(10, (first+float64(k))/histogramBinsPerDecade) }
	fig := newFigure(fmt.Sprintf("%s: service-time distribution of round %d (log scale, %d bins per decade)", heading(rep), len(rep.Rounds), histogramBinsPerDecade))
	fig.Plot.X.Scale = plot.LogScale{}
	fig.Plot.X.Tick.Marker = ticks125{}
	fig.Plot.X.Label.Text = "service time (" + u.Name + ", log scale)"
	fig.Plot.Y.Label.Text = "% of the phase's requests in the bin"
	for _, ph := range phases {
		counts := make([]int64, nb)
		for _, b := range ph.bars {
			mid := (b.From + b.To).Seconds() / 2
			k := int(math.Floor(math.Log10(max(mid, 1e-9))*histogramBinsPerDecade - first))
			counts[min(max(k, 0), nb-1)] += b.Count
		}
		bs := &bars{Fill: translucent(ph.c), Line: draw.LineStyle{Color: ph.c, Width: vg.Points(1)}}
		for k, c := range counts {
			if c == 0 {
				continue
			}
			bs.Bars = append(bs.Bars, bar{X0: edge(k) * u.PerSecond, X1: edge(k+1) * u.PerSecond, Y: float64(c) / float64(ph.n) * 100})
		}
		fig.add(ph.name, bs)
	}
	fig.Plot.X.Min, fig.Plot.X.Max = edge(0)*u.PerSecond, edge(nb)*u.PerSecond
	fig.Plot.Y.Min = 0
	return markInvalid(fig, rep), nil
}

// qpsChart: two panels over the rounds, baseline and main: the achieved rate as a share of the
// target, against the validity line (99 %, Dapr's gate), and the share of the schedule the
// generator did not keep (skipped or late), against its line (1 %).
func qpsChart(rep *perf.Report) (*figure, error) {
	if len(rep.Rounds) == 0 {
		return nil, nil
	}
	if rep.Rounds[0].Main.ClosedLoop() {
		return closedLoopRateChart(rep)
	}
	var ratio, behind [2]plotter.XYs
	lowest, highest := 100.0, 0.0
	for i, rd := range rep.Rounds {
		for k, r := range []perf.Result{rd.Baseline, rd.Main} {
			q := 100 * r.QPSRatio()
			b := 100 * r.Schedule.BehindFraction()
			x := float64(i+1) + 0.06*float64(2*k-1) // baseline just left, main just right of the round
			ratio[k] = append(ratio[k], plotter.XY{X: x, Y: q})
			behind[k] = append(behind[k], plotter.XY{X: x, Y: b})
			lowest, highest = min(lowest, q), max(highest, b)
		}
	}
	target := rep.Params.QPS
	if target == 0 && len(rep.Rounds) > 0 {
		target = rep.Rounds[0].Main.Params.QPS
	}
	fig := newFigure(fmt.Sprintf("%s: load kept, target %d QPS, per round", heading(rep), target))
	top := fig.Plot
	top.Y.Label.Text = "achieved / target (%)"
	top.Y.Min, top.Y.Max = math.Min(98, math.Floor(lowest-0.5)), 100.5
	bottom := plot.New()
	bottom.Add(plotter.NewGrid())
	bottom.Title.Text = "share of the schedule not kept (skipped or late)"
	bottom.X.Label.Text = "round"
	bottom.Y.Label.Text = "behind schedule (%)"
	bottom.Y.Min, bottom.Y.Max = 0, math.Max(1.5, highest*1.15)
	fig.Below = bottom
	n := float64(len(rep.Rounds))
	for _, p := range []*plot.Plot{top, bottom} {
		p.X.Min, p.X.Max = 0.5, n+0.5
		p.X.Tick.Marker = roundTicks(len(rep.Rounds))
	}
	names := []string{"baseline", "main"}
	colors := []color.Color{baselineColor, mainColor}
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}}
	for k := range 2 {
		for pi, xys := range [][2]plotter.XYs{ratio, behind} {
			line, pts, err := plotter.NewLinePoints(xys[k])
			if err != nil {
				return nil, err
			}
			line.Color, line.Width = colors[k], vg.Points(1.5)
			pts.Color, pts.Shape, pts.Radius = colors[k], shapes[k], vg.Points(4)
			if pi == 0 {
				fig.add(names[k], line)
				fig.add("", pts)
			} else {
				fig.addBelow(names[k], line)
				fig.addBelow("", pts)
			}
		}
	}
	if err := fig.addValidityLines(0.5, n+0.5, "valid from 99 % of target"); err != nil {
		return nil, err
	}
	top.X.Label.Text = ""
	return markInvalid(fig, rep), nil
}

// ticks125 labels a log axis at 1, 2 and 5 times each power of ten, with minor ticks between.
type ticks125 struct{}

// Ticks implements plot.Ticker.
func (ticks125) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	if !(lo > 0 && hi > lo) {
		return nil
	}
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', 3, 64)
			}
			out = append(out, t)
		}
	}
	return out
}

// roundTicks labels x = 1..n as rounds.
type roundTicks int

// Ticks implements plot.Ticker.
func (n roundTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for i := 1; i <= int(n); i++ {
		out = append(out, plot.Tick{Value: float64(i), Label: strconv.Itoa(i)})
	}
	return out
}
