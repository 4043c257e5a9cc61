package charts

import (
	"bytes"
	"fmt"
	"image/png"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The legend is drawn below the panels, never over the data, and the image grows by its
// height; past maxLegendEntries one line counts the rest.
func TestLegendGoesBelowThePanels(t *testing.T) {
	figureOf := func(n int) *figure {
		f := newFigure("a chart")
		for i := range n {
			l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: float64(i)}, {X: 1, Y: float64(i)}})
			if err != nil {
				t.Fatal(err)
			}
			f.add(fmt.Sprintf("series %d", i), l)
		}
		return f
	}
	height := func(f *figure) int {
		b, err := f.render()
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds().Dx() != chartWidth {
			t.Errorf("width %d, want %d", img.Bounds().Dx(), chartWidth)
		}
		return img.Bounds().Dy()
	}
	if h := height(figureOf(0)); h != chartHeight {
		t.Errorf("no legend: height %d, want %d", h, chartHeight)
	}
	f := figureOf(3)
	h3 := height(f)
	if h3 <= chartHeight {
		t.Errorf("3 entries: height %d, want more than %d", h3, chartHeight)
	}
	c := draw.New(vgimg.New(100, 100))
	if r := f.Plot.Legend.Rectangle(c); r.Max.X > r.Min.X {
		t.Error("the panel still draws its own legend over the data")
	}
	if again := height(f); again != h3 {
		t.Errorf("rendered again: height %d, want %d (the legend drawn once more, not lost)", again, h3)
	}
	lay := figureOf(40).layoutLegend(pixels(chartWidth))
	if len(lay.entries) != maxLegendEntries || lay.moreThanEntries != 40-maxLegendEntries+1 {
		t.Errorf("40 entries: %d listed, %d more; want %d and %d", len(lay.entries), lay.moreThanEntries, maxLegendEntries, 40-maxLegendEntries+1)
	}
	if last := lay.entries[len(lay.entries)-1].name; last != "… and 17 more, in the same colours in turn" {
		t.Errorf("last entry %q", last)
	}
	if lay.cols < 2 || lay.rows*lay.cols < len(lay.entries) {
		t.Errorf("%d columns of %d rows for %d entries", lay.cols, lay.rows, len(lay.entries))
	}
}
