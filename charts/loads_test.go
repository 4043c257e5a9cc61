package charts

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// loadsFixtures are real result files of 10 s smoke runs on this project's 2-core machine
// (DAPR_TEST_DURATION=10s DAPR_PERF_QPS=100 DAPR_PERF_WARMUP_DURATION=3s, daprd 1.17.5): the
// stage plan (pubsub_publish, 8 stages, 7 of them over their 1 ms mean bound), the iterations
// plan (workflow_constant_vus_inmemory, 3 runs of 15 workflows), the delivery plan
// (pubsub_subscribe_redis, valid; pubsub_bulk_subscribe_redis, INVALID: 22.5 % of its publishes
// late), the jobs trigger plan (jobs_triggering, 333 jobs) and the reminder plan
// (actor_reminder: 1,000 registrations at 100/s, then 1,000 reminders x 5 fires), and the
// fault plan (actor_double_activation: closed-loop base and faults phases, 19 injected 500s);
// configuration_subscribe is the delivery plan in its configuration mode (1,000 updates).
const loadsFixtures = "testdata/loads"

func loadsFixture(t *testing.T, test string) *perf.Report {
	t.Helper()
	rep, err := report.ReadReport(filepath.Join(loadsFixtures, test, "http", resultFile))
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// pngSize decodes b as a PNG and returns its size.
func pngSize(t *testing.T, name string, b []byte) (int, int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return img.Bounds().Dx(), img.Bounds().Dy()
}

func TestGenerateChartsThePlansOfNamedLoads(t *testing.T) {
	root := fixtureTree(t, loadsFixtures)
	var out bytes.Buffer
	if err := generate(root, &out); err != nil {
		t.Fatal(err)
	}
	// The charts of each plan, and their size in pixels: wide for eight stages, two panels
	// for the rate kept and for the counting plans.
	want := map[string]map[string][2]int{
		"pubsub_publish": {
			"loads-latency.png": {920, chartHeight}, "loads-rate.png": {920, chartHeight + 100}, "loads-spectrum.png": {chartWidth, chartHeight},
		},
		"workflow_constant_vus_inmemory": {
			"loads-latency.png": {chartWidth, chartHeight}, "loads-rate.png": {chartWidth, chartHeight}, "loads-spectrum.png": {chartWidth, chartHeight},
		},
		"pubsub_subscribe_redis": {
			"loads-latency.png": {chartWidth, chartHeight}, "loads-rate.png": {chartWidth, chartHeight + 100},
			"loads-spectrum.png": {chartWidth, chartHeight}, "delivery.png": {chartWidth, chartHeight + 150},
		},
		"pubsub_bulk_subscribe_redis": {
			"loads-latency.png": {chartWidth, chartHeight}, "loads-rate.png": {chartWidth, chartHeight + 100},
			"loads-spectrum.png": {chartWidth, chartHeight}, "delivery.png": {chartWidth, chartHeight + 150},
		},
		"jobs_triggering": {"jobs.png": {chartWidth, chartHeight + 150}},
		"configuration_subscribe": {
			"loads-latency.png": {chartWidth, chartHeight}, "loads-rate.png": {chartWidth, chartHeight + 100},
			"loads-spectrum.png": {chartWidth, chartHeight}, "delivery.png": {chartWidth, chartHeight + 150},
		},
		"actor_double_activation": {
			"loads-latency.png": {chartWidth, chartHeight}, "loads-rate.png": {chartWidth, chartHeight}, "loads-spectrum.png": {chartWidth, chartHeight},
		},
		"actor_reminder": {
			"loads-latency.png": {chartWidth, chartHeight}, "loads-rate.png": {chartWidth, chartHeight},
			"loads-spectrum.png": {chartWidth, chartHeight}, "reminders.png": {chartWidth, chartHeight + 150},
		},
	}
	for test, charts := range want {
		dir := filepath.Join(root, test, "http")
		if !strings.Contains(out.String(), filepath.Join(dir, "README.md")+" ("+strconv.Itoa(len(charts))+" charts)") {
			t.Errorf("%s: output lacks its %d charts:\n%s", test, len(charts), out.String())
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var pngs []string
		for _, e := range entries {
			if filepath.Ext(e.Name()) == ".png" {
				pngs = append(pngs, e.Name())
			}
		}
		for name, size := range charts {
			if !slices.Contains(pngs, name) {
				t.Errorf("%s: no %s (has %v)", test, name, pngs)
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if w, h := pngSize(t, name, b); w != size[0] || h < size[1] {
				t.Errorf("%s/%s: %dx%d, want %d wide and at least %d high (the legend below adds)", test, name, w, h, size[0], size[1])
			}
			md := readFile(t, filepath.Join(dir, "README.md"))
			if !strings.Contains(md, "]("+name+")") {
				t.Errorf("%s: README does not embed %s", test, name)
			}
			svg, err := os.ReadFile(filepath.Join(dir, svgFile(name)))
			if err != nil {
				t.Errorf("%s: no SVG beside %s: %v", test, name, err)
			}
			page := readFile(t, filepath.Join(dir, reportHTMLFile))
			if !strings.Contains(page, "data:image/svg+xml;base64,"+base64.StdEncoding.EncodeToString(svg)) {
				t.Errorf("%s: report.html does not embed %s's SVG", test, name)
			}
		}
		if len(pngs) != len(charts) {
			t.Errorf("%s: PNGs %v, want %d", test, pngs, len(charts))
		}
	}

	// The version README's summary has a row, with its figures, for every one of them.
	ver := readFile(t, filepath.Join(root, "README.md"))
	pub := row(t, ver, "", "[pubsub_publish/http](pubsub_publish/http/README.md)")
	assertCell(t, pub, 2, "1.439 ms (service time, 8 stages merged)")
	assertCell(t, pub, 6, "n/a (no baseline)")
	assertCell(t, pub, 8, "3 mCPU / 88.8 MiB") // publisher-daprd, the caller's sidecar
	assertCell(t, pub, 9, "988")
	assertCell(t, pub, 10, "100 %")
	assertCell(t, pub, 11, "99.68 of 100 (31kb-200ps, lowest)")
	assertCell(t, pub, 1, "FAIL")
	wf := row(t, ver, "", "[workflow_constant_vus_inmemory/http](workflow_constant_vus_inmemory/http/README.md)")
	assertCell(t, wf, 2, "270.270 ms (iteration duration, 3 runs merged)")
	assertCell(t, wf, 9, "45")
	assertCell(t, wf, 11, "51.70 workflows/s (t_30_300-2, lowest)")
	sub := row(t, ver, "", "[pubsub_subscribe_redis/http](pubsub_subscribe_redis/http/README.md)")
	assertCell(t, sub, 2, "2.845 ms (delivery latency)") // the stored p50: 0.002844671 s
	assertCell(t, sub, 5, "7.922 ms")
	assertCell(t, sub, 1, "pass")
	cfg := row(t, ver, "", "[configuration_subscribe/http](configuration_subscribe/http/README.md)")
	assertCell(t, cfg, 2, "1.701 ms (update-to-notification latency)")
	bulk := row(t, ver, "", "[pubsub_bulk_subscribe_redis/http](pubsub_bulk_subscribe_redis/http/README.md)")
	assertCell(t, bulk, 1, "FAIL (invalid)")
	jobs := row(t, ver, "", "[jobs_triggering/http](jobs_triggering/http/README.md)")
	assertCell(t, jobs, 2, "3.644 ms (trigger lag)")
	assertCell(t, jobs, 5, "n/a") // no p99.9 of the lag is stored
	assertCell(t, jobs, 11, "333 triggers/s")
	fault := row(t, ver, "", "[actor_double_activation/http](actor_double_activation/http/README.md)")
	assertCell(t, fault, 9, "17,288")
	assertCell(t, fault, 10, "99.890 %")
	assertCell(t, fault, 11, "24.76/s (faults, lowest)")
	rem := row(t, ver, "", "[actor_reminder/http](actor_reminder/http/README.md)")
	assertCell(t, rem, 2, "865.889 ms (fire lag)") // lagSeconds.p50 0.865888689

	// The per-load table of the stage run, with each stage's bound and verdict.
	md := readFile(t, filepath.Join(root, "pubsub_publish", "http", "README.md"))
	assertCells(t, row(t, md, "Loads", "2kb-200ps"), "2kb-200ps", "100/s", "99.88/s", "192", "0",
		"1.296 ms", "1.839 ms", "2.376 ms", "3.006 ms", "1.364 ms", "mean ≤ 1.000 ms: FAIL")
	assertCell(t, row(t, md, "Loads", "31kb-1ps"), 10, "mean ≤ 1.000 ms: pass")
	jmd := readFile(t, filepath.Join(root, "jobs_triggering", "http", "README.md"))
	assertCells(t, row(t, jmd, "Jobs", "fired / never fired / fired twice / unexpected"),
		"fired / never fired / fired twice / unexpected", "333 / 0 / 0 / 0")
	bmd := readFile(t, filepath.Join(root, "pubsub_bulk_subscribe_redis", "http", "README.md"))
	if !strings.Contains(bmd, "## Delivery\n\n**INVALID RUN**") {
		t.Error("the invalid delivery run's table is not marked INVALID")
	}

	// The run summary (a CI job summary) fills the same figure columns.
	var sum bytes.Buffer
	if err := runSummary(root, &sum); err != nil {
		t.Fatal(err)
	}
	srow := row(t, sum.String(), "", "pubsub_publish/http")
	assertCell(t, srow, 4, "FAIL")
	assertCell(t, srow, 5, "1.439 ms (service time, 8 stages merged)")
}

func TestLoadsLatencyChartDrawsEveryStageAndItsBound(t *testing.T) {
	rep := loadsFixture(t, "pubsub_publish")
	fig, err := loadsLatencyChart(rep)
	if err != nil || fig == nil {
		t.Fatalf("chart %v, %v", fig, err)
	}
	// One scatter per percentile and one of means, eight points each, at the stages' values.
	var scatters []*plotter.Scatter
	var bounds []*plotter.Line
	for _, l := range fig.Layers {
		switch pl := l.(type) {
		case *plotter.Scatter:
			scatters = append(scatters, pl)
		case *plotter.Line:
			if pl.Color == boundColor {
				bounds = append(bounds, pl)
			}
		}
	}
	if len(scatters) != len(loadPercentiles)+1 {
		t.Fatalf("%d scatters, want one per percentile and the means", len(scatters))
	}
	p99 := scatters[3]
	if len(p99.XYs) != 8 || p99.XYs[5].Y < 7.44 || p99.XYs[5].Y > 7.46 {
		t.Errorf("p99 points %v: want 8 stages, stage 31kb-20ps at 7.451 ms", p99.XYs)
	}
	if len(bounds) != 8 {
		t.Errorf("%d bound segments, want one per stage", len(bounds))
	}
	for _, b := range bounds {
		if !near(b.XYs[0].Y, 1) {
			t.Errorf("bound at %v ms, want 1 ms (Dapr's avg < 1 ms)", b.XYs[0].Y)
		}
	}
	labels := fig.Plot.X.Tick.Marker.Ticks(fig.Plot.X.Min, fig.Plot.X.Max)
	if got := labels[0].Label; got != "2kb-200ps\nmean FAIL" {
		t.Errorf("first stage's label %q, want its failed bound named", got)
	}
	if got := labels[7].Label; got != "31kb-1ps" {
		t.Errorf("last stage's label %q: it passed, nothing to add", got)
	}
}

func TestLoadsRateChartShowsTheTargetOrTheClosedLoopRate(t *testing.T) {
	// Fixed-rate stages: achieved / target per stage, with the validity lines, two panels.
	fig, err := loadsRateChart(loadsFixture(t, "pubsub_publish"))
	if err != nil || fig == nil || fig.Below == nil {
		t.Fatalf("stage rate chart %v, %v: want two panels", fig, err)
	}
	line := fig.Layers[0].(*plotter.Line)
	if len(line.XYs) != 8 || line.XYs[4].Y < 99.6 || line.XYs[4].Y > 99.7 {
		t.Errorf("achieved / target %v: want 8 stages, 31kb-200ps at 99.68 %%", line.XYs)
	}
	// Workflow runs: a bar per run at its workflows/s, labelled with its iterations.
	fig, err = loadsRateChart(loadsFixture(t, "workflow_constant_vus_inmemory"))
	if err != nil || fig == nil || fig.Below != nil {
		t.Fatalf("iterations rate chart %v, %v: want one panel", fig, err)
	}
	bs := fig.Layers[0].(*bars)
	if len(bs.Bars) != 3 || bs.Bars[1].Y < 51.7 || bs.Bars[1].Y > 51.71 {
		t.Errorf("bars %v: want 3 runs, the second at 51.70 workflows/s", bs.Bars)
	}
	lbl := fig.Layers[1].(*plotter.Labels)
	if lbl.Labels[0] != "52/s\n15 of 15 iterations" {
		t.Errorf("label %q", lbl.Labels[0])
	}
	if fig.Plot.Y.Label.Text != "workflows/s" {
		t.Errorf("y axis %q", fig.Plot.Y.Label.Text)
	}
}

func TestDeliveryChartCountsAndMarksTheInvalidRun(t *testing.T) {
	for _, tc := range []struct {
		test    string
		invalid bool
	}{{"pubsub_subscribe_redis", false}, {"pubsub_bulk_subscribe_redis", true}} {
		rep := loadsFixture(t, tc.test)
		fig, err := deliveryChart(rep)
		if err != nil || fig == nil {
			t.Fatalf("%s: chart %v, %v", tc.test, fig, err)
		}
		var counts *plotter.Labels
		for _, l := range fig.BelowLayers {
			if lb, ok := l.(*plotter.Labels); ok {
				counts = lb
			}
		}
		if counts == nil || !slices.Equal(counts.Labels, []string{"1,000", "1,000", "0 (≤ 0: pass)", "0", "0 (≤ 0: pass)", "0", "0"}) {
			t.Errorf("%s: counts %v: want sent, received, lost, duplicated, publish errors (the errors bound's, none timed out), waits timed out, stale", tc.test, counts)
		}
		marked := strings.HasPrefix(fig.Plot.Title.Text, invalidMark) && fig.Plot.Title.TextStyle.Color == boundColor
		if marked != tc.invalid {
			t.Errorf("%s: marked invalid %v, want %v (title %q)", tc.test, marked, tc.invalid, fig.Plot.Title.Text)
		}
	}
	// The valid run's 1.5 s bound on p95 is far above its 5 ms latencies: kept off the axis.
	fig, _ := deliveryChart(loadsFixture(t, "pubsub_subscribe_redis"))
	if fig.Plot.Y.Max > 20 {
		t.Errorf("y axis up to %v ms: the far bound flattens the latency", fig.Plot.Y.Max)
	}
}

func TestJobsChartLagAndCounts(t *testing.T) {
	fig, err := jobsChart(loadsFixture(t, "jobs_triggering"))
	if err != nil || fig == nil || fig.Below == nil {
		t.Fatalf("chart %v, %v", fig, err)
	}
	line := fig.Layers[0].(*plotter.Scatter)
	if len(line.XYs) != 4 || line.XYs[0].X != 1 || !near1(line.XYs[1].X, 2) || !near1(line.XYs[3].X, 100) || line.XYs[3].Y < 12.8 || line.XYs[3].Y > 12.9 {
		t.Errorf("lag points %v: want min, p50, p90, p99 on the percentile axis, p99 12.88 ms, as points with no line between", line.XYs)
	}
}

func TestRemindersChartCounts(t *testing.T) {
	fig, err := remindersChart(loadsFixture(t, "actor_reminder"))
	if err != nil || fig == nil {
		t.Fatalf("chart %v, %v", fig, err)
	}
	lbl := fig.BelowLayers[len(fig.BelowLayers)-1].(*plotter.Labels)
	if !slices.Equal(lbl.Labels, []string{"1,000", "0", "5,000", "5,041", "0 (≤ 0: pass)"}) {
		t.Errorf("counts %v: want registered, registration errors, expected, arrived, missing", lbl.Labels)
	}
}

func TestChartsOfRoundsAreNotDrawnForLoads(t *testing.T) {
	rep := loadsFixture(t, "pubsub_publish")
	for _, spec := range scenarioCharts() {
		fig, err := spec.Build(rep)
		if err != nil {
			t.Fatalf("%s: %v", spec.File, err)
		}
		isLoads := strings.HasPrefix(spec.File, "loads-")
		if (fig != nil) != isLoads {
			t.Errorf("%s drawn %v for a stage run", spec.File, fig != nil)
		}
	}
	// And the rounds' fixtures get none of the loads' charts.
	for _, dir := range []string{httpDir, grpcDir, growthDir} {
		rep := readFixture(t, dir)
		for _, b := range []func(*perf.Report) (*figure, error){loadsLatencyChart, loadsRateChart, loadsSpectrumChart, deliveryChart, jobsChart, remindersChart} {
			if fig, err := b(rep); fig != nil || err != nil {
				t.Errorf("%s: a loads chart drawn (%v)", dir, err)
			}
		}
	}
}

// near1 is a within 1e-6 of b, relatively.
func near1(a, b float64) bool { return a-b < 1e-6*b && b-a < 1e-6*b }
