package charts

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

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
	// entries are the legend's, drawn below the panels (drawLegend); the panels' own legends
	// stay empty.
	entries []legendEntry
	// multiples, when set, are small multiples drawn in place of Plot and Below, rows of
	// panels under Plot's title (setMultiples).
	multiples [][]*plot.Plot
}

// plots are the figure's panels, top first.
func (f *figure) plots() []*plot.Plot {
	if f.multiples != nil {
		out := []*plot.Plot{f.Plot}
		for _, row := range f.multiples {
			for _, p := range row {
				if p != nil {
					out = append(out, p)
				}
			}
		}
		return out
	}
	if f.Below != nil {
		return []*plot.Plot{f.Plot, f.Below}
	}
	return []*plot.Plot{f.Plot}
}

func newFigure(title string) *figure {
	p := plot.New()
	p.Title.Text = wrapTitle(title, titleWidth)
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
		f.entries = append(f.entries, legendEntry{name, th})
		f.legend++
	}
}

// addBelow draws pl on the lower panel, with a legend entry when name is set.
func (f *figure) addBelow(name string, pl plot.Plotter) {
	f.Below.Add(pl)
	f.BelowLayers = append(f.BelowLayers, pl)
	if th, ok := pl.(plot.Thumbnailer); ok && name != "" {
		f.entries = append(f.entries, legendEntry{name, th})
	}
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
	lay := f.layoutLegend(pixels(f.Width))
	c := vgimg.NewWith(vgimg.UseWH(f.size(lay)), vgimg.UseDPI(dpi))
	f.draw(draw.New(c), lay)
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// renderSVG draws the figure as an SVG of the PNG's size, for a page to embed and a slide to
// scale. Its text names the font the layout was measured with, Liberation Sans, then the
// faces with the same metrics (Arial, Helvetica) and sans-serif, so that a reader without it
// sees the same layout in a sans-serif face (an SVG in an <img> takes no font from its page).
func (f *figure) renderSVG() ([]byte, error) {
	lay := f.layoutLegend(pixels(f.Width))
	c := vgsvg.NewWith(vgsvg.UseWH(f.size(lay)))
	f.draw(draw.New(c), lay)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")), nil
}

// size is the figure's size with its legend laid out as lay: its width, and its height with
// the legend below the panels (the image grows by the legend's height, so the panels keep
// their size however many entries it has), and small multiples' title above them.
func (f *figure) size(lay legendLayout) (w, h vg.Length) {
	h = pixels(f.Height) + lay.height
	if f.multiples != nil {
		h += titleHeight(f.Plot)
	}
	return pixels(f.Width), h
}

// draw draws the panels and, below them, the legend laid out as lay on dc.
func (f *figure) draw(dc draw.Canvas, lay legendLayout) {
	dc = f.drawLegend(dc, lay)
	if f.multiples != nil {
		f.drawMultiples(dc)
		return
	}
	if f.Below == nil {
		f.Plot.Draw(dc)
		return
	}
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Points(2), PadBottom: vg.Points(2), PadY: vg.Points(4), PadLeft: vg.Points(2), PadRight: vg.Points(2)}
	ps := [][]*plot.Plot{{f.Plot}, {f.Below}}
	for i, row := range plot.Align(ps, tiles, dc) {
		ps[i][0].Draw(row[0])
	}
}

func pixels(n int) vg.Length { return vg.Length(n) * vg.Inch / dpi }

// nominalX labels the integer x positions 0..n-1 with names and frames them.
func nominalX(p *plot.Plot, names []string) {
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
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
