package main

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/hdr"
)

// PNG geometry: charts are chartWidth × chartHeight pixels at dpi.
const (
	chartWidth  = 800
	chartHeight = 450
	dpi         = 96
)

// The charts' text is in the sans-serif face of the pages they sit on (their CSS asks for
// DejaVu Sans or Liberation Sans), not gonum/plot's default serif; set before any plot is made.
// plotter's labels take their own default, copied from plot's before this runs.
func init() {
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	plotter.DefaultFont = plot.DefaultFont
}

// chartSpec is one chart of a scenario: its file name, its title (also the README's alt text)
// and the function that draws it from the report. Build returns a nil figure when the report
// has nothing to draw (no resources sampled, no histogram), and the chart is then left out.
type chartSpec struct {
	File, Title string
	Build       func(rep *perf.Report) (*figure, error)
	// timeline marks the charts that draw the run second by second.
	timeline bool
}

// scenarioCharts lists the charts of a scenario directory, in README order. A new chart is
// one function and one line here.
func scenarioCharts() []chartSpec {
	return []chartSpec{
		{"latency.png", "Service time by percentile (log axis of 1/(1-p)): baseline vs through Dapr, each round", latencyChart, false},
		{"timeline.png", "Second by second: service time p50 and p99, and answers per second, of every phase on the run's clock", timelineChart, true},
		{"overhead.png", "Sidecar overhead per percentile: each round, median, interval and bound", overheadChart, false},
		{"histogram.png", "Service-time distribution of the last round, log latency axis", histogramChart, false},
		{"qps.png", "Load kept: achieved / target QPS and share behind schedule, with the validity lines", qpsChart, false},
		{"cpu.png", "CPU per process, last main phase", cpuChart, false},
		{"rss.png", "RSS per process, last main phase", rssChart, false},
		{"cost.png", "Sidecar cost: each process's CPU per request and peak RSS, with Dapr's published sidecar figure on service invocation", costChart, false},
		{"growth.png", "Sidecar RSS slope per variant against the threshold", growthChart, false},
		{"loads-latency.png", "Latency per load (stage, run or phase): p50, p90, p95, p99 and mean, with each load's bound", loadsLatencyChart, false},
		{"loads-rate.png", "Rate per load: achieved / target and the share behind schedule, or the closed loop's achieved rate", loadsRateChart, false},
		{"loads-spectrum.png", "Latency by percentile, one line per load (log axis of 1/(1-p))", loadsSpectrumChart, false},
		{"delivery.png", "Delivery latency by percentile with its bounds; messages sent, received, lost and duplicated", deliveryChart, false},
		{"delivery-timeline.png", "Delivery second by second: latency p50 and p99, messages received against published", deliveryTimelineChart, true},
		{"jobs-timeline.png", "Job triggers second by second: trigger lag p50 and p99, triggers per second", jobsTimelineChart, true},
		{"jobs.png", "Job trigger lag by percentile with its bounds; jobs scheduled, fired, never fired and fired twice", jobsChart, false},
		{"curve.png", "Cost curve: latency through both sidecars and each process's CPU per request against the offered rate, the bound and the highest rate within it", curveChart, false},
		{"reminders-timeline.png", "Reminder fires second by second: fire lag p50 and p99, fires per second", remindersTimelineChart, true},
		{"reminders.png", "Reminder fire lag by percentile with its bounds; fires expected, arrived and missing", remindersChart, false},
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
		png, err := fig.savePNG(filepath.Join(sc.Dir, spec.File))
		if err != nil {
			return nil, err
		}
		out = append(out, image{File: spec.File, Title: spec.Title, PNG: png})
	}
	return out, nil
}

// figure is a plot and the plotters added to it, in order (which tests inspect), with its
// size in pixels and the number of legend entries. Below, when set, is a second panel drawn
// under Plot, sharing the width (the QPS chart).
type figure struct {
	Plot          *plot.Plot
	Below         *plot.Plot
	Layers        []plot.Plotter
	BelowLayers   []plot.Plotter
	Width, Height int
	legend        int
	// entries are the legend's, drawn below the panels (drawLegend); legendsMoved is set once
	// the panels' own legends are cleared.
	entries      []legendEntry
	legendsMoved bool
}

// plots are the figure's panels, top first.
func (f *figure) plots() []*plot.Plot {
	if f.Below != nil {
		return []*plot.Plot{f.Plot, f.Below}
	}
	return []*plot.Plot{f.Plot}
}

func newFigure(title string) *figure {
	p := plot.New()
	p.Title.Text = wrapTitle(title, titleWidth)
	p.Legend.Top = true
	p.Y.Label.Padding = vg.Points(4)
	p.Y.Tick.Marker = readableTicks{}
	p.Add(plotter.NewGrid())
	return &figure{Plot: p, Width: chartWidth, Height: chartHeight}
}

// titleWidth is the longest title line, in characters, that fits the chart's width.
const titleWidth = 100

// wrapTitle breaks each line of title longer than width after its last ", " or ": " that
// fits, or its last space.
func wrapTitle(title string, width int) string {
	var out []string
	for _, line := range strings.Split(title, "\n") {
		for len(line) > width {
			cut := max(strings.LastIndex(line[:width], ", "), strings.LastIndex(line[:width], ": "))
			if cut <= 0 {
				cut = strings.LastIndex(line[:width], " ")
			}
			if cut <= 0 {
				break
			}
			out = append(out, line[:cut+1])
			line = strings.TrimLeft(line[cut+1:], " ")
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// add draws pl on the figure, with a legend entry when name is set and pl can show one.
func (f *figure) add(name string, pl plot.Plotter) {
	f.Plot.Add(pl)
	f.Layers = append(f.Layers, pl)
	if th, ok := pl.(plot.Thumbnailer); ok && name != "" {
		f.Plot.Legend.Add(name, th)
		f.entries = append(f.entries, legendEntry{name, th})
		f.legend++
	}
}

// addBelow draws pl on the lower panel, with a legend entry when name is set.
func (f *figure) addBelow(name string, pl plot.Plotter) {
	f.Below.Add(pl)
	f.BelowLayers = append(f.BelowLayers, pl)
	if th, ok := pl.(plot.Thumbnailer); ok && name != "" {
		f.Below.Legend.Add(name, th)
		f.entries = append(f.entries, legendEntry{name, th})
	}
}

// legendGap is the space between the panels and the legend, and between its columns.
const legendGap = 6 // points

// legendEntry is one entry of a figure's legend: its text and its sample of the line or mark.
type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

// maxLegendEntries is the most entries a legend lists; past it, one line says how many more
// there are, since their colours repeat in the palette's order.
const maxLegendEntries = 24

// legendLayout is a legend laid out below the panels: cols columns of colWidth, rows rows of
// rowHeight, height in all; entries are what it lists.
type legendLayout struct {
	entries         []legendEntry
	cols, rows      int
	colWidth        vg.Length
	rowHeight       vg.Length
	height          vg.Length
	moreThanEntries int // the entries left out past maxLegendEntries
}

// layoutLegend lays f's legend entries out below panels of the given width, each name once:
// as many columns of the widest entry's width as fit, filled column by column.
func (f *figure) layoutLegend(width vg.Length) legendLayout {
	var lay legendLayout
	seen := map[string]bool{} // a name given on both panels (the QPS chart's phases) is listed once
	for _, e := range f.entries {
		if !seen[e.name] {
			seen[e.name] = true
			lay.entries = append(lay.entries, e)
		}
	}
	if len(lay.entries) == 0 {
		return lay
	}
	if len(lay.entries) > maxLegendEntries {
		lay.moreThanEntries = len(lay.entries) - maxLegendEntries + 1
		lay.entries = append(slices.Clip(lay.entries[:maxLegendEntries-1]),
			legendEntry{name: fmt.Sprintf("… and %d more, in the same colours in turn", lay.moreThanEntries)})
	}
	style := plot.NewLegend()
	gap := vg.Points(legendGap)
	var widest vg.Length
	for _, e := range lay.entries {
		widest = max(widest, style.TextStyle.Width(e.name))
	}
	lay.colWidth = widest + style.ThumbnailWidth + 3*gap
	lay.cols = max(1, min(len(lay.entries), int(width/lay.colWidth)))
	lay.rows = (len(lay.entries) + lay.cols - 1) / lay.cols
	lay.rowHeight = style.TextStyle.Height(lay.entries[0].name) + style.Padding
	lay.height = vg.Length(lay.rows)*lay.rowHeight + gap
	return lay
}

// drawLegend clears the panels' own legends (once) and draws lay at the bottom of dc; it
// returns the panels' area above it.
func (f *figure) drawLegend(dc draw.Canvas, lay legendLayout) draw.Canvas {
	if len(lay.entries) == 0 {
		return dc
	}
	if !f.legendsMoved {
		f.legendsMoved = true
		for _, p := range f.plots() {
			p.Legend = plot.NewLegend()
		}
	}
	gap := vg.Points(legendGap)
	bottom := draw.Crop(dc, 0, 0, 0, -(dc.Max.Y - dc.Min.Y - lay.height))
	for c := range lay.cols {
		l := plot.NewLegend()
		l.Top, l.Left = true, true
		for _, e := range lay.entries[min(c*lay.rows, len(lay.entries)):min((c+1)*lay.rows, len(lay.entries))] {
			if e.thumb == nil {
				l.Add(e.name)
			} else {
				l.Add(e.name, e.thumb)
			}
		}
		l.Draw(draw.Crop(bottom, gap+vg.Length(c)*lay.colWidth, 0, 0, 0))
	}
	return draw.Crop(dc, 0, 0, lay.height, 0)
}

// writePNG renders the figure to path.
func (f *figure) writePNG(path string) error {
	_, err := f.savePNG(path)
	return err
}

// savePNG renders the figure to path and returns the PNG's bytes.
func (f *figure) savePNG(path string) ([]byte, error) {
	png, err := f.render()
	if err != nil {
		return nil, fmt.Errorf("charts: render %s: %w", path, err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return nil, fmt.Errorf("charts: %w", err)
	}
	return png, nil
}

// render draws the figure as a PNG.
func (f *figure) render() ([]byte, error) {
	// The legend goes below the panels, and the image grows by its height: the panels keep
	// their size however many entries it has.
	lay := f.layoutLegend(pixels(f.Width))
	c := vgimg.NewWith(vgimg.UseWH(pixels(f.Width), pixels(f.Height)+lay.height), vgimg.UseDPI(dpi))
	dc := f.drawLegend(draw.New(c), lay)
	if f.Below == nil {
		f.Plot.Draw(dc)
	} else {
		tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Points(2), PadBottom: vg.Points(2), PadY: vg.Points(4), PadLeft: vg.Points(2), PadRight: vg.Points(2)}
		ps := [][]*plot.Plot{{f.Plot}, {f.Below}}
		for i, row := range plot.Align(ps, tiles, dc) {
			ps[i][0].Draw(row[0])
		}
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func pixels(n int) vg.Length { return vg.Length(n) * vg.Inch / dpi }

// nominalX labels the integer x positions 0..n-1 with names and frames them.
func nominalX(p *plot.Plot, names []string) {
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
}

// okabeIto is Okabe and Ito's colour-blind-safe palette ("Color Universal Design", 2008), in
// the order series take it: blue, orange, bluish green, vermillion, reddish purple, sky blue,
// yellow, black. Baseline is always blue and main always orange, which every form of colour
// blindness tells apart.
var okabeIto = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0xF0, 0xE4, 0x42, 0xff}, // yellow
	{0x00, 0x00, 0x00, 0xff}, // black
}

// Fixed roles in the palette.
var (
	baselineColor = okabeIto[0]
	mainColor     = okabeIto[1]
	boundColor    = okabeIto[3] // bounds, validity lines and the INVALID mark
)

// seriesColor is the colour of the i-th series of a chart, from okabeIto (repeating after 8;
// resourceChart then changes the dashes).
func seriesColor(i int) color.Color { return okabeIto[i%len(okabeIto)] }

// translucent is c at about half opacity, for overlapping areas.
func translucent(c color.Color) color.Color { return withAlpha(c, 0x80) }

// withAlpha is c with opacity a (0 transparent, 255 opaque).
func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}

// heading starts a chart's title: "service_invocation over gRPC", with "INVALID RUN" in front
// for a run whose validity failed (see markInvalid).
func heading(rep *perf.Report) string {
	h := rep.Test + " over " + transportName(rep.Transport)
	if !rep.Validity.Valid {
		h = invalidMark + ": " + h
	}
	return h
}

// invalidMark starts the title of every chart of an invalid run.
const invalidMark = "INVALID RUN"

// markInvalid colours the title of an invalid run's chart and adds the first reason below it,
// so that no chart of such a run can be read as a valid measurement.
func markInvalid(f *figure, rep *perf.Report) *figure {
	if f == nil || rep.Validity.Valid {
		return f
	}
	for _, p := range f.plots() {
		p.Title.TextStyle.Color = boundColor
	}
	reason := "not measured on schedule"
	var reasons []string
	for _, r := range rep.Validity.Reasons {
		if !strings.HasPrefix(r, "hint:") {
			reasons = append(reasons, r)
		}
	}
	if len(reasons) > 0 {
		reason = reasons[0]
		if n := len(reasons) - 1; n > 0 {
			reason += fmt.Sprintf(" (and %d more)", n)
		}
	}
	f.Plot.Title.Text += "\n" + reason
	return f
}

// Legend names of the two phases.
const (
	baselineName = "baseline (direct to the app)"
	mainName     = "main (through both sidecars)"
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
	fig.Plot.Legend.Top, fig.Plot.Legend.Left = true, true
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
	fig.Plot.Legend.Top, fig.Plot.Legend.Left = true, true

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
	bottom.Legend.Top = true
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
		line.Dashes = plotutil.Dashes(i / len(okabeIto))
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
	return markInvalid(fig, rep), nil
}

// growthChart: the memory-growth scenario's RSS slope of every sidecar and variant, in KiB
// per 1,000 requests, as bars against the run's threshold, each labelled with its verdict (nil
// for reports without Growth). Slopes, not RSS curves: ten curves share no useful axis, and
// the slope is what the verdict is about.
func growthChart(rep *perf.Report) (*figure, error) {
	g := rep.Growth
	if g == nil || len(g.Variants) == 0 {
		return nil, nil
	}
	var roles []string
	for _, v := range g.Variants {
		for _, sg := range v.Sidecars {
			if !slices.Contains(roles, orNone(sg.Role)) {
				roles = append(roles, orNone(sg.Role))
			}
		}
	}
	if len(roles) == 0 {
		return nil, nil
	}
	fig := newFigure(fmt.Sprintf("%s: sidecar RSS slope per variant, %s\nthreshold %.0f KiB per 1,000 requests: %s",
		heading(rep), plural(g.Rounds, "round")+" of "+fmtCount(int64(g.RequestsPerRound))+" requests", g.ThresholdKiBPer1000, shorten(orNone(g.ThresholdSource), 90)))
	fig.Plot.Y.Label.Text = "RSS slope (KiB per 1,000 requests)"
	fig.Plot.Legend.Top, fig.Plot.Legend.Left = true, true
	names := make([]string, len(g.Variants))
	largest := g.ThresholdKiBPer1000
	var labels plotter.XYLabels
	for ri, role := range roles {
		vals := make([]float64, len(g.Variants))
		for vi, v := range g.Variants {
			names[vi] = wrapName(v.Name, 16)
			for _, sg := range v.Sidecars {
				if orNone(sg.Role) != role {
					continue
				}
				vals[vi] = sg.Growth.SlopeKiBPer1000
				largest = max(largest, vals[vi])
				// Above the bar, and above the threshold line for a bar below it.
				y := max(vals[vi], 0)
				if y < g.ThresholdKiBPer1000 {
					y = g.ThresholdKiBPer1000
				}
				labels.XYs = append(labels.XYs, plotter.XY{X: groupCenter(vi, ri, len(roles)), Y: y})
				labels.Labels = append(labels.Labels, fmt.Sprintf("%s\n%.0f", growthVerdict(sg.Growth), vals[vi]))
			}
		}
		fig.add(role, groupedBars(vals, ri, len(roles), seriesColor(ri)))
	}
	lbl, err := barLabels(labels, draw.YBottom, 9, 2)
	if err != nil {
		return nil, err
	}
	fig.add("", lbl)
	th, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: g.ThresholdKiBPer1000}, {X: float64(len(names)) - 0.5, Y: g.ThresholdKiBPer1000}})
	if err != nil {
		return nil, err
	}
	th.Color, th.Width, th.Dashes = boundColor, vg.Points(2), []vg.Length{vg.Points(8), vg.Points(4)}
	fig.add(fmt.Sprintf("threshold %.0f KiB per 1,000", g.ThresholdKiBPer1000), th)
	nominalX(fig.Plot, names)
	fig.Plot.Y.Max = largest * 1.12
	return markInvalid(fig, rep), nil
}

// wrapName breaks a long name at '-' into lines of about width characters, for axis labels.
func wrapName(name string, width int) string {
	var lines []string
	cur := ""
	for i, part := range strings.Split(name, "-") {
		if i > 0 {
			part = "-" + part
		}
		if cur != "" && len(cur)+len(part) > width {
			lines = append(lines, cur)
			cur = strings.TrimPrefix(part, "-")
			continue
		}
		cur += part
	}
	return strings.Join(append(lines, cur), "\n")
}

// shorten cuts s to at most n characters, ending it with "…" when cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
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
	var invalid []string
	var bad [2][]int // bar positions of invalid runs, per version
	for _, s := range c.Scenarios {
		if len(s.A.Report.Overhead) == 0 && len(s.B.Report.Overhead) == 0 {
			continue // memory growth: no overhead to draw
		}
		for v, rep := range []*perf.Report{s.A.Report, s.B.Report} {
			if !rep.Validity.Valid {
				invalid = append(invalid, s.Key+" "+[]string{c.A, c.B}[v])
			}
		}
		figs := summaryOverheads()
		for j, f := range figs {
			i := len(names)
			for v, rep := range []*perf.Report{s.A.Report, s.B.Report} {
				if !rep.Validity.Valid {
					bad[v] = append(bad[v], i)
				}
			}
			label := f
			if j == len(figs)/2 { // the scenario's name once, under its middle group
				label += "\n" + s.Key
				if !s.A.Report.Validity.Valid || !s.B.Report.Validity.Valid {
					label += "\n(" + invalidMark + ")"
				}
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
		return nil, fmt.Errorf("no scenario with an overhead to compare")
	}
	u := latencyUnit(largest)
	title := fmt.Sprintf("Sidecar overhead, median with its interval (confidence as stated per run): %s vs %s", c.A, c.B)
	if len(invalid) > 0 {
		title += "\n" + invalidMark + ": " + strings.Join(invalid, ", ") + " (faded bars, red outline)"
	}
	fig := newFigure(title)
	if len(invalid) > 0 {
		fig.Plot.Title.TextStyle.Color = boundColor
	}
	fig.Width = max(chartWidth, 90*len(names)+160)
	fig.Plot.Y.Label.Text = "overhead (" + u.Name + ")"
	for v, name := range []string{c.A, c.B} {
		all := groupedBars(scaled(vals[v], u), v, 2, seriesColor(v))
		good, faded := *all, *all
		good.Bars, faded.Bars = nil, nil
		faded.Fill = withAlpha(seriesColor(v), 0x50)
		faded.Line = draw.LineStyle{Color: boundColor, Width: vg.Points(2)}
		for i, b := range all.Bars {
			if slices.Contains(bad[v], i) {
				faded.Bars = append(faded.Bars, b)
			} else {
				good.Bars = append(good.Bars, b)
			}
		}
		fig.add(name, &good)
		if len(faded.Bars) > 0 {
			fig.add(name+", "+strings.ToLower(invalidMark), &faded)
		}
	}
	for v := range ivs {
		if len(ivs[v]) > 0 {
			fig.add("", intervalBars(ivX[v], ivs[v], u))
		}
	}
	nominalX(fig.Plot, names)
	return fig, nil
}

// barLabels returns labels centred on each point of xy, anchored at yAlign (draw.YBottom: the
// text sits above its point; draw.YTop: below it), in a font of size points, moved up by
// offset points (negative: down). Its error is plotter.NewLabels's (xy's points and labels
// differ in number, or a point is not finite).
func barLabels(xy plotter.XYLabels, yAlign draw.YAlignment, size, offset float64) (*plotter.Labels, error) {
	lbl, err := plotter.NewLabels(xy)
	if err != nil {
		return nil, err
	}
	for i := range lbl.TextStyle {
		lbl.TextStyle[i].XAlign, lbl.TextStyle[i].YAlign = draw.XCenter, yAlign
		lbl.TextStyle[i].Font.Size = vg.Points(size)
	}
	lbl.Offset = vg.Point{Y: vg.Points(offset)}
	return lbl, nil
}

// addValidityLines draws the run's validity bounds from x0 to x1 as dashed lines: 99 % (the
// lowest achieved/target rate, %, report.MinValidQPSRatio) on the top panel, named topLabel,
// and 1 % (the largest share of requests behind schedule) on the panel below. Its error is
// plotter.NewLine's.
func (f *figure) addValidityLines(x0, x1 float64, topLabel string) error {
	for pi, lim := range []float64{99, 1} {
		l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: lim}, {X: x1, Y: lim}})
		if err != nil {
			return err
		}
		l.Color, l.Width, l.Dashes = boundColor, vg.Points(2), []vg.Length{vg.Points(8), vg.Points(4)}
		if pi == 0 {
			f.add(topLabel, l)
		} else {
			f.addBelow("valid up to 1 %", l)
		}
	}
	return nil
}

// readableTicks label a linear axis at 1, 2, 2.5 or 5 times a power of ten, so that there are
// 4 to 8 labelled ticks, with a minor tick between each two, and each label as short as its
// value needs ("25", not "25.00"). gonum's default gives as few as 2 to 3 labels, each with the
// axis' longest precision.
type readableTicks struct{}

// Ticks implements plot.Ticker.
func (readableTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	span := hi - lo
	mag := math.Pow(10, math.Floor(math.Log10(span)))
	step := mag
	for _, m := range []float64{0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10} {
		if n := span / (m * mag); n >= 4 && n <= 8 {
			step = m * mag
			break
		}
	}
	var out []plot.Tick
	for k := math.Ceil(lo / step); k*step <= hi+step*1e-9; k++ {
		v := k * step
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 12, 64)})
		if minor := v + step/2; minor <= hi {
			out = append(out, plot.Tick{Value: minor})
		}
	}
	return out
}
