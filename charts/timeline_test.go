package charts

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// seconds is a timeline of n seconds at rate answers/s with p50 and p99 in ms, its last second
// half full.
func seconds(n, rate int, p50, p99 float64) []perf.Second {
	out := make([]perf.Second, n)
	for i := range out {
		out[i] = perf.Second{T: i, Requests: int64(rate), P50Seconds: p50 / 1e3, P99Seconds: p99 / 1e3, MaxSeconds: 2 * p99 / 1e3}
	}
	out[n-1].Requests /= 2
	return out
}

func TestTimelineChartPutsPhasesOnTheRunsClock(t *testing.T) {
	t0 := time.Unix(1000, 0)
	phase := func(start time.Duration, p50, p99 float64) perf.Result {
		return perf.Result{StartTime: t0.Add(start), RequestedQPS: 100, ActualDuration: 4*time.Second + 300*time.Millisecond, Timeline: seconds(5, 100, p50, p99)}
	}
	rep := &perf.Report{Test: "service_invocation", Transport: perf.HTTP, Validity: perf.Validity{Valid: true}, Rounds: []perf.Round{
		{Baseline: phase(0, 0.5, 1), Main: phase(10*time.Second, 1.5, 4)},
		{Baseline: phase(20*time.Second, 0.5, 1), Main: phase(30*time.Second, 1.5, 4)},
	}}
	fig, err := timelineChart(rep)
	if err != nil || fig == nil {
		t.Fatalf("timelineChart = %v, %v", fig, err)
	}
	ls := lines(fig)
	if len(ls) != 8 {
		t.Fatalf("%d latency lines, want p50 and p99 of 4 phases", len(ls))
	}
	// The third phase (round 2's baseline) starts 20 s in: its first point is the middle of
	// second 20, in ms (the largest p99 is 4 ms).
	if got := ls[4].XYs[0]; got.X != 20.5 || got.Y != 0.5 {
		t.Errorf("round 2 baseline p50 starts at %v, want (20.5, 0.5 ms)", got)
	}
	if got := ls[7].XYs[0]; got.X != 30.5 || got.Y != 4 {
		t.Errorf("round 2 main p99 starts at %v, want (30.5, 4 ms)", got)
	}
	if fig.Plot.X.Max != 35 || fig.Below.X.Max != 35 {
		t.Errorf("x axes end at %v and %v, want 35 s (the last phase's end)", fig.Plot.X.Max, fig.Below.X.Max)
	}
	if fig.legend != 0 {
		t.Errorf("%d legend entries over the latency lines, want them all in the lower panel", fig.legend)
	}
	var rates []plotter.XYs
	for _, l := range fig.BelowLayers {
		if line, ok := l.(*plotter.Line); ok && len(line.XYs) > 2 {
			rates = append(rates, line.XYs)
		}
	}
	if len(rates) != 4 {
		t.Fatalf("%d rate lines, want one per phase", len(rates))
	}
	// 4.3 s of load: seconds 0-3 are whole, second 4 (half full) is no rate and is left out.
	if n := len(rates[0]); n != 4 || rates[0][3].Y != 100 {
		t.Errorf("baseline rate %v, want 4 whole seconds at 100/s", rates[0])
	}
	path := filepath.Join(t.TempDir(), "timeline.png")
	if d := os.Getenv("CHARTS_KEEP"); d != "" {
		path = filepath.Join(d, "timeline.png")
	}
	if err := fig.writePNG(path); err != nil {
		t.Fatal(err)
	}
	assertPNG(t, path, chartWidth, chartHeight)
}

func TestTimelineChartNeedsATimeline(t *testing.T) {
	rep := readFixture(t, grpcDir) // written before timelines
	if fig, err := timelineChart(rep); fig != nil || err != nil {
		t.Errorf("timelineChart of a file without timelines = %v, %v; want nothing drawn", fig, err)
	}
}

// A linear axis gets 4 to 8 labelled ticks at round values, each label without trailing zeros.
func TestReadableTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		labels string
	}{
		{0, 50, "0 10 20 30 40 50"},
		{0, 4.7, "0 1 2 3 4"},
		{0, 0.33, "0 0.05 0.1 0.15 0.2 0.25 0.3"},
		{0, 125, "0 20 40 60 80 100 120"},
		{98, 100.5, "98 98.5 99 99.5 100 100.5"},
	} {
		var labels []string
		for _, tk := range (readableTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != tc.labels {
			t.Errorf("[%v, %v]: %q, want %q", tc.lo, tc.hi, got, tc.labels)
		}
	}
}

// A fault run's timeline shades the fault's window, from the faults phase's start for its
// length, in both panels.
func TestTimelineShadesTheFaultWindow(t *testing.T) {
	rep, err := report.ReadReport(filepath.Join("..", "reports", "v1.18.3", "actor_double_activation", "http", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range rep.Loads {
		rep.Loads[i].Timeline = []perf.Second{{T: 0, Requests: 10, P50Seconds: 0.01, P99Seconds: 0.02}, {T: 1, Requests: 12, P50Seconds: 0.01, P99Seconds: 0.03}}
	}
	fig, err := timelineChart(rep)
	if err != nil || fig == nil {
		t.Fatalf("chart %v, %v", fig, err)
	}
	t0 := rep.Loads[0].StartTime
	want := rep.Loads[1].StartTime.Sub(t0).Seconds()
	var shades []*plotter.Polygon
	for _, l := range append(append([]plot.Plotter{}, fig.Layers...), fig.BelowLayers...) {
		if p, ok := l.(*plotter.Polygon); ok {
			shades = append(shades, p)
		}
	}
	if len(shades) != 2 {
		t.Fatalf("%d shaded windows, want one per panel", len(shades))
	}
	if x := shades[0].XYs[0][0].X; math.Abs(x-want) > 1e-9 || math.Abs(shades[0].XYs[0][1].X-x-15) > 1e-9 {
		t.Errorf("window from %v, want from %v for 15 s", shades[0].XYs[0], want)
	}
}
