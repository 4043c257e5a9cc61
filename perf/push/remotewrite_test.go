package push

// Tests of Write against a real Prometheus (Debian's package prometheus, internal/promtest):
// the samples a run writes are read back by PromQL at the run's own time, with the values of
// its result file and the labels a history needs.

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/internal/promtest"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// historyRuns are two published references of one scenario as two runs of a history: v1.17.5
// at its own start time, and v1.16.5 as if measured 60 days earlier, so that the second
// written is far older than the first and needs the out-of-order window.
func historyRuns(t testing.TB) (older, newer *perf.Report) {
	t.Helper()
	var err error
	if older, err = report.ReadReport("../../reports/v1.16.5/service_invocation/http/result.json"); err != nil {
		t.Fatal(err)
	}
	if newer, err = report.ReadReport("../../reports/v1.17.5/service_invocation/http/result.json"); err != nil {
		t.Fatal(err)
	}
	older.Environment.StartTime = older.Environment.StartTime.Add(-60 * 24 * time.Hour)
	older.RunID = older.Environment.StartTime.UTC().Format("20060102T150405Z") + "-a165"
	newer.RunID = newer.Environment.StartTime.UTC().Format("20060102T150405Z") + "-b175"
	if older.Environment.DaprVersion != "1.16.5" || newer.Environment.DaprVersion != "1.17.5" {
		t.Fatalf("fixtures: versions %q and %q, want 1.16.5 and 1.17.5", older.Environment.DaprVersion, newer.Environment.DaprVersion)
	}
	return older, newer
}

// writeRun writes rep to s, bounded to 30 s.
func writeRun(t testing.TB, s *promtest.Server, rep *perf.Report) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	return Write(ctx, WriteConfig{URL: s.WriteURL}, rep)
}

// historyLabels are the labels Write adds to every series of rep, beyond the metric's own.
func historyLabels(rep *perf.Report) map[string]string {
	return map[string]string{
		"job":       PushJob,
		"perf_test": PerfTestName(rep.Test, rep.Transport),
		"test":      rep.Test + "_" + string(rep.Transport),
		"version":   rep.Environment.DaprVersion,
		"run_id":    rep.RunID,
		"transport": string(rep.Transport),
		"platform":  rep.Environment.Platform,
	}
}

// Two runs of two daprd versions, written newest first, read back by instant queries at each
// run's start time and by one range query over both: every common figure with the file's
// value, the p90 overhead of each, and the labels of a history on every series.
func TestRemoteWriteTwoRunsToPrometheus(t *testing.T) {
	s := promtest.Start(t, promtest.Options{OutOfOrderWindow: "10y"})
	older, newer := historyRuns(t)
	for _, rep := range []*perf.Report{newer, older} {
		if err := writeRun(t, s, rep); err != nil {
			t.Fatalf("Write %s (v%s): %v", rep.RunID, rep.Environment.DaprVersion, err)
		}
	}

	for _, rep := range []*perf.Report{older, newer} {
		at := rep.Environment.StartTime
		want := historyLabels(rep)
		got := s.Query(t, `{run_id="`+rep.RunID+`"}`, at)
		if len(got) < 20 {
			t.Fatalf("run %s: %d series at %s, want every figure of the run", rep.RunID, len(got), at)
		}
		values := map[string]float64{}
		for _, smp := range got {
			own := map[string]string{}
			for k, v := range smp.Labels {
				if w, ok := want[k]; ok {
					if v != w {
						t.Errorf("%v: %s=%q, want %q", smp.Labels, k, v, w)
					}
					continue
				}
				if k != "__name__" {
					own[k] = v
				}
			}
			for k := range want {
				if _, ok := smp.Labels[k]; !ok {
					t.Errorf("%v: no label %s", smp.Labels, k)
				}
			}
			values[pushSeries(smp.Labels["__name__"], own)] = smp.Value
		}
		for k, w := range pushWantCommon(t, rep) {
			v, ok := values[k]
			switch {
			case !ok:
				t.Errorf("run %s: missing series %s (want %v)", rep.RunID, k, w)
			case math.Abs(v-w) > 1e-9*math.Max(math.Abs(w), 1e-12):
				t.Errorf("run %s: %s = %v, want %v", rep.RunID, k, v, w)
			}
		}
		for _, p := range perf.OverheadPercentiles {
			o, ok := rep.OverheadOf(perf.PercentileName(p))
			if !ok {
				t.Fatalf("run %s has no overhead at %s", rep.RunID, perf.PercentileName(p))
			}
			for bound, w := range map[string]float64{"median": o.MedianSeconds, "low": o.LowSeconds, "high": o.HighSeconds} {
				k := pushSeries("daprperf_overhead_seconds", map[string]string{"quantile": pushQuantile(p), "bound": bound})
				if v, ok := values[k]; !ok || v != w {
					t.Errorf("run %s: %s = %v (present %v), want %v", rep.RunID, k, v, ok, w)
				}
			}
		}
	}

	// One query over both runs: each version's p90 overhead at its own time, nowhere else.
	start, end := older.Environment.StartTime.Add(-time.Hour), newer.Environment.StartTime.Add(time.Hour)
	series := s.QueryRange(t, `last_over_time(daprperf_overhead_seconds{perf_test="service-invocation-http",quantile="0.9",bound="median"}[1h])`,
		start, end, time.Hour)
	if len(series) != 2 {
		t.Fatalf("range query: %d series, want 2 (one per run): %v", len(series), series)
	}
	for _, rep := range []*perf.Report{older, newer} {
		o, _ := rep.OverheadOf("p90")
		found := false
		for _, sr := range series {
			if sr.Labels["version"] != rep.Environment.DaprVersion {
				continue
			}
			found = true
			if sr.Labels["run_id"] != rep.RunID {
				t.Errorf("version %s: run_id %q, want %q", rep.Environment.DaprVersion, sr.Labels["run_id"], rep.RunID)
			}
			if len(sr.Points) == 0 || len(sr.Points) > 2 {
				t.Errorf("version %s: %d points, want 1 or 2 (the steps within an hour after its start)", rep.Environment.DaprVersion, len(sr.Points))
			}
			stamp := rep.Environment.StartTime.Truncate(time.Millisecond) // remote write's resolution
			for at, v := range sr.Points {
				if at.Before(stamp) || at.After(stamp.Add(time.Hour)) {
					t.Errorf("version %s: a point at %s, outside the hour after its start %s", rep.Environment.DaprVersion, at, stamp)
				}
				if v != o.MedianSeconds {
					t.Errorf("version %s: p90 overhead %v at %s, want %v", rep.Environment.DaprVersion, v, at, o.MedianSeconds)
				}
			}
		}
		if !found {
			t.Errorf("range query: no series of version %s", rep.Environment.DaprVersion)
		}
	}
}

// Without an out-of-order window Prometheus refuses a run far older than the one written
// before it: the error is a *WriteError with the receiver's status, naming the window, and
// nothing of the older run is kept.
func TestRemoteWriteOfAnOldRunNeedsTheOutOfOrderWindow(t *testing.T) {
	s := promtest.Start(t, promtest.Options{})
	older, newer := historyRuns(t)
	if err := writeRun(t, s, newer); err != nil {
		t.Fatalf("Write %s: %v", newer.RunID, err)
	}
	err := writeRun(t, s, older)
	var we *WriteError
	if !errors.As(err, &we) || we.StatusCode/100 != 4 && we.StatusCode/100 != 5 {
		t.Fatalf("Write of a run 60 days older: %v; want a *WriteError with the receiver's status", err)
	}
	for _, want := range []string{s.WriteURL, "out of bounds", "storage.tsdb.out_of_order_time_window"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	t.Logf("error: %v", err)
	if got := s.Query(t, `{run_id="`+older.RunID+`"}`, older.Environment.StartTime); len(got) != 0 {
		t.Errorf("the refused run left %d series, e.g. %v", len(got), got[0].Labels)
	}
	if got := s.Query(t, `daprperf_pass{run_id="`+newer.RunID+`"}`, newer.Environment.StartTime); len(got) != 1 {
		t.Errorf("the run written first: %d daprperf_pass series, want 1", len(got))
	}
}

// A run written twice (loading a history again) is accepted and still reads as one sample.
func TestRemoteWriteTwiceKeepsOneSample(t *testing.T) {
	s := promtest.Start(t, promtest.Options{OutOfOrderWindow: "10y"})
	older, newer := historyRuns(t)
	for _, rep := range []*perf.Report{newer, older, newer, older} {
		if err := writeRun(t, s, rep); err != nil {
			t.Fatalf("Write %s: %v", rep.RunID, err)
		}
	}
	for _, rep := range []*perf.Report{older, newer} {
		o, _ := rep.OverheadOf("p90")
		got := s.QueryRange(t, `count_over_time(daprperf_overhead_seconds{run_id="`+rep.RunID+`",quantile="0.9",bound="median"}[1d])`,
			rep.Environment.StartTime.Add(12*time.Hour), rep.Environment.StartTime.Add(12*time.Hour), time.Minute)
		if len(got) != 1 || len(got[0].Points) != 1 {
			t.Fatalf("run %s: %v, want one series with one point", rep.RunID, got)
		}
		for _, n := range got[0].Points {
			if n != 1 {
				t.Errorf("run %s: %v samples of its p90 overhead in a day, want 1", rep.RunID, n)
			}
		}
		if v := s.Query(t, `daprperf_overhead_seconds{run_id="`+rep.RunID+`",quantile="0.9",bound="median"}`, rep.Environment.StartTime); len(v) != 1 || v[0].Value != o.MedianSeconds {
			t.Errorf("run %s: p90 overhead %v, want %v", rep.RunID, v, o.MedianSeconds)
		}
	}
}

func TestWriteConfigFromEnv(t *testing.T) {
	str := func(s string) *string { return &s }
	for raw, want := range map[string]string{
		"":                                  "",
		"127.0.0.1:9090":                    "http://127.0.0.1:9090/api/v1/write",
		"http://prom:9090/":                 "http://prom:9090/api/v1/write",
		"https://mimir.example/api/v1/push": "https://mimir.example/api/v1/push",
	} {
		cfg, err := WriteConfigFromEnv(perf.Env{PrometheusWriteURL: str(raw)})
		if err != nil || cfg.URL != want || cfg.Enabled() != (want != "") {
			t.Errorf("%q: %+v, %v; want URL %q", raw, cfg, err, want)
		}
	}
	for raw, says := range map[string]string{
		"ftp://prom:9090":                   "must be an http or https URL",
		"http://":                           "must name a host",
		"http://user:secret@prom:9090":      "must not hold credentials",
		"http://prom:9090/api/v1/write?x=1": "must not have a query",
		"http://prom:9090/%zz":              "must be a URL",
	} {
		_, err := WriteConfigFromEnv(perf.Env{PrometheusWriteURL: str(raw)})
		if err == nil || !strings.Contains(err.Error(), EnvPrometheusWriteURL) || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: %v; want an error naming %s and saying %q", raw, err, EnvPrometheusWriteURL, says)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: the error shows the password: %v", raw, err)
		}
	}
}

// A report without a start time or a run id is refused before anything is sent.
func TestRemoteWriteRefusesAReportItCannotStamp(t *testing.T) {
	_, rep := historyRuns(t)
	noTime := *rep
	noTime.Environment.StartTime = time.Time{}
	noID := *rep
	noID.RunID = ""
	for what, r := range map[string]*perf.Report{"start time": &noTime, "runID": &noID} {
		err := Write(t.Context(), WriteConfig{URL: "http://127.0.0.1:1/api/v1/write", Client: failDoer{t}}, r)
		var we *WriteError
		if !errors.As(err, &we) || we.StatusCode != 0 || !strings.Contains(err.Error(), what) {
			t.Errorf("no %s: %v; want a *WriteError naming it", what, err)
		}
	}
}
