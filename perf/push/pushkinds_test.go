package push

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// pushWantCommon is every series pushCommon must send for rep, with its value: pass, the
// missed bounds, each gate figure, each named load's figures (not for a growth run) and each
// process's resources and each sidecar's and the app's CPU per request. The values are the report's own fields, in the pushed unit.
func pushWantCommon(t testing.TB, rep *perf.Report) map[string]float64 {
	t.Helper()
	figures := rep.Figures
	if figures == nil {
		f := report.DeriveFigures(rep)
		figures = &f
	}
	want := map[string]float64{pushSeries("daprperf_pass", nil): 0}
	if rep.Pass {
		want[pushSeries("daprperf_pass", nil)] = 1
	}
	if st := rep.Environment.StartTime; !st.IsZero() {
		want[pushSeries("daprperf_run_start_timestamp_seconds", nil)] = float64(st.UnixNano()) / 1e9
	}
	var enforced, warned float64
	for _, v := range rep.Verdicts {
		if !v.Pass && v.WarnOnly {
			warned++
		} else if !v.Pass {
			enforced++
		}
	}
	want[pushSeries("daprperf_bounds_missed", map[string]string{"enforced": "true"})] = enforced
	want[pushSeries("daprperf_bounds_missed", map[string]string{"enforced": "false"})] = warned
	for name, v := range figures.Gates {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			want[pushSeries("daprperf_figure", map[string]string{"figure": name})] = v
		}
	}
	if report.KindOf(rep).Name() != perf.KindGrowth {
		for i := range rep.Loads {
			l := &rep.Loads[i]
			load := map[string]string{"load": l.Name}
			for _, p := range perf.OverheadPercentiles {
				if d, err := l.Percentile(p); err == nil {
					want[pushSeries("daprperf_load_latency_seconds", map[string]string{"load": l.Name, "quantile": pushQuantile(p)})] = d.Seconds()
				}
			}
			want[pushSeries("daprperf_load_qps", load)] = l.ActualQPS
			if l.RequestedQPS > 0 {
				want[pushSeries("daprperf_load_target_qps", load)] = l.RequestedQPS
			}
			want[pushSeries("daprperf_load_requests", load)] = float64(l.Requests)
			want[pushSeries("daprperf_load_errors", load)] = float64(l.Errors())
		}
	}
	for _, rs := range rep.Resources {
		if rs.NoReadings() {
			continue
		}
		l := map[string]string{"role": rs.Role, "process": rs.Process}
		want[pushSeries("daprperf_cpu_cores", l)] = rs.MeanCPUCores
		want[pushSeries("daprperf_rss_bytes", l)] = float64(rs.PeakRSSBytes)
		want[pushSeries("daprperf_rss_slope_bytes_per_second", l)] = rs.RSSSlopeBytesPerSecond
		// the cost per request: each sidecar's and the app's mean CPU over the main phases' rate
		if main := figures.Phase(perf.PhaseMain); main != nil && main.QPS > 0 && (rs.Role == perf.RoleApp || strings.HasSuffix(rs.Role, "sidecar")) {
			want[pushSeries("daprperf_cpu_seconds_per_request", l)] = rs.MeanCPUCores / main.QPS
		}
	}
	return want
}

// Every plan kind is known to KindOf by its name and has an entry in pushKinds.
func TestPushKnowsEveryKind(t *testing.T) {
	for _, name := range report.Kinds() {
		if got := report.KindOf(&perf.Report{Plan: name}).Name(); got != name {
			t.Errorf("KindOf(plan %q) = %q", name, got)
		}
		if _, ok := pushKinds[name]; !ok {
			t.Errorf("pushKinds has no entry for kind %q", name)
		}
	}
	if len(pushKinds) != len(report.Kinds()) {
		t.Errorf("pushKinds has %d entries, Kinds %d", len(pushKinds), len(report.Kinds()))
	}
}

// pushKindFixtures are real result files, one per plan kind: the published references and
// the charts' fixtures of the plans without baseline rounds.
var pushKindFixtures = map[string]string{
	perf.KindOverhead:   "../../reports/v1.16.5/service_invocation/grpc/result.json",
	perf.KindGrowth:     "../../reports/v1.17.5/memory_growth/http/result.json",
	perf.KindStages:     "../../charts/testdata/loads/pubsub_publish/http/result.json",
	perf.KindIterations: "../../charts/testdata/loads/workflow_constant_vus_inmemory/http/result.json",
	perf.KindDelivery:   "../../charts/testdata/loads/pubsub_bulk_subscribe_redis/http/result.json",
	perf.KindJobs:       "../../charts/testdata/loads/jobs_triggering/http/result.json",
	perf.KindReminders:  "../../charts/testdata/loads/actor_reminder/http/result.json",
	perf.KindFaults:     "../../charts/testdata/loads/actor_double_activation/http/result.json",
	perf.KindCurve:      "../../charts/testdata/loads/service_invocation_curve/http/result.json",
}

// kindFamilies are metric families a kind's push must hold beyond the common ones.
var kindFamilies = map[string][]string{
	perf.KindOverhead: {"daprperf_latency_seconds", "daprperf_overhead_seconds", "daprperf_overhead_mean_seconds", "LATENCY_BY_DAPR", "APPLICATION_THROUGHPUT"},
	perf.KindGrowth:   {"daprperf_growth_rss_slope_bytes_per_1000_requests", "daprperf_growth_threshold_bytes_per_1000_requests"},
	perf.KindStages:   {"daprperf_load_latency_seconds", "daprperf_load_qps"},
	perf.KindFaults:   {"daprperf_load_latency_seconds", "daprperf_load_qps"},
}

// A result file of every plan kind is pushed to a real Pushgateway, and every figure of the
// common scheme (pass, bounds, gate figures, named loads, resources) reads back from the
// gateway with the file's value, under the run's grouping key, beside the kind's own families.
func TestPushGatewayTakesEveryKind(t *testing.T) {
	g := startPushgateway(t)
	for i, kind := range report.Kinds() {
		t.Run(kind, func(t *testing.T) {
			rep, err := report.ReadReport(pushKindFixtures[kind])
			if err != nil {
				t.Fatal(err)
			}
			if got := report.KindOf(rep).Name(); got != kind {
				t.Fatalf("fixture %s is of kind %q, want %q", pushKindFixtures[kind], got, kind)
			}
			rep.RunID = fmt.Sprintf("20261204T120000Z-kind%d", i)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if err := Push(ctx, PushConfig{URL: g.URL}, rep); err != nil {
				t.Fatalf("Push: %v", err)
			}
			version := rep.Environment.DaprVersion
			grp := g.group(t, map[string]string{"job": PushJob, "perf_test": PerfTestName(rep.Test, rep.Transport),
				"test": rep.Test + "_" + string(rep.Transport), "version": version})
			if !grp.LastPushSuccessful {
				t.Error("last_push_successful is false")
			}
			got := pgwSeries(t, grp, rep.RunID)
			want := pushWantCommon(t, rep)
			if len(want) < 5 {
				t.Fatalf("fixture yields only %d common series: %v", len(want), want)
			}
			for k, w := range want {
				v, ok := got[k]
				switch {
				case !ok:
					t.Errorf("missing series %s (want %v)", k, w)
				case math.Abs(v-w) > 1e-9*math.Max(math.Abs(w), 1e-12):
					t.Errorf("%s = %v, want %v", k, v, w)
				}
			}
			for _, fam := range kindFamilies[kind] {
				if _, ok := grp.Families[fam]; !ok {
					t.Errorf("kind %s: no %s pushed", kind, fam)
				}
			}
		})
	}
}
