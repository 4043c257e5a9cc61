package trend

import (
	"bytes"
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

var (
	medianColor = color.RGBA{R: 0x2c, G: 0x5d, B: 0x8f, A: 0xff}
	roundColor  = color.RGBA{R: 0x88, G: 0x99, B: 0xaa, A: 0xff}
	changeColor = color.RGBA{R: 0xc0, G: 0x39, B: 0x2b, A: 0xff}
)

// chartSVG draws c: each run's rounds as small dots, its median as a larger one joined to the
// next, the range of its rounds as an error bar, and each change point as a dashed line before
// its first run with its label. The y axis starts at 0 so that a change looks its size.
func chartSVG(c Chart) (string, error) {
	var all []float64
	for _, p := range c.Points {
		all = append(all, p.Median)
		all = append(all, p.Rounds...)
	}
	factor, unit := display(c.Unit, all)
	pl := plot.New()
	pl.Y.Label.Text = unit
	pl.Y.Min = 0
	pl.X.Min, pl.X.Max = -0.5, float64(max(len(c.Points), 1))-0.5
	pl.Add(plotter.NewGrid())

	medians := make(plotter.XYs, len(c.Points))
	var rounds plotter.XYs
	bars := make(errPoints, 0, len(c.Points))
	top := 0.0
	for i, p := range c.Points {
		medians[i] = plotter.XY{X: float64(i), Y: p.Median * factor}
		top = max(top, p.Median*factor)
		if len(p.Rounds) > 0 {
			lo, hi := slices.Min(p.Rounds)*factor, slices.Max(p.Rounds)*factor
			bars = append(bars, errPoint{x: float64(i), y: p.Median * factor, lo: p.Median*factor - lo, hi: hi - p.Median*factor})
			top = max(top, hi)
			for _, r := range p.Rounds {
				rounds = append(rounds, plotter.XY{X: float64(i), Y: r * factor})
			}
		}
	}
	pl.Y.Max = top * 1.15
	if pl.Y.Max == 0 {
		pl.Y.Max = 1
	}
	if len(rounds) > 0 {
		s, err := plotter.NewScatter(rounds)
		if err != nil {
			return "", err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: roundColor, Radius: vg.Points(1.5), Shape: draw.CircleGlyph{}}
		pl.Add(s)
	}
	if len(bars) > 0 {
		eb, err := plotter.NewYErrorBars(bars)
		if err != nil {
			return "", err
		}
		eb.LineStyle.Color = medianColor
		pl.Add(eb)
	}
	if len(medians) > 0 {
		l, s, err := plotter.NewLinePoints(medians)
		if err != nil {
			return "", err
		}
		l.LineStyle.Color = medianColor
		l.LineStyle.Width = vg.Points(0.8)
		s.GlyphStyle = draw.GlyphStyle{Color: medianColor, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		pl.Add(l, s)
	}
	for _, ch := range c.Changes {
		x := float64(ch.Index) - 0.5
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: pl.Y.Max}})
		if err != nil {
			return "", err
		}
		l.LineStyle.Color = changeColor
		l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		l.LineStyle.Width = vg.Points(1.2)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: pl.Y.Max * 0.97}}, Labels: []string{" " + ch.Text}})
		if err != nil {
			return "", err
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].Color = changeColor
			lb.TextStyle[i].Font.Size = vg.Points(8)
		}
		pl.Add(l, lb)
	}
	days := len(c.Points) > 0 && c.Points[len(c.Points)-1].Time.Sub(c.Points[0].Time).Hours() >= 24
	ticks := make([]plot.Tick, 0, len(c.Points))
	every := max(1, len(c.Points)/12) // at most about 12 labels
	for i, p := range c.Points {
		t := plot.Tick{Value: float64(i)}
		if i%every == 0 || i == len(c.Points)-1 {
			t.Label = label(p, days)
		}
		ticks = append(ticks, t)
	}
	pl.X.Tick.Marker = plot.ConstantTicks(ticks)
	pl.X.Tick.Label.Rotation = 0.5
	pl.X.Tick.Label.XAlign = draw.XRight
	pl.X.Label.Text = "run (daprd version), oldest first"
	for _, t := range []*font.Font{&pl.X.Label.TextStyle.Font, &pl.Y.Label.TextStyle.Font, &pl.X.Tick.Label.Font, &pl.Y.Tick.Label.Font} {
		t.Typeface = "Liberation"
		t.Variant = "Sans"
	}
	canvas := vgsvg.New(vg.Points(600), vg.Points(300))
	pl.Draw(draw.New(canvas))
	var b bytes.Buffer
	if _, err := canvas.WriteTo(&b); err != nil {
		return "", fmt.Errorf("svg: %w", err)
	}
	return stripXMLHeader(b.String()), nil
}

// errPoint is a median with its distances to the lowest and highest round.
type errPoint struct{ x, y, lo, hi float64 }

type errPoints []errPoint

func (e errPoints) Len() int                        { return len(e) }
func (e errPoints) XY(i int) (float64, float64)     { return e[i].x, e[i].y }
func (e errPoints) YError(i int) (float64, float64) { return e[i].lo, e[i].hi }

// stripXMLHeader drops the XML declaration and doctype, which an SVG inside HTML must not have.
func stripXMLHeader(s string) string {
	if i := bytes.Index([]byte(s), []byte("<svg")); i > 0 {
		return s[i:]
	}
	return s
}
