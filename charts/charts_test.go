package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

const (
	httpDir   = "v1.17.5/service_invocation/http"
	grpcDir   = "v1.17.5/service_invocation/grpc"
	growthDir = "v1.17.5/memory_growth/http"
)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./charts -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the output; run go test ./charts -update and review the diff.\n--- got:\n%s", path, got)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// row returns the cells of the first table row under the heading section (a "#" line
// starting with it; "" for the whole document) whose first cell is first.
func row(t *testing.T, md, section, first string) []string {
	t.Helper()
	in := section == ""
	for line := range strings.Lines(md) {
		line = strings.TrimRight(line, "\n")
		if strings.HasPrefix(line, "#") {
			in = section == "" || strings.HasPrefix(strings.TrimLeft(line, "# "), section)
			continue
		}
		if !in || !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if cells[0] == first {
			return cells
		}
	}
	t.Fatalf("no row %q under %q in:\n%s", first, section, md)
	return nil
}

func TestGenerate(t *testing.T) {
	root := fixtureTree(t, reportsFixtures)
	var out bytes.Buffer
	if err := generate(root, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		filepath.Join(root, grpcDir, "README.md") + " (7 charts)",
		filepath.Join(root, httpDir, "README.md") + " (7 charts)",
		filepath.Join(root, growthDir, "README.md") + " (1 charts)",
		filepath.Join(root, "v1.17.5", "README.md") + " (3 scenarios)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	httpMD := readFile(t, filepath.Join(root, httpDir, "README.md"))
	grpcMD := readFile(t, filepath.Join(root, grpcDir, "README.md"))
	growthMD := readFile(t, filepath.Join(root, growthDir, "README.md"))
	versionMD := readFile(t, filepath.Join(root, "v1.17.5", "README.md"))
	golden(t, "http.golden.md", httpMD)
	golden(t, "grpc.golden.md", grpcMD)
	golden(t, "growth.golden.md", growthMD)
	golden(t, "version.golden.md", versionMD)

	t.Run("http cells", func(t *testing.T) {
		// Dapr's published v1.17.0 HTTP figures, as the fixture holds them.
		assertCells(t, row(t, httpMD, "Latency", "main (through both sidecars)"),
			"main (through both sidecars)", "1.590 ms", "2.380 ms", "3.890 ms", "6.610 ms")
		assertCells(t, row(t, httpMD, "Latency", "baseline (tester → app)"),
			"baseline (tester → app)", "0.530 ms", "0.900 ms", "0.990 ms", "1.200 ms")
		assertCells(t, row(t, httpMD, "Latency", "overhead (single run: no interval)"),
			"overhead (single run: no interval)", "+1.060 ms", "+1.480 ms", "+2.900 ms", "+5.410 ms")
		sum := row(t, httpMD, "", "http")
		assertCell(t, sum, 1, "pass") // the result first
		assertCell(t, sum, 6, "+1.060 / +1.480 / +2.900 ms")
		assertCell(t, sum, 7, "202 mCPU / 51.0 MiB")
		assertCell(t, sum, 8, "230 mCPU / 46.0 MiB")
		assertCell(t, sum, 9, "60,000")
		assertCell(t, sum, 10, "100 %")
		assertCell(t, sum, 11, "999.94")
		assertCells(t, row(t, httpMD, "Environment", "CPU"), "CPU", "AMD EPYC 7763 64-Core Processor × 2")
		assertCells(t, row(t, httpMD, "Environment", "date"), "date", "2026-05-01 12:00:00 UTC")
		for _, im := range []string{"latency", "overhead", "histogram", "qps", "cpu", "rss"} {
			if !strings.Contains(httpMD, "]("+im+".png)") {
				t.Errorf("README does not embed %s.png", im)
			}
		}
		if !strings.Contains(httpMD, "- overhead.p90 = 1.480 ms, at most 2.000 ms (Dapr v1.17 perf suite): pass\n") {
			t.Error("README lacks the p90 verdict")
		}
	})
	t.Run("grpc cells", func(t *testing.T) {
		// Medians over three rounds; the overhead has an interval.
		assertCells(t, row(t, grpcMD, "Latency", "main (through both sidecars)"),
			"main (through both sidecars)", "2.280 ms", "2.970 ms", "4.590 ms", "8.000 ms")
		ov := row(t, grpcMD, "Latency", "overhead [75 % interval (range)]")
		assertCell(t, ov, 2, "+1.950 ms [+1.920, +2.020]")
		sum := row(t, grpcMD, "", "grpc")
		assertCell(t, sum, 1, "FAIL (invalid)")
		assertCell(t, sum, 9, "180,000")
		assertCell(t, sum, 10, "99.998 %")
		assertCell(t, sum, 11, "980.00")
		assertCells(t, row(t, grpcMD, "Rounds", "2"), "2", "0.620 / 1.050 / 1.500 ms", "2.300 / 3.000 / 4.700 ms",
			"60,000", "3", "999.95 / 980.00", "2.00 %", "INVALID (main)")
		assertCell(t, row(t, grpcMD, "Rounds", "1"), 7, "valid")
		if n := strings.Count(grpcMD, "**INVALID RUN**: not measured on schedule"); n != 4 {
			t.Errorf("%d table sections of the invalid run say INVALID RUN, want 4 (latency, load, rounds, resources)", n)
		}
		if strings.Contains(httpMD, "INVALID") {
			t.Error("the valid run's README says INVALID")
		}
		if !strings.Contains(grpcMD, "- errors = 3, at most 0 (Dapr v1.17 perf suite): FAIL\n") {
			t.Error("README lacks the failed errors verdict")
		}
	})
	t.Run("growth cells", func(t *testing.T) {
		assertCells(t, row(t, growthMD, "Memory growth", "unique"), "unique", "caller-sidecar",
			"19.0 → 47.0 → 69.0 → 80.0", "80.0", "120 → 9,124", "6997 (R² 0.97)", "5632", "growing")
		fixed := row(t, growthMD, "Memory growth", "fixed")
		assertCell(t, fixed, 2, "19.0 → 25.0 → 25.0 → 25.0")
		assertCell(t, fixed, 7, "retained")
		if strings.Contains(growthMD, "## Latency") {
			t.Error("a report without rounds has a latency section")
		}
		if !strings.Contains(growthMD, "](growth.png)") {
			t.Error("README does not embed growth.png")
		}
	})
	t.Run("version cells", func(t *testing.T) {
		r := row(t, versionMD, "", "[service_invocation/http](service_invocation/http/README.md)")
		assertCell(t, r, 1, "pass") // the result first
		assertCell(t, r, 2, "1.590 ms")
		row(t, versionMD, "", "[service_invocation/grpc](service_invocation/grpc/README.md)")
		g := row(t, versionMD, "Memory growth", "[memory_growth/http](memory_growth/http/README.md)")
		assertCells(t, g, g[0], "fixed", "caller-sidecar", "19.0 → 25.0", "614", "retained")
	})
	t.Run("png", func(t *testing.T) {
		n := 0
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || filepath.Ext(path) != ".png" {
				return err
			}
			n++
			h := chartHeight
			switch {
			case filepath.Base(filepath.Dir(path)) == "v1.17.5": // the version's cost chart
				h = 900
			case filepath.Base(path) == "cost.png": // two panels
				h += 150
			}
			assertPNG(t, path, chartWidth, h)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != 16 {
			t.Errorf("%d PNGs, want 7 per service-invocation scenario, 1 for memory growth and the version's cost chart", n)
		}
	})
}

func assertCells(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("row %q, want %q", got, want)
	}
}

func assertCell(t *testing.T, cells []string, i int, want string) {
	t.Helper()
	if i >= len(cells) || cells[i] != want {
		t.Errorf("cell %d of %q, want %q", i, cells, want)
	}
}

// assertPNG checks that path is a PNG w pixels wide and at least h high: the legend, drawn
// below the panels, adds its height.
func assertPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() < h {
		t.Errorf("%s: %dx%d, want %d wide and at least %d high", path, b.Dx(), b.Dy(), w, h)
	}
}

func readFixture(t *testing.T, dir string) *perf.Report {
	t.Helper()
	rep, err := report.ReadReport(filepath.Join(reportsFixtures, dir, resultFile))
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

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

func TestBadInput(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(reportsFixtures, httpDir, resultFile))
	if err != nil {
		t.Fatal(err)
	}
	schema3 := bytes.Replace(good, []byte(`"schema": 2,`), []byte(`"schema": 3,`), 1)
	if bytes.Equal(schema3, good) {
		t.Fatal("fixture has no schema field to change")
	}
	for _, tc := range []struct {
		name, content, want string
	}{
		{"malformed", `{"schema": 1, "test": `, "malformed"},
		{"schema 3", string(schema3), "schema 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := fixtureTree(t, reportsFixtures)
			bad := filepath.Join(root, "v1.17.5", "broken", "http", resultFile)
			if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(bad, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			err := generate(root, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %s and saying %q", err, bad, tc.want)
			}
			// Nothing is written when a file is bad, not even for the good ones.
			if _, err := os.Stat(filepath.Join(root, httpDir, "README.md")); !os.IsNotExist(err) {
				t.Errorf("README written despite a bad result file (stat: %v)", err)
			}
		})
	}
	t.Run("missing directory", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "nope")
		err := generate(missing, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), missing) {
			t.Fatalf("error %v, want one naming %s", err, missing)
		}
	})
	t.Run("no result files", func(t *testing.T) {
		empty := t.TempDir()
		err := generate(empty, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), empty) {
			t.Fatalf("error %v, want one naming %s", err, empty)
		}
	})
	t.Run("missing version", func(t *testing.T) {
		root := fixtureTree(t, compareFixtures)
		opts := defaultCompareOptions()
		opts.Reports = root
		code, err := compare(opts, "v1.16.5", "v9.9.9", &bytes.Buffer{})
		if want := filepath.Join(root, "v9.9.9"); code != exitBadInput || err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v, want one naming %s", err, want)
		}
	})
}

func TestCompare(t *testing.T) {
	root := fixtureTree(t, compareFixtures)
	var out bytes.Buffer
	opts := defaultCompareOptions()
	opts.Reports, opts.Out = root, filepath.Join(root, "README.md")
	code, err := compare(opts, "v1.16.5", "v1.17.5", &out)
	if err != nil || code != exitNoRegression {
		t.Fatalf("compare: exit %d, %v", code, err)
	}
	md := readFile(t, filepath.Join(root, "README.md"))
	golden(t, "compare.golden.md", md)

	// 3 rounds against 3: the Mann-Whitney U cannot go below 2/C(6,3) = 0.1, so no 99 %
	// interval exists and no change can be called regressed, not even +20 % with the rounds
	// fully apart: undecided, its widest interval shown at 90 %. Figures equal in every round
	// are same: their widest interval, [0, 0] at exactly 90 %, is within the margin.
	grpc := row(t, md, "service_invocation/grpc", "overhead p90")
	assertCells(t, grpc, "overhead p90", "+1.000 ms", "+1.200 ms", "+20.0 %", "[+5.0 %, +35.0 %] 90.0 % (widest)", "p=0.100 n=3+3", perf.VerdictUndecided)
	http := row(t, md, "service_invocation/http", "overhead p90")
	assertCell(t, http, 3, "+5.0 %")
	assertCell(t, http, 6, perf.VerdictUndecided)
	single := row(t, md, "single_run/http", "overhead p90")
	assertCell(t, single, 3, "+10.0 %")
	assertCell(t, single, 5, "p=1.000 n=1+1")
	assertCell(t, single, 6, perf.VerdictUndecided)
	assertCells(t, row(t, md, "service_invocation/grpc", "callee sidecar CPU"),
		"callee sidecar CPU", "200 mCPU", "220 mCPU", "+10.0 %", "[+10.0 %, +10.0 %] 90.0 % (widest)", "p=0.100 n=3+3", perf.VerdictUndecided)
	assertCells(t, row(t, md, "service_invocation/grpc", "caller sidecar memory"),
		"caller sidecar memory", "36.0 MiB", "36.0 MiB", "+0.0 %", "[+0.0 %, +0.0 %] 90.0 % (widest)", "p=1.000 n=3+3", perf.VerdictSame)
	if !strings.Contains(md, "No gating figure regressed (99 % interval, minimum change 5 %, margin ± 5 %). 30 figures undecided") {
		t.Errorf("no verdict line in:\n%s", md)
	}

	chart := filepath.Join(root, "compare-v1.16.5-v1.17.5.png")
	if !strings.Contains(out.String(), chart) {
		t.Errorf("output %q does not name the chart", out.String())
	}
	if !strings.Contains(md, "](compare-v1.16.5-v1.17.5.png)") {
		t.Error("README does not embed the chart")
	}
	// 3 scenarios × p50/p90/p99.
	assertPNG(t, chart, 90*9+160, chartHeight)

	c, err := loadComparison(opts, "v1.16.5", "v1.17.5")
	if err != nil {
		t.Fatal(err)
	}
	fig, err := compareChart(c)
	if err != nil {
		t.Fatal(err)
	}
	// Two scenarios have intervals in both versions: 2 × 3 bars per version.
	eb := errorBars(fig)
	if len(eb) != 2 || len(eb[0].YErrors) != 6 || len(eb[1].YErrors) != 6 {
		t.Errorf("compare chart interval plotters %v, want 2 of 6 bars", eb)
	}
}

func TestCommandLine(t *testing.T) {
	root := fixtureTree(t, compareFixtures)
	out := filepath.Join(t.TempDir(), "cmp", "COMPARE.md")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-reports", root, "compare", "-out", out, "v1.16.5", "v1.17.5"}, &stdout, &stderr); code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr.String())
	}
	md := readFile(t, out)
	// Links to the scenarios (their result files: no README is drawn yet) are relative to the
	// output file.
	rel, _ := filepath.Rel(filepath.Dir(out), filepath.Join(root, "v1.16.5", "service_invocation", "grpc", "result.json"))
	if !strings.Contains(md, "[v1.16.5]("+filepath.ToSlash(rel)+")") {
		t.Errorf("no link to %s in:\n%s", rel, md)
	}
	assertPNG(t, filepath.Join(filepath.Dir(out), "compare-v1.16.5-v1.17.5.png"), 90*9+160, chartHeight)

	if code := run([]string{"-reports", root}, &stdout, &stderr); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(root, "v1.17.5", "README.md")); err != nil {
		t.Error(err)
	}

	for _, args := range [][]string{{"frobnicate"}, {"compare", "a", "b", "c"}, {"-nope"}, {"compare", "-nope", "a", "b"}} {
		stderr.Reset()
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if !strings.Contains(stderr.String(), "usage:") {
			t.Errorf("%q: no usage in %q", args, stderr.String())
		}
	}
	stderr.Reset()
	if code := run([]string{"-reports", filepath.Join(root, "nope")}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "nope") {
		t.Errorf("missing reports: exit %d, stderr %q", code, stderr.String())
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
	if got, ok := phaseQuantile(&perf.Report{}, perf.PhaseMain, 50); ok || got != 0 {
		t.Errorf("no results: %v, %v", got, ok)
	}
}

func TestGrowthComparisonSetsVerdictsSideBySide(t *testing.T) {
	g := growthReport().Growth
	var b strings.Builder
	writeGrowthComparison(&b, "v1.16.5", "v1.17.5", g, g)
	out := b.String()
	for _, want := range []string{
		"| variant | sidecar | v1.16.5 slope | v1.16.5 verdict | v1.17.5 slope | v1.17.5 verdict |",
		"| unique | caller-sidecar | 6997 | growing | 6997 | growing |",
		"| fixed | callee-sidecar |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("growth comparison lacks %q:\n%s", want, out)
		}
	}
}

func TestWrapTitle(t *testing.T) {
	got := wrapTitle("service_invocation over gRPC: sidecar overhead per percentile, 3 rounds, median and bootstrap interval (older result file)", 60)
	// Broken after the last ", " or ": " that fits.
	want := "service_invocation over gRPC:\nsidecar overhead per percentile, 3 rounds,\nmedian and bootstrap interval (older result file)"
	if got != want {
		t.Errorf("wrapTitle:\n%s\nwant\n%s", got, want)
	}
	if got := wrapTitle("short\nlines", 60); got != "short\nlines" {
		t.Errorf("short lines changed: %q", got)
	}
}

// writeHeapPair writes two heap profiles of this process to dir, the second after allocating
// with a function of its own, and returns their names (for SidecarProfiles.Files).
func writeHeapPair(t *testing.T, dir string, alloc func()) map[string]string {
	t.Helper()
	write := func(name string) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		runtime.GC()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			t.Fatal(err)
		}
	}
	write("d.heap-start.pb.gz")
	alloc()
	write("d.heap-end.pb.gz")
	return map[string]string{"heap-start": "d.heap-start.pb.gz", "heap-end": "d.heap-end.pb.gz"}
}

var profileSink [][]byte

//go:noinline
func allocateInA() {
	for range 400 {
		profileSink = append(profileSink, make([]byte, 64<<10))
	}
}

//go:noinline
func allocateInB() {
	for range 400 {
		profileSink = append(profileSink, make([]byte, 64<<10))
	}
}

// With profiles on both sides, compare adds each role's profile difference under the
// scenario's table: here the bytes allocated moved from one function to another.
func TestCompareProfiles(t *testing.T) {
	root := fixtureTree(t, compareFixtures)
	for v, alloc := range map[string]func(){"v1.16.5": allocateInA, "v1.17.5": allocateInB} {
		dir := filepath.Join(root, v, "service_invocation", "http")
		files := writeHeapPair(t, dir, alloc)
		path := filepath.Join(dir, "result.json")
		var raw map[string]any
		if err := json.Unmarshal([]byte(readFile(t, path)), &raw); err != nil {
			t.Fatal(err)
		}
		raw["profiles"] = []perf.SidecarProfiles{{Process: "testapp-daprd", Role: perf.RoleCalleeSidecar, During: "round 1", Files: files}}
		b, err := json.Marshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	profileSink = nil
	opts := defaultCompareOptions()
	opts.Reports = root
	var out bytes.Buffer
	if _, err := compare(opts, "v1.16.5", "v1.17.5", &out); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	for _, want := range []string{"Profiles, v1.17.5 against v1.16.5", "profile diff, callee-sidecar's bytes allocated, B - A",
		"allocateInB +", "allocateInA -"} {
		if !strings.Contains(md, want) {
			t.Errorf("compare does not say %q:\n%s", want, md)
		}
	}
}
