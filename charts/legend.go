package charts

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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

// drawLegend draws lay at the bottom of dc and returns the panels' area above it.
func (f *figure) drawLegend(dc draw.Canvas, lay legendLayout) draw.Canvas {
	if len(lay.entries) == 0 {
		return dc
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
