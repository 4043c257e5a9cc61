package charts

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/daprperf/daprperf/perf"
)

// errorBars returns the interval plotters of a figure.
func errorBars(f *figure) []*plotter.YErrorBars {
	var out []*plotter.YErrorBars
	for _, l := range f.Layers {
		if e, ok := l.(*plotter.YErrorBars); ok {
			out = append(out, e)
		}
	}
	return out
}

func TestOverheadChartIntervals(t *testing.T) {
	single, err := overheadChart(readFixture(t, httpDir))
	if err != nil {
		t.Fatal(err)
	}
	if eb := errorBars(single); len(eb) != 0 {
		t.Errorf("single run: %d interval plotters, want none", len(eb))
	}
	if !strings.Contains(single.Plot.Title.Text, "single run: no interval") {
		t.Errorf("title %q does not say there is no interval", single.Plot.Title.Text)
	}

	rep := readFixture(t, grpcDir)
	repeated, err := overheadChart(rep)
	if err != nil {
		t.Fatal(err)
	}
	eb := errorBars(repeated)
	if len(eb) != 1 || len(eb[0].YErrors) != 5 {
		t.Fatalf("3 rounds: interval plotters %v, want one with 5 bars (p50 … p99.9)", eb)
	}
	// p90 is the third bar: median 1.95 ms, interval 1.92 to 2.02 ms, drawn in ms.
	o, _ := rep.OverheadOf("p90")
	xy, e := eb[0].XYs[2], eb[0].YErrors[2]
	if xy.X != 2 || !near(xy.Y, o.MedianSeconds*1e3) || !near(xy.Y-e.Low, o.LowSeconds*1e3) || !near(xy.Y+e.High, o.HighSeconds*1e3) {
		t.Errorf("p90 bar at %v ± %v, want %v in [%v, %v] ms", xy, e, o.MedianSeconds*1e3, o.LowSeconds*1e3, o.HighSeconds*1e3)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestLatencyUnit(t *testing.T) {
	for _, tc := range []struct {
		seconds float64
		want    string
	}{{0, "µs"}, {0.000999, "µs"}, {0.001, "ms"}, {0.00661, "ms"}, {-0.0002, "µs"}} {
		if got := latencyUnit(tc.seconds).Name; got != tc.want {
			t.Errorf("latencyUnit(%v) = %s, want %s", tc.seconds, got, tc.want)
		}
	}

	rep := readFixture(t, httpDir)
	fig, err := latencyChart(rep)
	if err != nil {
		t.Fatal(err)
	}
	if got := fig.Plot.Y.Label.Text; got != "service time (ms)" {
		t.Errorf("p99.9 6.61 ms: axis %q, want ms", got)
	}
	// Everything below 1 ms, and no stored histogram (an older file): the spectrum is drawn
	// through the stored percentiles, in µs.
	for i := range rep.Rounds {
		for _, r := range []*perf.Result{&rep.Rounds[i].Baseline, &rep.Rounds[i].Main} {
			r.Latency.HDR = ""
			for j := range r.Latency.Percentiles {
				r.Latency.Percentiles[j].Seconds /= 10
			}
		}
	}
	fig, err = latencyChart(rep)
	if err != nil {
		t.Fatal(err)
	}
	if got := fig.Plot.Y.Label.Text; got != "service time (µs)" {
		t.Errorf("p99.9 0.661 ms: axis %q, want µs", got)
	}
	base := fig.Layers[0].(*plotter.Line).XYs
	if len(base) != 5 || base[0].X != 2 || !near(base[0].Y, 53) || !near(base[4].X, 1000) || !near(base[4].Y, 120) {
		t.Errorf("baseline from stored percentiles %v, want p50 at x=2 = 53 µs ... p99.9 at x=1000 = 120 µs", base)
	}
}

// lines returns the line plotters of a figure.
func lines(f *figure) []*plotter.Line {
	var out []*plotter.Line
	for _, l := range f.Layers {
		if e, ok := l.(*plotter.Line); ok {
			out = append(out, e)
		}
	}
	return out
}

func TestLatencySpectrum(t *testing.T) {
	rep := readFixture(t, grpcDir) // 3 rounds of 60,000 requests
	fig, err := latencyChart(rep)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fig.Plot.X.Scale.(plot.LogScale); !ok || fig.Plot.X.Min != 1 || fig.Plot.X.Max != 1000 {
		t.Errorf("x axis %T from %v to %v, want a log scale of 1/(1-p) from p0 (1) to p99.9 (1000)", fig.Plot.X.Scale, fig.Plot.X.Min, fig.Plot.X.Max)
	}
	ls := lines(fig)
	if len(ls) != 8 {
		t.Fatalf("%d lines, want 3 faint + 1 median per phase", len(ls))
	}
	mainMedian := ls[7].XYs
	// At p99.9 (the last point) the median over rounds of each round's p99.9, from the HDR
	// histograms the fixture built to agree with its percentiles: 7.9, 8.0, 8.2 ms.
	if got := mainMedian[len(mainMedian)-1]; !near(got.X, 1000) || math.Abs(got.Y-8.0)/8.0 > 0.002 {
		t.Errorf("main median at %v, want p99.9 (x=1000) = 8.0 ms within 0.2 %%", got)
	}
	for i := 1; i < len(mainMedian); i++ {
		if mainMedian[i].Y < mainMedian[i-1].Y {
			t.Fatalf("spectrum falls from %v to %v", mainMedian[i-1], mainMedian[i])
		}
	}
	// A round's faint line differs from the median: round 2 main was the slowest.
	if r2 := ls[5].XYs; r2[len(r2)-1].Y <= mainMedian[len(mainMedian)-1].Y {
		t.Errorf("round 2 main p99.9 %v ms, want above the median %v", r2[len(r2)-1].Y, mainMedian[len(mainMedian)-1].Y)
	}
	for _, tc := range []struct {
		n    int64
		want float64
	}{{500, 100}, {2000, 100}, {30000, 1000}, {60000, 1000}, {200000, 1e4}, {1e9, 1e5}} {
		if got := spectrumMaxX(tc.n); got != tc.want {
			t.Errorf("spectrumMaxX(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

func TestOverheadChartDotsAndBound(t *testing.T) {
	rep := readFixture(t, grpcDir)
	fig, err := overheadChart(rep)
	if err != nil {
		t.Fatal(err)
	}
	var dots []plotter.XYs
	for _, l := range fig.Layers {
		if sc, ok := l.(*plotter.Scatter); ok {
			dots = append(dots, sc.XYs)
		}
	}
	if len(dots) != 2 || len(dots[0]) != 15 || len(dots[1]) != 5 {
		t.Fatalf("scatter layers %v, want 15 round dots (5 percentiles x 3 rounds) and 5 medians", dots)
	}
	o, _ := rep.OverheadOf("p90")
	for j := range 3 {
		if d := dots[0][6+j]; math.Abs(d.X-2) > 0.2 || !near(d.Y, o.PerRoundSeconds[j]*1e3) {
			t.Errorf("p90 round %d dot %v, want near x=2 at %v ms", j+1, d, o.PerRoundSeconds[j]*1e3)
		}
	}
	single, err := overheadChart(readFixture(t, httpDir))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range single.Layers {
		if _, ok := l.(*plotter.Scatter); ok {
			n++
		}
	}
	if n != 1 {
		t.Errorf("one round: %d scatter layers, want only the medians (a round's dot would hide under it)", n)
	}
	var bound *plotter.Line
	for _, l := range lines(fig) {
		if len(l.XYs) == 2 && l.XYs[0].X > 1 && l.XYs[1].X < 3 {
			bound = l
		}
	}
	if bound == nil || !near(bound.XYs[0].Y, 2.5) || !near(bound.XYs[1].Y, 2.5) {
		t.Fatalf("no bound line across p90 at 2.5 ms (Dapr's gRPC bound): %v", bound)
	}
}

func TestHistogramChartLogAxis(t *testing.T) {
	fig, err := histogramChart(readFixture(t, httpDir))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fig.Plot.X.Scale.(plot.LogScale); !ok {
		t.Errorf("x scale %T, want log", fig.Plot.X.Scale)
	}
	for i, l := range fig.Layers {
		bs := l.(*bars)
		sum, top := 0.0, 0.0
		for _, b := range bs.Bars {
			sum += b.Y
			top = max(top, b.Y)
			if ratio := b.X1 / b.X0; math.Abs(ratio-math.Pow(10, 1.0/histogramBinsPerDecade)) > 1e-9 {
				t.Fatalf("phase %d: bin %v..%v is not 1/%d decade wide", i, b.X0, b.X1, histogramBinsPerDecade)
			}
		}
		if math.Abs(sum-100) > 1e-9 || top >= 100 {
			t.Errorf("phase %d: shares add up to %v %% (want 100), largest %v %%", i, sum, top)
		}
	}
}

func TestQPSChartShowsTheShareAgainstValidity(t *testing.T) {
	fig, err := qpsChart(readFixture(t, grpcDir))
	if err != nil {
		t.Fatal(err)
	}
	if fig.Below == nil {
		t.Fatal("no panel for the share behind schedule")
	}
	ls := lines(fig)
	// main (orange) is the second line of the top panel: round 2 achieved 980 of 1000.
	if got := ls[1].XYs[1]; math.Abs(got.X-2) > 0.1 || !near(got.Y, 98) {
		t.Errorf("round 2 main at %v, want 98 %% of target", got)
	}
	if v := ls[len(ls)-1].XYs; !near(v[0].Y, 99) {
		t.Errorf("validity line at %v, want 99 %%", v)
	}
	if fig.Plot.Y.Max-fig.Plot.Y.Min > 10 {
		t.Errorf("ratio axis %v..%v: too wide to tell 98 %% from 100 %%", fig.Plot.Y.Min, fig.Plot.Y.Max)
	}
	// 1,200 of 60,000 slots skipped in round 2: 2 % behind, above the 1 % line.
	var behind float64
	for _, pl := range fig.BelowLayers {
		if l, ok := pl.(*plotter.Line); ok && len(l.XYs) == 3 && l.Color == mainColor {
			behind = l.XYs[1].Y
		}
	}
	if !near(behind, 2) {
		t.Errorf("round 2 main behind schedule %v %%, want 2", behind)
	}
}

func TestGrowthChartSlopesAgainstThreshold(t *testing.T) {
	rep := growthReport()
	fig, err := growthChart(rep)
	if err != nil {
		t.Fatal(err)
	}
	caller := fig.Layers[0].(*bars)
	want := rep.Growth.Variants[1].Sidecars[0].Growth.SlopeKiBPer1000 // unique, caller
	if len(caller.Bars) != 2 || !near(caller.Bars[1].Y, want) {
		t.Errorf("caller bars %v, want unique's slope %v second", caller.Bars, want)
	}
	th := lines(fig)[0].XYs
	if !near(th[0].Y, rep.Growth.ThresholdKiBPer1000) {
		t.Errorf("threshold line at %v, want %v", th, rep.Growth.ThresholdKiBPer1000)
	}
	if fig.Plot.Y.Min > 0 || fig.Plot.Y.Max < want {
		t.Errorf("y axis %v..%v does not hold 0 and %v", fig.Plot.Y.Min, fig.Plot.Y.Max, want)
	}
}

func TestInvalidRunsAreMarkedOnEveryChart(t *testing.T) {
	for _, tc := range []struct {
		dir     string
		invalid bool
	}{{grpcDir, true}, {httpDir, false}} {
		rep := readFixture(t, tc.dir)
		for _, spec := range scenarioCharts() {
			fig, err := spec.Build(rep)
			if err != nil {
				t.Fatal(err)
			}
			if fig == nil {
				continue
			}
			marked := strings.HasPrefix(fig.Plot.Title.Text, invalidMark+": ") &&
				strings.Contains(fig.Plot.Title.Text, "2.00 % of the schedule not kept") && fig.Plot.Title.TextStyle.Color == boundColor
			if marked != tc.invalid {
				t.Errorf("%s %s: title %q marked %v, want %v", tc.dir, spec.File, fig.Plot.Title.Text, marked, tc.invalid)
			}
		}
	}
}

func TestPaletteIsOkabeIto(t *testing.T) {
	want := []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"}
	for i, w := range want {
		r, g, b, _ := seriesColor(i).RGBA()
		if got := fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8); got != w {
			t.Errorf("series %d: %s, want %s", i, got, w)
		}
	}
}

func TestChartsSkipWhatIsMissing(t *testing.T) {
	rep := readFixture(t, httpDir)
	rep.Resources = nil
	for i := range rep.Rounds {
		rep.Rounds[i].Resources = nil
		rep.Rounds[i].Main.Latency.HDR = ""
		rep.Rounds[i].Baseline.Latency.HDR = ""
	}
	for _, build := range []func(*perf.Report) (*figure, error){cpuChart, rssChart, costChart} {
		if fig, err := build(rep); err != nil || fig != nil {
			t.Errorf("no resources: figure %v, error %v; want neither", fig, err)
		}
	}
	root := t.TempDir()
	rep.Environment.DaprVersion = "1.0.0"
	path, err := perf.WriteReport(root, rep)
	if err != nil {
		t.Fatal(err)
	}
	images, err := writeCharts(scenario{Path: path, Dir: filepath.Dir(path), Report: rep})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, im := range images {
		files = append(files, im.File)
	}
	if want := []string{"latency.png", "overhead.png", "qps.png"}; !slices.Equal(files, want) {
		t.Errorf("charts %v, want %v: no histogram, CPU or RSS to draw", files, want)
	}
}
