package charts

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// bar spans [X0, X1] on the x axis and 0 to Y on the y axis, in data units.
type bar struct{ X0, X1, Y float64 }

// bars is a plot.Plotter of rectangles standing on y = 0. Unlike plotter.BarChart its widths
// and positions are in data units, so interval bars line up with grouped bars and histogram
// buckets of unequal width draw as they are.
type bars struct {
	Bars []bar
	Fill color.Color
	Line draw.LineStyle
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, r := range b.Bars {
		pts := []vg.Point{
			{X: trX(r.X0), Y: trY(0)},
			{X: trX(r.X1), Y: trY(0)},
			{X: trX(r.X1), Y: trY(r.Y)},
			{X: trX(r.X0), Y: trY(r.Y)},
		}
		if b.Fill != nil {
			c.FillPolygon(b.Fill, c.ClipPolygonXY(pts))
		}
		c.StrokeLines(b.Line, c.ClipLinesXY(append(pts, pts[0]))...)
	}
}

// DataRange implements plot.DataRanger; the y range always includes 0.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, r := range b.Bars {
		xmin, xmax = min(xmin, r.X0, r.X1), max(xmax, r.X0, r.X1)
		ymin, ymax = min(ymin, r.Y), max(ymax, r.Y)
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail implements plot.Thumbnailer, for the legend.
func (b *bars) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y},
		{X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y},
	}
	if b.Fill != nil {
		c.FillPolygon(b.Fill, pts)
	}
	c.StrokeLines(b.Line, append(pts, pts[0]))
}
