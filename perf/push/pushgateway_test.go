package push

// Tests against a real Prometheus Pushgateway, started per test on a free loopback port.
// Debian: apt-get install -y prometheus-pushgateway. Without the binary these tests skip, or
// fail when CI is set.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/internal/promtest"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/push"
)

// pushgateway is a real Pushgateway a test started (promtest.StartPushgateway), with the
// reads the tests make of it.
type pushgateway struct{ *promtest.Server }

// startPushgateway runs a Pushgateway on a free 127.0.0.1 port, without persistence, stopped
// by its PID when the test ends; without the binary the test skips (fails under CI).
func startPushgateway(t testing.TB) *pushgateway {
	t.Helper()
	return &pushgateway{promtest.StartPushgateway(t)}
}

// get fetches path from the gateway, bounded to 5 s.
func (g *pushgateway) get(t testing.TB, path string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v: %s", path, resp.Status, err, body)
	}
	return body
}

// pgwGroup is one group as GET /api/v1/metrics lists it.
type pgwGroup struct {
	Labels             map[string]string
	LastPushSuccessful bool
	Families           map[string]pgwFamily
}

type pgwFamily struct {
	Type    string `json:"type"`
	Help    string `json:"help"`
	Metrics []struct {
		Labels map[string]string `json:"labels"`
		Value  string            `json:"value"` // a float, as text
	} `json:"metrics"`
}

// groups reads every group from /api/v1/metrics.
func (g *pushgateway) groups(t testing.TB) []pgwGroup {
	t.Helper()
	var doc struct {
		Status string                       `json:"status"`
		Data   []map[string]json.RawMessage `json:"data"`
	}
	body := g.get(t, "/api/v1/metrics")
	if err := json.Unmarshal(body, &doc); err != nil || doc.Status != "success" {
		t.Fatalf("/api/v1/metrics: status %q, %v: %s", doc.Status, err, body)
	}
	var out []pgwGroup
	for _, raw := range doc.Data {
		grp := pgwGroup{Families: map[string]pgwFamily{}}
		for k, v := range raw {
			var err error
			switch k {
			case "labels":
				err = json.Unmarshal(v, &grp.Labels)
			case "last_push_successful":
				err = json.Unmarshal(v, &grp.LastPushSuccessful)
			default:
				var f pgwFamily
				err = json.Unmarshal(v, &f)
				grp.Families[k] = f
			}
			if err != nil {
				t.Fatalf("/api/v1/metrics: %s: %v", k, err)
			}
		}
		out = append(out, grp)
	}
	return out
}

// group returns the group whose labels are exactly key, failing the test if there is none.
func (g *pushgateway) group(t testing.TB, key map[string]string) pgwGroup {
	t.Helper()
	var have []map[string]string
	for _, grp := range g.groups(t) {
		if maps.Equal(grp.Labels, key) {
			return grp
		}
		have = append(have, grp.Labels)
	}
	t.Fatalf("no group %v on the gateway; it has %v", key, have)
	return pgwGroup{}
}

// pushGroupKey is the grouping key Push uses for a fixture report.
func pushGroupKey() map[string]string {
	return map[string]string{"job": "daprperf", "perf_test": "service-invocation-http", "test": "service_invocation_http", "version": "1.17.5"}
}

// pgwSeries checks that every series of grp carries the grouping key (plus the gateway's
// empty instance label) and, but for the gateway's own, run_id=runID; that every family but
// the gateway's own is a gauge with a help text; and returns the series by pushSeries key with
// their values.
func pgwSeries(t testing.TB, grp pgwGroup, runID string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for name, f := range grp.Families {
		gatewayOwn := name == "push_time_seconds" || name == "push_failure_time_seconds"
		if f.Type != "GAUGE" || f.Help == "" {
			t.Errorf("%s: type %s, help %q; want a gauge with a help text", name, f.Type, f.Help)
		}
		for _, m := range f.Metrics {
			own := maps.Clone(m.Labels)
			for k, v := range grp.Labels {
				if own[k] != v {
					t.Errorf("%s%v: grouping label %s=%q, want %q", name, m.Labels, k, own[k], v)
				}
				delete(own, k)
			}
			if v, ok := own["instance"]; !ok || v != "" {
				t.Errorf("%s%v: want the gateway's empty instance label", name, m.Labels)
			}
			delete(own, "instance")
			if !gatewayOwn && own["run_id"] != runID {
				t.Errorf("%s%v: run_id %q, want %q", name, m.Labels, own["run_id"], runID)
			}
			delete(own, "run_id")
			v, err := strconv.ParseFloat(m.Value, 64)
			if err != nil {
				t.Errorf("%s%v: value %q: %v", name, m.Labels, m.Value, err)
			}
			if !gatewayOwn {
				out[pushSeries(name, own)] = v
			}
		}
	}
	for _, name := range []string{"push_time_seconds", "push_failure_time_seconds"} {
		if _, ok := grp.Families[name]; !ok {
			t.Errorf("group %v has no %s", grp.Labels, name)
		}
	}
	return out
}

func TestPushGatewayRoundTrip(t *testing.T) {
	g := startPushgateway(t)
	const runID = "20261129T232800Z-4f2a"
	rep := pushFixture(t, runID, 1, true)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := Push(ctx, PushConfig{URL: g.URL}, rep); err != nil {
		t.Fatalf("Push: %v", err)
	}

	groups := g.groups(t)
	if len(groups) != 1 {
		t.Errorf("gateway has %d groups, want 1", len(groups))
	}
	grp := g.group(t, pushGroupKey())
	if !grp.LastPushSuccessful {
		t.Error("last_push_successful is false")
	}
	pushCompare(t, "gateway", pgwSeries(t, grp, runID), pushWant(t, rep, 1))

	// The text exposition, as Prometheus scrapes it, holds the same series with the key.
	text := g.get(t, "/metrics")
	for _, line := range []string{
		`LATENCY_BY_DAPR{instance="",job="daprperf",perf_test="service-invocation-http",run_id="20261129T232800Z-4f2a",test="service_invocation_http",version="1.17.5"} `,
		`daprperf_latency_seconds{instance="",job="daprperf",perf_test="service-invocation-http",phase="main",quantile="0.9",run_id="20261129T232800Z-4f2a",test="service_invocation_http",version="1.17.5"} 0.00247`,
	} {
		if !bytes.Contains(text, []byte("\n"+line)) {
			t.Errorf("/metrics has no line starting %q", line)
		}
	}
	// Kept for docs/results.md's example and for a look by hand: go test -run
	// PushGatewayRoundTrip -artifacts.
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "metrics.txt"), text, 0o644); err != nil {
		t.Error(err)
	}
}

// Two runs of one scenario and version: the gateway keeps one group, holding the second run's
// figures under its run_id and nothing of the first, so that runs do not pile up in it; a
// Prometheus scraping it keeps both apart by run_id. A run of another scenario keeps its own.
func TestPushGatewayKeepsTheLatestRun(t *testing.T) {
	g := startPushgateway(t)
	first := pushFixture(t, "20261129T232800Z-4f2a", 1, true)
	second := pushFixture(t, "20261130T001500Z-9c1e", 2, false) // same test, other figures
	other := pushFixture(t, "20261130T002000Z-77aa", 1, true)
	other.Transport = perf.GRPC
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for _, rep := range []*perf.Report{first, second, other} {
		if err := Push(ctx, PushConfig{URL: g.URL}, rep); err != nil {
			t.Fatalf("Push %s: %v", rep.RunID, err)
		}
	}
	if n := len(g.groups(t)); n != 2 {
		t.Errorf("gateway has %d groups, want 2 (one per scenario and version)", n)
	}
	pushCompare(t, "second run", pgwSeries(t, g.group(t, pushGroupKey()), second.RunID), pushWant(t, second, 2))
	if text := g.get(t, "/metrics"); bytes.Contains(text, []byte(first.RunID)) {
		t.Errorf("the gateway still exposes the first run %s after the second", first.RunID)
	}
}

func TestPushGatewayFailures(t *testing.T) {
	t.Run("gateway stopped", func(t *testing.T) {
		g := startPushgateway(t)
		g.Stop()
		err := Push(t.Context(), PushConfig{URL: g.URL}, pushFixture(t, "run-1", 1, true))
		var pe *PushError
		if !errors.As(err, &pe) || pe.StatusCode != 0 || !strings.Contains(err.Error(), "push to "+g.URL+":") {
			t.Fatalf("Push to a stopped gateway: %v; want a *PushError naming %s, no status", err, g.URL)
		}
		t.Logf("error: %v", err)
	})

	t.Run("gateway rejects inconsistent type", func(t *testing.T) {
		g := startPushgateway(t)
		// Another job left daprperf_pass as a counter: the gateway checks every push against all
		// groups, so our gauge of that name is inconsistent and the push is answered 400.
		reg := prometheus.NewRegistry()
		c := prometheus.NewCounter(prometheus.CounterOpts{Name: "daprperf_pass", Help: "a counter with a gauge's name"})
		reg.MustRegister(c)
		c.Inc()
		if err := push.New(g.URL, "other").Gatherer(reg).Grouping("test", "other").AddContext(t.Context()); err != nil {
			t.Fatalf("push the counter: %v", err)
		}

		err := Push(t.Context(), PushConfig{URL: g.URL}, pushFixture(t, "run-1", 1, true))
		var pe *PushError
		if !errors.As(err, &pe) || pe.StatusCode != http.StatusBadRequest {
			t.Fatalf("Push of an inconsistent type: %v; want a *PushError with status 400", err)
		}
		for _, s := range []string{
			"push to " + g.URL + ":",
			"400",
			"pushed metrics are invalid or inconsistent with existing metrics", // the gateway's own text
			`"daprperf_pass"`,
		} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not contain %q", err, s)
			}
		}
		t.Logf("error: %v", err)

		// Nothing of the rejected push is kept: the group only records the failure.
		for _, grp := range g.groups(t) {
			if grp.Labels["job"] != PushJob {
				continue
			}
			if grp.LastPushSuccessful {
				t.Error("rejected group: last_push_successful is true")
			}
			for name := range grp.Families {
				if name != "push_time_seconds" && name != "push_failure_time_seconds" {
					t.Errorf("rejected group holds %s", name)
				}
			}
		}
	})
}

// A growth-plan run is pushed like any other: its per-variant, per-sidecar slopes, verdicts,
// series per request and last RSS, the threshold, errors and pass reach a real gateway under the
// run's grouping key, with the values of the result file.
func TestPushGatewayTakesAGrowthRun(t *testing.T) {
	g := startPushgateway(t)
	rep, err := report.ReadReport("../../reports/v1.17.5/memory_growth/http/result.json")
	if err != nil {
		t.Fatal(err)
	}
	rep.RunID = "20261201T120000Z-9a0b"
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := Push(ctx, PushConfig{URL: g.URL}, rep); err != nil {
		t.Fatalf("Push: %v", err)
	}
	grp := g.group(t, map[string]string{"job": "daprperf", "perf_test": "memory_growth_http", "test": "memory_growth_http", "version": "1.17.5"})
	got := pgwSeries(t, grp, rep.RunID)
	want := pushWantCommon(t, rep)
	want[pushSeries("daprperf_growth_threshold_bytes_per_1000_requests", nil)] = rep.Growth.ThresholdKiBPer1000 * 1024
	want[pushSeries("daprperf_growth_errors", nil)] = 0
	growing := 0
	for _, v := range rep.Growth.Variants {
		for _, s := range v.Sidecars {
			l := map[string]string{"variant": v.Name, "role": s.Role, "process": s.Process}
			want[pushSeries("daprperf_growth_rss_slope_bytes_per_1000_requests", l)] = s.Growth.SlopeKiBPer1000 * 1024
			want[pushSeries("daprperf_growth_series_per_request", l)] = s.SeriesPerRequest
			want[pushSeries("daprperf_growth_rss_bytes", l)] = float64(s.Readings[len(s.Readings)-1].RSSBytes)
			w := 0.0
			if s.Growth.Verdict == "growing" || s.Growth.Verdict == "retained" {
				w, growing = 1, growing+1
			}
			want[pushSeries("daprperf_growth_growing", l)] = w
		}
	}
	if growing < 4 || len(rep.Growth.Variants) < 5 {
		t.Fatalf("fixture: %d variants, %d growing sidecars; want the published variants (5 or 6) with growth", len(rep.Growth.Variants), growing)
	}
	pushCompare(t, "growth run", got, want)
}
