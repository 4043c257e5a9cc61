package charts

import (
	"fmt"
	"image/color"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/daprperf/daprperf/perf"
)

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
// samples (the first CPU reading has no interval and reads 0). Past maxOverlaid processes
// (an actor run's hosts and testers) it draws small multiples, a panel per process on shared
// axes, each line in its role's colour with the roles as the legend.
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
	type series struct {
		name, role string
		xys        plotter.XYs
	}
	var drawn []series
	for _, s := range rd.Resources {
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
		drawn = append(drawn, series{s.Process, s.Role, xys})
	}
	if len(drawn) == 0 {
		return nil, nil
	}
	fig := newFigure(fmt.Sprintf("%s: %s per process, main phase of round %d", heading(rep), what, round+1))
	newLine := func(se series, c color.Color) (*plotter.Line, error) {
		line, err := plotter.NewLine(se.xys)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", se.name, err)
		}
		line.Color, line.Width = c, vg.Points(1.5)
		return line, nil
	}
	if len(drawn) <= maxOverlaid {
		fig.Plot.X.Label.Text = "seconds since the main phase started"
		fig.Plot.Y.Label.Text = yLabel
		fig.Plot.Y.Min = 0
		for i, se := range drawn {
			line, err := newLine(se, seriesColor(i))
			if err != nil {
				return nil, err
			}
			name := se.name
			if se.role != "" {
				name += " (" + se.role + ")"
			}
			fig.add(name, line)
		}
		fig.Plot.X.Min = min(fig.Plot.X.Min, 0)
		return markInvalid(fig, rep), nil
	}
	fig.Plot.Title.Text += fmt.Sprintf("\n%d processes, one panel each on the same axes: seconds since the main phase started, %s", len(drawn), yLabel)
	var roles []string
	var panels []*plot.Plot
	for _, se := range drawn {
		ri := slices.Index(roles, orNone(se.role))
		first := ri < 0
		if first {
			ri, roles = len(roles), append(roles, orNone(se.role))
		}
		line, err := newLine(se, seriesColor(ri))
		if err != nil {
			return nil, err
		}
		p := plot.New()
		p.Title.Text = se.name
		p.Title.TextStyle.Font.Size = vg.Points(9)
		p.X.Tick.Marker, p.Y.Tick.Marker = readableTicks{}, readableTicks{}
		p.Add(plotter.NewGrid(), line)
		p.Y.Min = 0
		p.X.Min = min(p.X.Min, 0)
		panels = append(panels, p)
		fig.Layers = append(fig.Layers, line)
		if first {
			fig.entries = append(fig.entries, legendEntry{roles[ri], line})
			fig.legend++
		}
	}
	sameAxes(panels)
	fig.setMultiples(panels)
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
