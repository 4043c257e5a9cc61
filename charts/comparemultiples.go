package charts

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// multiplesFigures are the figures of the comparison's small multiples, a panel each: the
// overhead's p90 and each sidecar's CPU per request and peak RSS.
var multiplesFigures = []string{"overhead p90", "callee sidecar CPU per request", "caller sidecar CPU per request", "callee sidecar memory", "caller sidecar memory"}

// compareMultiplesPNG draws c as small multiples: a panel per figure of multiplesFigures, each
// with every scenario that has the figure on both sides, A's median beside B's, and the
// verdict of B against A written over the pair (regressed, improved, same or undecided). Nil
// when no scenario has any of them (memory growth only).
func compareMultiplesPNG(c comparison) ([]byte, error) {
	figs := compareFigures()
	var plots []*plot.Plot
	for _, name := range multiplesFigures {
		i := slices.IndexFunc(figs, func(f compareFigure) bool { return f.Name == name })
		if i < 0 {
			continue
		}
		f := figs[i]
		var names []string
		var a, b []float64
		var labels plotter.XYLabels
		top := 0.0
		for _, s := range c.Scenarios {
			xa, xb := f.Samples(s.A.Report), f.Samples(s.B.Report)
			if len(xa) == 0 || len(xb) == 0 {
				continue
			}
			ma, mb := median(xa), median(xb)
			if name == "overhead p90" {
				ma, mb = 1e3*ma, 1e3*mb // ms
			}
			verdict := ""
			if k := slices.IndexFunc(s.Rows, func(r compareRow) bool { return r.Figure == name }); k >= 0 {
				verdict = s.Rows[k].Verdict
			}
			names = append(names, s.Key)
			a, b = append(a, ma), append(b, mb)
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(len(names) - 1), Y: max(ma, mb)})
			labels.Labels = append(labels.Labels, verdict)
			top = max(top, ma, mb)
		}
		if len(names) == 0 {
			continue
		}
		p := plot.New()
		p.Add(plotter.NewGrid())
		unit := map[string]string{"overhead p90": "ms"}[name]
		if unit == "" {
			unit = map[bool]string{true: "µs", false: "MiB"}[name != "callee sidecar memory" && name != "caller sidecar memory"]
		}
		p.Title.Text = fmt.Sprintf("%s (%s): %s and %s, the verdict of %s against %s above each pair", name, unit, c.A, c.B, c.B, c.A)
		p.Legend.Top = true
		for v, vals := range [][]float64{a, b} {
			bars := groupedBars(vals, v, 2, seriesColor(v))
			p.Add(bars)
			p.Legend.Add([]string{c.A, c.B}[v], bars)
		}
		lbl, err := barLabels(labels, draw.YBottom, 9, 2)
		if err != nil {
			return nil, err
		}
		p.Add(lbl)
		nominalX(p, names)
		// Scenario names stand upright under their pair: a row of many would overlap.
		p.X.Tick.Label.Rotation, p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = math.Pi/2, draw.XRight, draw.YCenter
		p.Y.Min, p.Y.Max = min(0, p.Y.Min), top*1.3
		if name == "overhead p90" {
			p.Y.Min = min(0, slices.Min(append(slices.Clone(a), b...))*1.2)
		}
		plots = append(plots, p)
	}
	if len(plots) == 0 {
		return nil, nil
	}
	width := max(chartWidth, 70*len(c.Scenarios)+160)
	height := 380 * len(plots)
	cv := vgimg.NewWith(vgimg.UseWH(pixels(width), pixels(height)), vgimg.UseDPI(dpi))
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(2), PadY: vg.Points(10), PadLeft: vg.Points(2), PadRight: vg.Points(2)}
	grid := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		grid[i] = []*plot.Plot{p}
	}
	for i, row := range plot.Align(grid, tiles, draw.New(cv)) {
		grid[i][0].Draw(row[0])
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: cv}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// compareHTML is the comparison's Markdown as a page that stands alone, its charts embedded,
// its banner the comparison's outcome: regressed when a gating figure regressed.
func compareHTML(c comparison, md string, images []image) string {
	sentence := bannerLine(c.Regressions, c.Undecided, c.Opts)
	return scenarioHTML(md, reportSummary{Title: c.A + " vs " + c.B, Word: map[bool]string{true: "regressed", false: "no regression"}[len(c.Regressions) > 0],
		Sentence: sentence, Pass: len(c.Regressions) == 0}, images)
}

// bannerShown is how many regressed figures the compare page's banner names; the tables below
// it give every one.
const bannerShown = 3

// bannerLine is verdictLine for the compare page's banner: plain text, naming the first
// bannerShown regressions and counting the rest.
func bannerLine(regressions []string, undecided int, opts compareOptions) string {
	line := verdictLine(regressions, undecided, opts)
	if total := len(regressions); total > bannerShown {
		short := append(slices.Clip(regressions[:bannerShown]), fmt.Sprintf("and %d more (every one in the tables below)", total-bannerShown))
		line = strings.Replace(verdictLine(short, undecided, opts), plural(len(short), "figure")+" regressed", plural(total, "figure")+" regressed", 1)
	}
	return strings.ReplaceAll(line, "**", "")
}
