package charts

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// versionCostFile is the version index's sidecar-cost chart, in the version's folder.
const versionCostFile = "cost.png"

// writeVersionCost draws the sidecar cost of every scenario of g that has one into
// <version dir>/cost.png: each sidecar's CPU per request above and its peak RSS below, the
// caller's beside the callee's, one pair per scenario, with Dapr's published v1.0 sidecar
// figures as lines. It returns the file's name, "" when no scenario has a cost.
func writeVersionCost(g versionGroup) (string, error) {
	var names []string
	var cpu, rss [2][]float64 // caller, callee
	topCPU, topRSS := daprPublishedMicrosPerRequest, daprPublishedRSSBytes/(1<<20)
	for _, sc := range g.Scenarios {
		f := report.DeriveFigures(sc.Report)
		var c [2]*perf.ProcessCost
		for i := range f.Cost {
			switch f.Cost[i].Role {
			case perf.RoleCallerSidecar:
				if c[0] == nil || f.Cost[i].CPUSecondsPerRequest > c[0].CPUSecondsPerRequest {
					c[0] = &f.Cost[i]
				}
			case perf.RoleCalleeSidecar:
				if c[1] == nil || f.Cost[i].CPUSecondsPerRequest > c[1].CPUSecondsPerRequest {
					c[1] = &f.Cost[i]
				}
			}
		}
		if c[0] == nil && c[1] == nil {
			continue
		}
		names = append(names, sc.Key())
		for k := range 2 {
			var u, r float64
			if c[k] != nil {
				u, r = c[k].CPUMicrosPerRequest(), float64(c[k].PeakRSSBytes)/(1<<20)
			}
			cpu[k], rss[k] = append(cpu[k], u), append(rss[k], r)
			topCPU, topRSS = math.Max(topCPU, u), math.Max(topRSS, r)
		}
	}
	if len(names) == 0 {
		return "", nil
	}
	panel := func(title, unit string, vals [2][]float64, dapr, top float64) (*plot.Plot, error) {
		p := plot.New()
		p.Add(plotter.NewGrid())
		p.Title.Text = title
		p.Y.Label.Text = unit
		p.Legend.Top = true
		for k, name := range []string{"caller sidecar", "callee sidecar"} {
			b := groupedBars(vals[k], k, 2, seriesColor(k+1))
			p.Add(b)
			p.Legend.Add(name, b)
		}
		l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: dapr}, {X: float64(len(names)) - 0.5, Y: dapr}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes = boundColor, vg.Points(2), []vg.Length{vg.Points(8), vg.Points(4)}
		p.Add(l)
		p.Legend.Add(daprPublishedSource, l)
		nominalX(p, names)
		p.X.Tick.Label.Rotation, p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = math.Pi/2, draw.XRight, draw.YCenter
		p.Y.Min, p.Y.Max = 0, top*1.3
		return p, nil
	}
	width := max(chartWidth, 60*len(names)+160)
	top, err := panel(wrapTitle(fmt.Sprintf("Dapr %s: each sidecar's CPU per request, µs of one core (the line: Dapr v1.0's published 480 µs)", g.Name), titleWidth*width/chartWidth), "µs per request", cpu, daprPublishedMicrosPerRequest, topCPU)
	if err != nil {
		return "", err
	}
	bottom, err := panel("each sidecar's peak RSS, MiB (the line: Dapr v1.0's published 23 MB)", "MiB", rss, daprPublishedRSSBytes/(1<<20), topRSS)
	if err != nil {
		return "", err
	}
	cv := vgimg.NewWith(vgimg.UseWH(pixels(width), pixels(900)), vgimg.UseDPI(dpi))
	grid := [][]*plot.Plot{{top}, {bottom}}
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(2), PadY: vg.Points(10), PadLeft: vg.Points(2), PadRight: vg.Points(2)}
	for i, row := range plot.Align(grid, tiles, draw.New(cv)) {
		grid[i][0].Draw(row[0])
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: cv}).WriteTo(&buf); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(g.Dir, versionCostFile), buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("charts: %w", err)
	}
	return versionCostFile, nil
}
