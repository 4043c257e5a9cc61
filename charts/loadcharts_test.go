package charts

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// The stage run's and the delivery run's reports render in a real browser with every chart
// decoded and no console message.
func TestLoadsHTMLReportInChromium(t *testing.T) {
	bin := chromiumBinary(t)
	root := fixtureTree(t, loadsFixtures)
	if err := generate(root, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for test, want := range map[string]string{"pubsub_publish": `data-charts="3/3"`, "pubsub_bulk_subscribe_redis": `data-charts="4/4"`} {
		page, err := filepath.Abs(filepath.Join(root, test, "http", reportHTMLFile))
		if err != nil {
			t.Fatal(err)
		}
		dom, log := runChromium(t, bin, "file://"+page, "--dump-dom")
		if msgs := consoleLines(log); len(msgs) > 0 {
			t.Errorf("%s: console messages:\n%s", test, strings.Join(msgs, "\n"))
		}
		if !strings.Contains(dom, want) {
			t.Errorf("%s: the rendered page lacks %s", test, want)
		}
		if !strings.Contains(dom, "<h2>Loads</h2>") {
			t.Errorf("%s: the rendered page has no Loads table", test)
		}
	}
}

// The errors bound of a delivery run counts failed publishes and timed-out waits: a run that
// failed it by its timed-out waits shows them as a bar carrying the FAIL, and its 0 publish
// errors without one.
func TestDeliveryChartPutsTheErrorsVerdictOnTheTimedOutWaits(t *testing.T) {
	rep := loadsFixture(t, "pubsub_bulk_subscribe_redis")
	rep.Delivery.PublishErrors, rep.Delivery.AwaitTimeouts = 0, 366
	for i := range rep.Verdicts {
		if rep.Verdicts[i].Figure == "errors" {
			rep.Verdicts[i].Got, rep.Verdicts[i].Pass = 366, false
		}
	}
	fig, err := deliveryChart(rep)
	if err != nil || fig == nil {
		t.Fatalf("chart %v, %v", fig, err)
	}
	lbl := fig.BelowLayers[len(fig.BelowLayers)-1].(*plotter.Labels)
	if got := lbl.Labels[4:6]; !slices.Equal(got, []string{"0", "366 (≤ 0: FAIL)"}) {
		t.Errorf("publish errors and timed-out waits labelled %q, want the FAIL on the waits", got)
	}
}

// A closed loop's rounds have no target rate: the rate chart gives the rate each phase reached,
// never a "target 1 QPS" or a ratio to it.
func TestClosedLoopRateChartHasNoTarget(t *testing.T) {
	rep, err := report.ReadReport(filepath.Join("..", "reports", "v1.18.3", "service_invocation_ramp", "http", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	fig, err := qpsChart(rep)
	if err != nil || fig == nil {
		t.Fatalf("chart %v, %v", fig, err)
	}
	if title := fig.Plot.Title.Text; !strings.Contains(title, "closed loop: no target rate") || strings.Contains(title, "target 1 QPS") {
		t.Errorf("title %q", title)
	}
	if fig.Below != nil || fig.Plot.Y.Label.Text != "achieved rate (requests/s)" {
		t.Errorf("want one panel of achieved rates, got below %v, y %q", fig.Below, fig.Plot.Y.Label.Text)
	}
}

// Of several sidecars in one role (actor hosts), the summary's cell is the busiest one's, the
// sidecar that took the load, not the first listed.
func TestSidecarCellIsTheBusiestOfItsRole(t *testing.T) {
	rep := &perf.Report{Resources: []perf.ResourceSummary{
		{Process: "host-0-daprd", Role: perf.RoleCalleeSidecar, MeanCPUCores: 0.001, PeakRSSBytes: 80 << 20},
		{Process: "host-1-daprd", Role: perf.RoleCalleeSidecar, MeanCPUCores: 0.466, PeakRSSBytes: 120 << 20},
		{Process: "host-2-daprd", Role: perf.RoleCalleeSidecar, MeanCPUCores: 0.002, PeakRSSBytes: 81 << 20},
	}}
	if got := sidecarCell(rep, perf.RoleCalleeSidecar); got != "466 mCPU / 120.0 MiB" {
		t.Errorf("callee sidecar cell %q, want the busiest host's", got)
	}
}

// A delivery run's timeline: latency per second above, messages received per second below
// against those published (each second's publish requests times the messages a request
// carried), on one clock; none for a file without the subscriber's timeline.
func TestDeliveryTimelineChart(t *testing.T) {
	rep := loadsFixture(t, "pubsub_subscribe_redis")
	if fig, err := deliveryTimelineChart(rep); err != nil || fig != nil {
		t.Fatalf("a file without the timeline: chart %v, %v", fig, err)
	}
	pub := &rep.Loads[0].Result
	pub.Timeline = []perf.Second{{T: 0, Requests: 10}, {T: 1, Requests: 10}}
	pub.ActualDuration = 2 * time.Second
	rep.Delivery.TimelineStart = pub.StartTime.Add(500 * time.Millisecond)
	rep.Delivery.Timeline = []perf.Second{
		{T: 0, Requests: 8, P50Seconds: 0.002, P99Seconds: 0.009},
		{T: 1, Requests: 13, Errors: 1, P50Seconds: 0.003, P99Seconds: 0.012},
	}
	fig, err := deliveryTimelineChart(rep)
	if err != nil || fig == nil {
		t.Fatalf("chart %v, %v", fig, err)
	}
	var lines []*plotter.Line
	for _, l := range fig.BelowLayers {
		if ln, ok := l.(*plotter.Line); ok {
			lines = append(lines, ln)
		}
	}
	if len(lines) != 3 {
		t.Fatalf("%d series below, want received, duplicates and published", len(lines))
	}
	per := float64(rep.Delivery.Sent) / float64(pub.Requests)
	if got := lines[0].XYs; got[0].X != 1 || got[1].Y != 12 { // received 0.5 s after the publisher's start
		t.Errorf("received %v: want the first second at x = 1.0 and 13 - 1 duplicate = 12 in the second", got)
	}
	if got := lines[2].XYs; len(got) != 2 || got[0].X != 0.5 || got[0].Y != 10*per {
		t.Errorf("published %v: want 10 requests x %.1f messages at x = 0.5", got, per)
	}
}

// A fault run's page says which fault went where, and has a row per actor host.
func TestPageHasTheFaultAndTheActorHosts(t *testing.T) {
	rep, err := report.ReadReport(filepath.Join("..", "reports", "v1.18.3", "actor_double_activation", "http", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	page := scenarioMarkdown(rep, nil)
	for _, want := range []string{"\n## The fault injected\n\nInto the actor host actorapp-1: each call held 50ms, 10 % of them answered with a failure, over a window of 15s. Opened on",
		"\n## Actor hosts\n", "| actorapp-1 | 1 | 0 | 1 | 1 | 0 |"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
