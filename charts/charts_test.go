package main

import (
	"bytes"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/daprperf/daprperf/perf"
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
		filepath.Join(root, grpcDir, "README.md") + " (6 charts)",
		filepath.Join(root, httpDir, "README.md") + " (6 charts)",
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
		assertCell(t, sum, 5, "+1.060 / +1.480 / +2.900 ms")
		assertCell(t, sum, 6, "202 mCPU / 51.0 MiB")
		assertCell(t, sum, 7, "230 mCPU / 46.0 MiB")
		assertCell(t, sum, 8, "60,000")
		assertCell(t, sum, 9, "100 %")
		assertCell(t, sum, 10, "999.94")
		assertCell(t, sum, 11, "pass")
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
		ov := row(t, grpcMD, "Latency", "overhead [95 % interval]")
		assertCell(t, ov, 2, "+1.950 ms [+1.920, +2.020]")
		sum := row(t, grpcMD, "", "grpc")
		assertCell(t, sum, 8, "180,000")
		assertCell(t, sum, 9, "99.998 %")
		assertCell(t, sum, 10, "980.00")
		assertCell(t, sum, 11, "FAIL (invalid)")
		assertCells(t, row(t, grpcMD, "Rounds", "2"), "2", "0.620 / 1.050 / 1.500 ms", "2.300 / 3.000 / 4.700 ms",
			"60,000", "3", "999.95 / 980.00", "2.00 %")
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
		assertCell(t, r, 1, "1.590 ms")
		assertCell(t, r, 11, "pass")
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
			assertPNG(t, path, chartWidth, chartHeight)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != 13 {
			t.Errorf("%d PNGs, want 6 per service-invocation scenario and 1 for memory growth", n)
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
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("%s: %dx%d, want %dx%d", path, b.Dx(), b.Dy(), w, h)
	}
}

func readFixture(t *testing.T, dir string) *perf.Report {
	t.Helper()
	rep, err := perf.ReadReport(filepath.Join(reportsFixtures, dir, resultFile))
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
	if got := fig.Plot.Y.Label.Text; got != "latency (ms)" {
		t.Errorf("p99.9 6.61 ms: axis %q, want ms", got)
	}
	// Everything below 1 ms: the axis switches to µs and the bars to µs values.
	for i := range rep.Rounds {
		for _, r := range []*perf.Result{&rep.Rounds[i].Baseline, &rep.Rounds[i].Main} {
			for j := range r.Latency.Percentiles {
				r.Latency.Percentiles[j].Seconds /= 10
			}
		}
	}
	fig, err = latencyChart(rep)
	if err != nil {
		t.Fatal(err)
	}
	if got := fig.Plot.Y.Label.Text; got != "latency (µs)" {
		t.Errorf("p99.9 0.661 ms: axis %q, want µs", got)
	}
	if b := fig.Layers[0].(*bars).Bars[0]; !near(b.Y, 53) {
		t.Errorf("baseline p50 bar %v µs, want 53", b.Y)
	}
}

func TestChartsSkipWhatIsMissing(t *testing.T) {
	rep := readFixture(t, httpDir)
	for i := range rep.Rounds {
		rep.Rounds[i].Resources = nil
		rep.Rounds[i].Main.Latency.Histogram = nil
		rep.Rounds[i].Baseline.Latency.Histogram = nil
	}
	for _, build := range []func(*perf.Report) (*figure, error){cpuChart, rssChart} {
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
	schema2 := bytes.Replace(good, []byte(`"schema": 1,`), []byte(`"schema": 2,`), 1)
	if bytes.Equal(schema2, good) {
		t.Fatal("fixture has no schema field to change")
	}
	for _, tc := range []struct {
		name, content, want string
	}{
		{"malformed", `{"schema": 1, "test": `, "malformed"},
		{"schema 2", string(schema2), "schema 2"},
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

	// 3 rounds against 3: the U test cannot go below p = 0.1, so no change can be told apart,
	// not even +20 % with the rounds fully apart.
	grpc := row(t, md, "service_invocation/grpc", "overhead p90")
	assertCells(t, grpc, "overhead p90", "+1.000 ms", "+1.200 ms", "+20.0 %", "p=0.100 n=3+3", perf.VerdictTooFew)
	http := row(t, md, "service_invocation/http", "overhead p90")
	assertCell(t, http, 3, "+5.0 %")
	assertCell(t, http, 5, perf.VerdictTooFew)
	single := row(t, md, "single_run/http", "overhead p90")
	assertCell(t, single, 3, "+10.0 %")
	assertCell(t, single, 4, "p=1.000 n=1+1")
	assertCell(t, single, 5, perf.VerdictTooFew)
	assertCells(t, row(t, md, "service_invocation/grpc", "callee sidecar CPU"),
		"callee sidecar CPU", "200 mCPU", "220 mCPU", "+10.0 %", "p=0.100 n=3+3", perf.VerdictTooFew)
	if !strings.Contains(md, "No regression beyond noise") {
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
	if got, ok := medianPercentile(nil, 50); ok || got != 0 {
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
