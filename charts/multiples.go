package charts

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// maxOverlaid is the most series one panel overlays: the palette's colours (okabeIto). Past
// it a chart draws small multiples, one panel per series on shared axes, rather than reuse a
// colour for two lines a reader would have to tell apart.
const maxOverlaid = 8

// Small multiples' layout: multipleCols panels a row, each multipleHeight pixels high.
const (
	multipleCols   = 4
	multipleHeight = 170
)

// setMultiples makes f draw panels as small multiples, multipleCols to a row, under f's title
// (f.Plot then carries only the title) and above its legend; the figure's height becomes the
// rows', and the image is taller by the title (figure.size). Every panel should share its
// axes' ranges (sameAxes).
func (f *figure) setMultiples(panels []*plot.Plot) {
	rows := (len(panels) + multipleCols - 1) / multipleCols
	f.multiples = make([][]*plot.Plot, rows)
	for i := range f.multiples {
		f.multiples[i] = make([]*plot.Plot, multipleCols)
		copy(f.multiples[i], panels[i*multipleCols:min((i+1)*multipleCols, len(panels))])
	}
	f.Height = rows * multipleHeight
}

// titleHeight is the height p's title takes above its panel, as plot.Plot.Draw lays it out.
func titleHeight(p *plot.Plot) vg.Length {
	if p.Title.Text == "" {
		return 0
	}
	return p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
}

// sameAxes gives every panel the x and y ranges that hold all of them.
func sameAxes(panels []*plot.Plot) {
	if len(panels) == 0 {
		return
	}
	x0, x1, y0, y1 := panels[0].X.Min, panels[0].X.Max, panels[0].Y.Min, panels[0].Y.Max
	for _, p := range panels[1:] {
		x0, x1 = min(x0, p.X.Min), max(x1, p.X.Max)
		y0, y1 = min(y0, p.Y.Min), max(y1, p.Y.Max)
	}
	for _, p := range panels {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = x0, x1, y0, y1
	}
}

// drawMultiples draws f's title at the top of dc and its small multiples under it.
func (f *figure) drawMultiples(dc draw.Canvas) {
	if t := f.Plot.Title; t.Text != "" {
		descent := t.TextStyle.FontExtents().Descent
		dc.FillText(t.TextStyle, vg.Point{X: dc.Center().X, Y: dc.Max.Y + descent}, t.Text)
		dc.Max.Y -= titleHeight(f.Plot)
	}
	tiles := draw.Tiles{Rows: len(f.multiples), Cols: multipleCols,
		PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(2), PadX: vg.Points(6), PadY: vg.Points(6)}
	for i, row := range plot.Align(f.multiples, tiles, dc) {
		for j, c := range row {
			if p := f.multiples[i][j]; p != nil {
				p.Draw(c)
			}
		}
	}
}
