package charts

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/daprperf/daprperf/perf"
)

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
