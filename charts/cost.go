package charts

import (
	"fmt"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// Dapr's published sidecar figures for service invocation (docs.dapr.io, "Service invocation
// performance", performance summary for Dapr v1.0: "The Dapr sidecar uses 0.48 vCPU and 23Mb
// per 1000 requests per second", measured at 1,000 requests/s, 1 KB payload, mTLS on, sidecars
// limited to 0.5 vCPU on 4-core nodes). 0.48 vCPU per 1,000 requests/s is 480 µs of CPU per
// request; 23 Mb is read as 23 MB, 21.9 MiB.
const (
	daprPublishedMicrosPerRequest = 480.0
	daprPublishedRSSBytes         = 23e6
	daprPublishedSource           = "Dapr v1.0's published sidecar figure"
)

// costChart: what each sidecar and the app spend per request of the main phases
// (report.ProcessCosts): CPU µs per request above, peak RSS below, one bar per process, with
// Dapr's published sidecar figures as dashed lines on the service-invocation pages, whose load
// they were measured with. Nil when the run has no cost (no main-phase rate or no readings).
func costChart(rep *perf.Report) (*figure, error) {
	f := report.DeriveFigures(rep)
	if len(f.Cost) == 0 {
		return nil, nil
	}
	daprs := strings.HasPrefix(rep.Test, "service_invocation")
	fig := twoPanel(fmt.Sprintf("%s: CPU per request of each process at %.0f requests/s (µs of one core)", heading(rep), f.Cost[0].RequestsPerSecond),
		"peak RSS of each process (MiB)")
	var cpu, rss []bar
	var names []string
	topCPU, topRSS := 0.0, 0.0
	for i, c := range f.Cost {
		x := float64(i)
		cpu = append(cpu, bar{X0: x - 0.35, X1: x + 0.35, Y: c.CPUMicrosPerRequest()})
		rss = append(rss, bar{X0: x - 0.35, X1: x + 0.35, Y: float64(c.PeakRSSBytes) / (1 << 20)})
		names = append(names, c.Role+"\n"+c.Process)
		topCPU, topRSS = max(topCPU, c.CPUMicrosPerRequest()), max(topRSS, float64(c.PeakRSSBytes)/(1<<20))
	}
	line := draw.LineStyle{Color: seriesColor(1), Width: vg.Points(1)}
	fig.add("", &bars{Bars: cpu, Fill: withAlpha(seriesColor(1), 0xb0), Line: line})
	fig.addBelow("", &bars{Bars: rss, Fill: withAlpha(seriesColor(2), 0xb0), Line: line})
	for i, c := range f.Cost {
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: []plotter.XY{{X: float64(i), Y: c.CPUMicrosPerRequest()}}, Labels: []string{fmt.Sprintf("%.0f µs", c.CPUMicrosPerRequest())}})
		if err != nil {
			return nil, err
		}
		fig.add("", labels)
	}
	x0, x1 := -0.5, float64(len(f.Cost))-0.5
	if daprs {
		dapr := []struct {
			p    *plot.Plot
			y    float64
			name string
		}{
			{fig.Plot, daprPublishedMicrosPerRequest, fmt.Sprintf("%s: %.0f µs per request", daprPublishedSource, daprPublishedMicrosPerRequest)},
			{fig.Below, daprPublishedRSSBytes / (1 << 20), fmt.Sprintf("%s: 23 MB (%.1f MiB)", daprPublishedSource, daprPublishedRSSBytes/(1<<20))},
		}
		for _, d := range dapr {
			l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: d.y}, {X: x1, Y: d.y}})
			if err != nil {
				return nil, err
			}
			l.Color, l.Width, l.Dashes = boundColor, vg.Points(2), []vg.Length{vg.Points(8), vg.Points(4)}
			d.p.Add(l)
			fig.entries = append(fig.entries, legendEntry{d.name, l})
			if d.p == fig.Plot {
				fig.Layers = append(fig.Layers, l)
				topCPU = max(topCPU, d.y)
			} else {
				fig.BelowLayers = append(fig.BelowLayers, l)
				topRSS = max(topRSS, d.y)
			}
		}
	}
	for _, p := range []*plot.Plot{fig.Plot, fig.Below} {
		p.X.Min, p.X.Max = x0, x1
		p.NominalX(names...)
	}
	fig.Plot.Y.Min, fig.Plot.Y.Max = 0, topCPU*1.3
	fig.Below.Y.Min, fig.Below.Y.Max = 0, topRSS*1.3
	fig.Plot.Y.Label.Text = "µs of CPU per request"
	fig.Below.Y.Label.Text = "MiB"
	return markInvalid(fig, rep), nil
}
