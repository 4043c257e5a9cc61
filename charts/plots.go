package charts

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"

	"github.com/daprperf/daprperf/perf"
)

// PNG geometry: charts are chartWidth × chartHeight pixels at dpi.
const (
	chartWidth  = 800
	chartHeight = 450
	dpi         = 96
)

// The charts' text is in the sans-serif face of the pages they sit on (their CSS asks for
// DejaVu Sans or Liberation Sans), not gonum/plot's default serif; set before any plot is made.
// plotter's labels take their own default, copied from plot's before this runs.
func init() {
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	plotter.DefaultFont = plot.DefaultFont
}

// chartSpec is one chart of a scenario: its file name, its title (also the README's alt text)
// and the function that draws it from the report. Build returns a nil figure when the report
// has nothing to draw (no resources sampled, no histogram), and the chart is then left out.
type chartSpec struct {
	File, Title string
	Build       func(rep *perf.Report) (*figure, error)
	// timeline marks the charts that draw the run second by second.
	timeline bool
}

// scenarioCharts lists the charts of a scenario directory, in README order. A new chart is
// one function and one line here.
func scenarioCharts() []chartSpec {
	return []chartSpec{
		{"latency.png", "Service time by percentile (log axis of 1/(1-p)): baseline vs through Dapr, each round", latencyChart, false},
		{"timeline.png", "Second by second: service time p50 and p99, and answers per second, of every phase on the run's clock", timelineChart, true},
		{"overhead.png", "Sidecar overhead per percentile: each round, median, interval and bound", overheadChart, false},
		{"histogram.png", "Service-time distribution of the last round, log latency axis", histogramChart, false},
		{"qps.png", "Load kept: achieved / target QPS and share behind schedule, with the validity lines", qpsChart, false},
		{"cpu.png", "CPU per process, last main phase", cpuChart, false},
		{"rss.png", "RSS per process, last main phase", rssChart, false},
		{"cost.png", "Sidecar cost: each process's CPU per request and peak RSS, with Dapr's published sidecar figure on service invocation", costChart, false},
		{"growth.png", "Sidecar RSS slope per variant against the threshold", growthChart, false},
		{"loads-latency.png", "Latency per load (stage, run or phase): p50, p90, p95, p99 and mean, with each load's bound", loadsLatencyChart, false},
		{"loads-rate.png", "Rate per load: achieved / target and the share behind schedule, or the closed loop's achieved rate", loadsRateChart, false},
		{"loads-spectrum.png", "Latency by percentile, one line per load (log axis of 1/(1-p))", loadsSpectrumChart, false},
		{"delivery.png", "Delivery latency by percentile with its bounds; messages sent, received, lost and duplicated", deliveryChart, false},
		{"delivery-timeline.png", "Delivery second by second: latency p50 and p99, messages received against published", deliveryTimelineChart, true},
		{"jobs-timeline.png", "Job triggers second by second: trigger lag p50 and p99, triggers per second", jobsTimelineChart, true},
		{"jobs.png", "Job trigger lag by percentile with its bounds; jobs scheduled, fired, never fired and fired twice", jobsChart, false},
		{"curve.png", "Cost curve: latency through both sidecars and each process's CPU per request against the offered rate, the bound and the highest rate within it", curveChart, false},
		{"reminders-timeline.png", "Reminder fires second by second: fire lag p50 and p99, fires per second", remindersTimelineChart, true},
		{"reminders.png", "Reminder fire lag by percentile with its bounds; fires expected, arrived and missing", remindersChart, false},
	}
}

// svgFile is the name of a chart's SVG twin: latency.png's is latency.svg.
func svgFile(png string) string { return strings.TrimSuffix(png, ".png") + ".svg" }

// writeCharts draws every chart of sc into its directory, each as a PNG (which README.md
// shows) and an SVG beside it (which report.html embeds, and a slide scales), and returns the
// images written.
func writeCharts(sc scenario) ([]image, error) {
	var out []image
	for _, spec := range scenarioCharts() {
		fig, err := spec.Build(sc.Report)
		if err != nil {
			return nil, fmt.Errorf("charts: %s: %s: %w", sc.Path, spec.File, err)
		}
		if fig == nil {
			continue
		}
		png, err := fig.savePNG(filepath.Join(sc.Dir, spec.File))
		if err != nil {
			return nil, err
		}
		svg, err := fig.renderSVG()
		if err != nil {
			return nil, fmt.Errorf("charts: %s: %s as SVG: %w", sc.Path, spec.File, err)
		}
		if err := os.WriteFile(filepath.Join(sc.Dir, svgFile(spec.File)), svg, 0o644); err != nil {
			return nil, fmt.Errorf("charts: %w", err)
		}
		out = append(out, image{File: spec.File, Title: spec.Title, PNG: png, SVG: svg})
	}
	return out, nil
}

// okabeIto is Okabe and Ito's colour-blind-safe palette ("Color Universal Design", 2008), in
// the order series take it: blue, orange, bluish green, vermillion, reddish purple, sky blue,
// yellow, black. Baseline is always blue and main always orange, which every form of colour
// blindness tells apart.
var okabeIto = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0xF0, 0xE4, 0x42, 0xff}, // yellow
	{0x00, 0x00, 0x00, 0xff}, // black
}

// Fixed roles in the palette.
var (
	baselineColor = okabeIto[0]
	mainColor     = okabeIto[1]
	boundColor    = okabeIto[3] // bounds, validity lines and the INVALID mark
)

// seriesColor is the colour of the i-th series of a chart, from okabeIto (repeating after 8;
// a chart with more series than colours draws small multiples, maxOverlaid).
func seriesColor(i int) color.Color { return okabeIto[i%len(okabeIto)] }

// translucent is c at about half opacity, for overlapping areas.
func translucent(c color.Color) color.Color { return withAlpha(c, 0x80) }

// withAlpha is c with opacity a (0 transparent, 255 opaque).
func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}

// heading starts a chart's title: "service_invocation over gRPC", with "INVALID RUN" in front
// for a run whose validity failed (see markInvalid).
func heading(rep *perf.Report) string {
	h := rep.Test + " over " + transportName(rep.Transport)
	if !rep.Validity.Valid {
		h = invalidMark + ": " + h
	}
	return h
}

// invalidMark starts the title of every chart of an invalid run.
const invalidMark = "INVALID RUN"

// markInvalid colours the title of an invalid run's chart and adds the first reason below it,
// so that no chart of such a run can be read as a valid measurement.
func markInvalid(f *figure, rep *perf.Report) *figure {
	if f == nil || rep.Validity.Valid {
		return f
	}
	for _, p := range f.plots() {
		p.Title.TextStyle.Color = boundColor
	}
	reason := "not measured on schedule"
	var reasons []string
	for _, r := range rep.Validity.Reasons {
		if !strings.HasPrefix(r, "hint:") {
			reasons = append(reasons, r)
		}
	}
	if len(reasons) > 0 {
		reason = reasons[0]
		if n := len(reasons) - 1; n > 0 {
			reason += fmt.Sprintf(" (and %d more)", n)
		}
	}
	f.Plot.Title.Text += "\n" + wrapTitle(shorten(reason, 2*titleWidth), titleWidth)
	return f
}

// Legend names of the two phases.
const (
	baselineName = "baseline (direct to the app)"
	mainName     = "main (through both sidecars)"
)
