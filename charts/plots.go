package main

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/daprperf/daprperf/perf"
)

// PNG geometry: charts are chartWidth × chartHeight pixels at dpi.
const (
	chartWidth  = 800
	chartHeight = 450
	dpi         = 96
)

// chartSpec is one chart of a scenario: its file name, its title (also the README's alt text)
// and the function that draws it from the report. Build returns a nil figure when the report
// has nothing to draw (no resources sampled, no histogram), and the chart is then left out.
type chartSpec struct {
	File, Title string
	Build       func(rep *perf.Report) (*figure, error)
}

// scenarioCharts lists the charts of a scenario directory, in README order. A new chart is
// one function and one line here.
func scenarioCharts() []chartSpec {
	return []chartSpec{
		{"latency.png", "Latency percentiles: baseline vs through Dapr", latencyChart},
		{"overhead.png", "Sidecar overhead per percentile", overheadChart},
		{"histogram.png", "Latency histogram, last round", histogramChart},
		{"qps.png", "QPS requested vs actual, per round and phase", qpsChart},
		{"cpu.png", "CPU per process, last main phase", cpuChart},
		{"rss.png", "RSS per process, last main phase", rssChart},
		{"growth.png", "Sidecar RSS over requests, per variant", growthChart},
	}
}

// writeCharts draws every chart of sc into its directory and returns the images written.
func writeCharts(sc scenario) ([]image, error) {
	var out []image
	for _, spec := range scenarioCharts() {
		fig, err := spec.Build(sc.Report)
		if err != nil {
			return nil, fmt.Errorf("charts: %s: %s: %w", sc.Path, spec.File, err)
		}
		if fig == nil {
			continue
		}
		if err := fig.writePNG(filepath.Join(sc.Dir, spec.File)); err != nil {
			return nil, err
		}
		out = append(out, image{File: spec.File, Title: spec.Title})
	}
	return out, nil
}

// figure is a plot and the plotters added to it, in order (which tests inspect), with its
// size in pixels and the number of legend entries.
type figure struct {
	Plot          *plot.Plot
	Layers        []plot.Plotter
	Width, Height int
	legend        int
}

func newFigure(title string) *figure {
	p := plot.New()
	p.Title.Text = title
	p.Legend.Top = true
	p.Y.Label.Padding = vg.Points(4)
	p.Add(plotter.NewGrid())
	return &figure{Plot: p, Width: chartWidth, Height: chartHeight}
}

// add draws pl on the figure, with a legend entry when name is set and pl can show one.
func (f *figure) add(name string, pl plot.Plotter) {
	f.Plot.Add(pl)
	f.Layers = append(f.Layers, pl)
	if th, ok := pl.(plot.Thumbnailer); ok && name != "" {
		f.Plot.Legend.Add(name, th)
		f.legend++
	}
}

// roomForLegend raises the top of the y axis so that the legend, drawn in the top right
// corner, does not hide data.
func (f *figure) roomForLegend() {
	if f.legend == 0 || f.Plot.Y.Max <= f.Plot.Y.Min {
		return
	}
	f.Plot.Y.Max += (f.Plot.Y.Max - f.Plot.Y.Min) * (0.05 + 0.07*float64(f.legend))
}

// writePNG renders the figure to path.
func (f *figure) writePNG(path string) error {
	f.roomForLegend()
	c := vgimg.NewWith(vgimg.UseWH(pixels(f.Width), pixels(f.Height)), vgimg.UseDPI(dpi))
	f.Plot.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return fmt.Errorf("charts: render %s: %w", path, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("charts: %w", err)
	}
	return nil
}

func pixels(n int) vg.Length { return vg.Length(n) * vg.Inch / dpi }

// nominalX labels the integer x positions 0..n-1 with names and frames them.
func nominalX(p *plot.Plot, names []string) {
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
}

// seriesColor is the colour of the i-th series of a chart.
func seriesColor(i int) color.Color { return plotutil.Color(i) }

// translucent is c at about half opacity, for overlapping areas.
func translucent(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x80}
}

// heading starts a chart's title: "service_invocation over gRPC".
func heading(rep *perf.Report) string { return rep.Test + " over " + transportName(rep.Transport) }

// Legend names of the two phases.
const (
	baselineName = "baseline (direct to the app)"
	mainName     = "main (through both sidecars)"
)

// latencyChart: p50 … p99.9 of baseline and main, each the median over rounds.
func latencyChart(rep *perf.Report) (*figure, error) {
	var (
		names     []string
		base, sdc []float64
		largest   float64
	)
	for _, p := range perf.OverheadPercentiles {
		b, okB := medianPercentile(baselineResults(rep), p)
		m, okM := medianPercentile(rep.MainResults(), p)
		if !okB || !okM {
			continue
		}
		names = append(names, perf.PercentileName(p))
		base = append(base, b.Seconds())
		sdc = append(sdc, m.Seconds())
		largest = max(largest, b.Seconds(), m.Seconds())
	}
	if len(names) == 0 {
		return nil, nil
	}
	u := latencyUnit(largest)
	fig := newFigure(fmt.Sprintf("%s: latency percentiles, median of %s", heading(rep), plural(len(rep.Rounds), "round")))
	fig.Plot.Y.Label.Text = "latency (" + u.Name + ")"
	fig.add(baselineName, groupedBars(scaled(base, u), 0, 2, seriesColor(0)))
	fig.add(mainName, groupedBars(scaled(sdc, u), 1, 2, seriesColor(1)))
	nominalX(fig.Plot, names)
	return fig, nil
}

// overheadChart: the median overhead per percentile, with its interval where the report has
// one.
func overheadChart(rep *perf.Report) (*figure, error) {
	var (
		names   []string
		medians []float64
		ivs     []perf.Overhead // with an interval, at x = their index in names
		ivX     []float64
		largest float64
	)
	for _, o := range rep.Overhead {
		if o.Figure == "mean" {
			continue
		}
		if o.HasInterval {
			ivs = append(ivs, o)
			ivX = append(ivX, float64(len(names)))
			largest = max(largest, math.Abs(o.LowSeconds), math.Abs(o.HighSeconds))
		}
		names = append(names, o.Figure)
		medians = append(medians, o.MedianSeconds)
		largest = max(largest, math.Abs(o.MedianSeconds))
	}
	if len(names) == 0 {
		return nil, nil
	}
	u := latencyUnit(largest)
	note := "single run: no interval"
	if len(ivs) > 0 {
		note = fmt.Sprintf("median of %d rounds, %s", len(rep.Rounds), ivs[0].IntervalLabel())
	}
	fig := newFigure(fmt.Sprintf("%s: sidecar overhead per percentile, %s", heading(rep), note))
	fig.Plot.Y.Label.Text = "overhead (" + u.Name + ")"
	fig.add("median overhead", groupedBars(scaled(medians, u), 0, 1, seriesColor(1)))
	if len(ivs) > 0 {
		fig.add("", intervalBars(ivX, ivs, u))
	}
	nominalX(fig.Plot, names)
	return fig, nil
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

// histogramBins is the number of equal-width bins of the histogram chart.
const histogramBins = 60

// histogramChart: the service-time histogram of the last round's baseline and main phases, from
// their stored HDR histograms, as the share of requests per unit of latency in equal bins up to
// the larger p99.9, so that the tail does not squash the body. A phase without a stored
// histogram (an older result file) is left out.
func histogramChart(rep *perf.Report) (*figure, error) {
	if len(rep.Rounds) == 0 {
		return nil, nil
	}
	last := rep.Rounds[len(rep.Rounds)-1]
	phases := []struct {
		name string
		r    *perf.Result
	}{{baselineName, &last.Baseline}, {mainName, &last.Main}}
	var limit float64
	for _, ph := range phases {
		if d, err := ph.r.Percentile(99.9); err == nil {
			limit = max(limit, d.Seconds())
		}
	}
	if limit == 0 {
		return nil, nil
	}
	u := latencyUnit(limit)
	fig := newFigure(fmt.Sprintf("%s: service-time histogram of round %d, up to p99.9", heading(rep), len(rep.Rounds)))
	fig.Plot.X.Label.Text = "latency (" + u.Name + ")"
	fig.Plot.Y.Label.Text = "% of requests per " + u.Name
	width := limit / histogramBins
	drawn := false
	for i, ph := range phases {
		h, err := ph.r.Latency.Histogram()
		if err != nil || h.Count() == 0 {
			continue
		}
		counts := make([]int64, histogramBins)
		for _, b := range h.Bars() {
			mid := (b.From + b.To).Seconds() / 2
			if k := int(mid / width); k < histogramBins {
				counts[k] += b.Count
			}
		}
		bs := &bars{Fill: translucent(seriesColor(i)), Line: draw.LineStyle{Color: seriesColor(i), Width: vg.Points(0.5)}}
		for k, c := range counts {
			if c == 0 {
				continue
			}
			x0, x1 := float64(k)*width*u.PerSecond, float64(k+1)*width*u.PerSecond
			bs.Bars = append(bs.Bars, bar{X0: x0, X1: x1, Y: float64(c) / float64(h.Count()) * 100 / (x1 - x0)})
		}
		fig.add(ph.name, bs)
		drawn = true
	}
	if !drawn {
		return nil, nil
	}
	fig.Plot.X.Min, fig.Plot.X.Max = 0, limit*u.PerSecond
	return fig, nil
}

// qpsChart: requested and actual QPS of each phase of each round.
func qpsChart(rep *perf.Report) (*figure, error) {
	if len(rep.Rounds) == 0 {
		return nil, nil
	}
	var names []string
	var requested, actual []float64
	for i, rd := range rep.Rounds {
		for _, ph := range []struct {
			name string
			r    perf.Result
		}{{"baseline", rd.Baseline}, {"main", rd.Main}} {
			names = append(names, fmt.Sprintf("%d %s", i+1, ph.name))
			requested = append(requested, ph.r.RequestedQPS)
			actual = append(actual, ph.r.ActualQPS)
		}
	}
	fig := newFigure(heading(rep) + ": QPS requested and actual, per round and phase")
	fig.Plot.Y.Label.Text = "requests/s"
	fig.add("requested", groupedBars(requested, 0, 2, seriesColor(2)))
	fig.add("actual", groupedBars(actual, 1, 2, seriesColor(0)))
	nominalX(fig.Plot, names)
	return fig, nil
}

// cpuChart: CPU in millicores over the last main phase, per process.
func cpuChart(rep *perf.Report) (*figure, error) {
	return resourceChart(rep, "CPU", "CPU (millicores)", func(s perf.Sample) float64 { return s.CPUCores * 1000 }, 1)
}

// rssChart: RSS in MiB over the last main phase, per process.
func rssChart(rep *perf.Report) (*figure, error) {
	return resourceChart(rep, "RSS", "RSS (MiB)", func(s perf.Sample) float64 { return float64(s.RSSBytes) / (1 << 20) }, 0)
}

// resourceChart draws value of every sample of the last round that has resources, one line
// per process, over seconds since its main phase started. skip leaves out each series' first
// samples (the first CPU reading has no interval and reads 0).
func resourceChart(rep *perf.Report, what, yLabel string, value func(perf.Sample) float64, skip int) (*figure, error) {
	round := -1
	for i := len(rep.Rounds) - 1; i >= 0; i-- {
		if len(rep.Rounds[i].Resources) > 0 {
			round = i
			break
		}
	}
	if round < 0 {
		return nil, nil
	}
	rd := rep.Rounds[round]
	start := rd.Main.StartTime
	fig := newFigure(fmt.Sprintf("%s: %s per process, main phase of round %d", heading(rep), what, round+1))
	fig.Plot.X.Label.Text = "seconds since the main phase started"
	fig.Plot.Y.Label.Text = yLabel
	fig.Plot.Y.Min = 0
	drawn := false
	for i, s := range rd.Resources {
		if len(s.Points) <= skip {
			continue
		}
		t0 := start
		if t0.IsZero() {
			t0 = s.Points[0].At
		}
		xys := make(plotter.XYs, 0, len(s.Points)-skip)
		for _, pt := range s.Points[skip:] {
			xys = append(xys, plotter.XY{X: pt.At.Sub(t0).Seconds(), Y: value(pt)})
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Process, err)
		}
		line.Color = seriesColor(i)
		line.Width = vg.Points(1.5)
		line.Dashes = plotutil.Dashes(i / 7)
		name := s.Process
		if s.Role != "" {
			name += " (" + s.Role + ")"
		}
		fig.add(name, line)
		drawn = true
	}
	if !drawn {
		return nil, nil
	}
	fig.Plot.X.Min = min(fig.Plot.X.Min, 0)
	return fig, nil
}

// growthChart: each sidecar's RSS after 0, N, 2N, ... requests, one line per variant and
// sidecar (the memory-growth scenario; nil for reports without Growth).
func growthChart(rep *perf.Report) (*figure, error) {
	g := rep.Growth
	if g == nil {
		return nil, nil
	}
	fig := newFigure(fmt.Sprintf("%s: sidecar RSS over requests, threshold %.0f KiB per 1,000", heading(rep), g.ThresholdKiBPer1000))
	fig.Plot.X.Label.Text = "requests"
	fig.Plot.Y.Label.Text = "RSS (MiB)"
	fig.Plot.Y.Min = 0
	n := 0
	for _, v := range g.Variants {
		for _, sg := range v.Sidecars {
			var xys plotter.XYs
			for _, r := range sg.Readings {
				if r.Label != "idle" {
					xys = append(xys, plotter.XY{X: float64(r.Requests), Y: float64(r.RSSBytes) / (1 << 20)})
				}
			}
			if len(xys) == 0 {
				continue
			}
			line, points, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", v.Name, sg.Process, err)
			}
			line.Color, line.Width = seriesColor(n), vg.Points(1.5)
			points.Color, points.Shape = seriesColor(n), plotutil.Shape(n)
			fig.add(fmt.Sprintf("%s, %s: %s", v.Name, orNone(sg.Role), growthVerdict(sg.Growth)), line)
			fig.add("", points)
			n++
		}
	}
	if n == 0 {
		return nil, nil
	}
	return fig, nil
}

// scaled converts seconds to u.
func scaled(xs []float64, u unit) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * u.PerSecond
	}
	return out
}

// groupedBars puts values[i] at x = i, as bar number group of groups side by side within
// 0.8 of the slot.
func groupedBars(values []float64, group, groups int, c color.Color) *bars {
	w := 0.8 / float64(groups)
	bs := &bars{Fill: c, Line: draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}}
	for i, v := range values {
		x0 := float64(i) - 0.4 + float64(group)*w
		bs.Bars = append(bs.Bars, bar{X0: x0, X1: x0 + w, Y: v})
	}
	return bs
}

// groupCenter is the x centre of bar i of group in groupedBars.
func groupCenter(i, group, groups int) float64 {
	w := 0.8 / float64(groups)
	return float64(i) - 0.4 + (float64(group)+0.5)*w
}

// compareChart: overhead p50, p90 and p99 (median) of every compared scenario, version A
// beside version B, with interval bars where a report has them.
func compareChart(c comparison) (*figure, error) {
	var (
		names   []string
		vals    [2][]float64
		ivs     [2][]perf.Overhead
		ivX     [2][]float64
		largest float64
	)
	for _, s := range c.Scenarios {
		figs := summaryOverheads()
		for j, f := range figs {
			i := len(names)
			label := f
			if j == len(figs)/2 { // the scenario's name once, under its middle group
				label += "\n" + s.Key
			}
			names = append(names, label)
			for v, rep := range []*perf.Report{s.A.Report, s.B.Report} {
				o, ok := rep.OverheadOf(f)
				if !ok {
					vals[v] = append(vals[v], 0)
					continue
				}
				vals[v] = append(vals[v], o.MedianSeconds)
				largest = max(largest, math.Abs(o.MedianSeconds))
				if o.HasInterval {
					ivs[v] = append(ivs[v], o)
					ivX[v] = append(ivX[v], groupCenter(i, v, 2))
					largest = max(largest, math.Abs(o.LowSeconds), math.Abs(o.HighSeconds))
				}
			}
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no scenario to compare")
	}
	u := latencyUnit(largest)
	fig := newFigure(fmt.Sprintf("Sidecar overhead, median with its interval (confidence as stated per run): %s vs %s", c.A, c.B))
	fig.Width = max(chartWidth, 90*len(names)+160)
	fig.Plot.Y.Label.Text = "overhead (" + u.Name + ")"
	for v, name := range []string{c.A, c.B} {
		fig.add(name, groupedBars(scaled(vals[v], u), v, 2, seriesColor(v)))
	}
	for v := range ivs {
		if len(ivs[v]) > 0 {
			fig.add("", intervalBars(ivX[v], ivs[v], u))
		}
	}
	nominalX(fig.Plot, names)
	return fig, nil
}
