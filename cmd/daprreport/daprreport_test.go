package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// reference is the folder of the published v1.17.5 results the tests read.
var reference = filepath.Join("..", "..", "reports", "v1.17.5")

// daprRepo, when set, is a git directory of dapr/dapr: TestDaprTestModes then recomputes
// buildTestModes from its v1.18.3 test files (go test ./cmd/daprreport -dapr-repo DIR).
var daprRepo = flag.String("dapr-repo", "", "git directory of dapr/dapr, to recompute Dapr's test modes from tag v1.18.3")

// converted is what this command writes for some reference files, as Dapr's report reads it.
type converted struct {
	reps      map[string]*perf.Report // by file, relative to reference
	collected []daprCollected
	usage     map[string]*daprUsage
	stream    []byte
}

// convert writes the events of the reference files files and parses them as Dapr's report does.
func convert(t *testing.T, files ...string) converted {
	t.Helper()
	c := converted{reps: map[string]*perf.Report{}}
	var runs []daprRun
	for _, f := range files {
		path := filepath.Join(reference, f, "result.json")
		rep, err := report.ReadReport(path)
		if err != nil {
			t.Fatal(err)
		}
		rs, skip, err := runsOf(rep, path)
		if err != nil || skip != "" {
			t.Fatalf("%s: %v %s", f, err, skip)
		}
		c.reps[f] = rep
		runs = append(runs, rs...)
	}
	var b bytes.Buffer
	if err := writeEvents(&b, runs); err != nil {
		t.Fatal(err)
	}
	c.stream = b.Bytes()
	for i, line := range bytes.Split(bytes.TrimSuffix(c.stream, []byte("\n")), []byte("\n")) {
		var ev daprEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("event %d is not JSON: %v: %s", i+1, err, line)
		}
	}
	var err error
	c.collected, c.usage, err = daprParse(bytes.NewReader(c.stream), daprTestModesV1183)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// summaryOf returns the one summary collected for test, checking its package, its suite and that
// Dapr's report charts it in folder api/transport (the folders of Dapr's own charts under
// tests/perf/report/charts/v1.17.0 at v1.18.3). The JSON must be valid as collected: Dapr's
// report would otherwise try to repair it (sanitize.go).
func (c converted) summaryOf(t *testing.T, pkg, test, suite, api, transport string) daprCollected {
	t.Helper()
	var found []daprCollected
	for _, col := range c.collected {
		if col.Test == test {
			found = append(found, col)
		}
	}
	if len(found) != 1 {
		var names []string
		for _, col := range c.collected {
			names = append(names, col.Pkg+" "+col.Test)
		}
		t.Fatalf("%s: %d summaries collected, want 1 (collected: %q)", test, len(found), names)
	}
	col := found[0]
	if col.Pkg != daprPackagePrefix+pkg {
		t.Errorf("%s: package %s, want %s", test, col.Pkg, daprPackagePrefix+pkg)
	}
	if col.Suite != suite {
		t.Errorf("%s: collected as %q, want %q", test, col.Suite, suite)
	}
	if !json.Valid([]byte(col.JSON)) {
		t.Errorf("%s: collected JSON is not valid:\n%s", test, col.JSON)
	}
	gotAPI, gotTransport, ok := daprClassify(col.Pkg, col.Test)
	if !ok || gotAPI != api || gotTransport != transport {
		t.Errorf("%s: classified %q/%q (charted %v), want %q/%q", test, gotAPI, gotTransport, ok, api, transport)
	}
	return col
}

// fortioOf unmarshals a collected fortio summary into Dapr's FortioResult and checks what
// processFortioSummary needs: percentiles or a count.
func fortioOf(t *testing.T, col daprCollected) daprFortioResult {
	t.Helper()
	var f daprFortioResult
	if err := json.Unmarshal([]byte(col.JSON), &f); err != nil {
		t.Fatalf("%s: Dapr's FortioResult: %v", col.Test, err)
	}
	if len(f.Percentiles) == 0 && f.DurationHistogram.Count == 0 {
		t.Fatalf("%s: no percentiles and no count: Dapr's report drops it", col.Test)
	}
	return f
}

// k6Of unmarshals a collected k6 summary into Dapr's Summary and checks it has runners.
func k6Of(t *testing.T, col daprCollected) daprK6Summary {
	t.Helper()
	var s daprK6Summary
	if err := json.Unmarshal([]byte(col.JSON), &s); err != nil {
		t.Fatalf("%s: Dapr's k6 Summary: %v", col.Test, err)
	}
	if len(s.RunnersResults) == 0 {
		t.Fatalf("%s: no runnersResults: Dapr's report drops it", col.Test)
	}
	return s
}

// near says whether got equals want to within 1e-12 relative: both are the same float64 through
// JSON, but a sum over rounds may differ in its last bit.
func near(got, want float64) bool {
	return got == want || math.Abs(got-want) <= 1e-12*math.Max(math.Abs(got), math.Abs(want))
}

// checkUsage checks the resource lines read for a test against our processes: Dapr's app is
// the processes named app, its sidecar those named sidecar (several: the largest CPU and the
// largest memory), CPU in millicores rounded up, memory float64(bytes/1024) x 0.001024; no
// restarts (the reference files have none). Dapr's report keeps a usage only with some CPU
// (common_charts.go, storeRunner).
func checkUsage(t *testing.T, rep *perf.Report, u daprUsage, app, sidecar []string) {
	t.Helper()
	want := func(names []string) (cpu, mb float64) {
		for _, s := range rep.Resources {
			if slices.Contains(names, s.Process) {
				cpu = max(cpu, math.Ceil(s.MeanCPUCores*1000-1e-9))
				mb = max(mb, float64(s.PeakRSSBytes/1024)*0.001024)
			}
		}
		if cpu == 0 && mb == 0 {
			t.Fatalf("no process %v in the result", names)
		}
		return cpu, mb
	}
	appCPU, appMB := want(app)
	sideCPU, sideMB := want(sidecar)
	if u.AppCPUm != appCPU || u.AppMemMB != appMB {
		t.Errorf("app usage %vm %vMB, want %vm %vMB (%v)", u.AppCPUm, u.AppMemMB, appCPU, appMB, app)
	}
	if u.SidecarCPUm != sideCPU || u.SidecarMemMB != sideMB {
		t.Errorf("sidecar usage %vm %vMB, want %vm %vMB (%v)", u.SidecarCPUm, u.SidecarMemMB, sideCPU, sideMB, sidecar)
	}
	if u.TargetRestarts != 0 || u.TesterRestarts != 0 || u.lines != 4 {
		t.Errorf("restarts %d and %d from %d lines, want 0 and 0 from 4", u.TargetRestarts, u.TesterRestarts, u.lines)
	}
	if !(u.AppCPUm > 0 || u.SidecarCPUm > 0) {
		t.Errorf("no CPU: Dapr's report would not keep this usage")
	}
}

// TestDaprReadsFortioSummaries: each fortio-based test of ours is collected by Dapr's report
// under Dapr's test, charted in Dapr's folder, and carries our main phase in seconds: with one
// round its own figures, with several the phase's figures (the median over rounds); the
// request count over all rounds; and its resource lines.
func TestDaprReadsFortioSummaries(t *testing.T) {
	cases := []struct {
		file, pkg, test, api, transport string
		grpc                            bool
		app, sidecar                    []string // our processes Dapr's GetAppUsage/GetSidecarUsage stand for
	}{
		{"service_invocation/http", "service_invocation_http", "TestServiceInvocationHTTPPerformance", "service_invocation", "http", false,
			[]string{"testapp"}, []string{"testapp-daprd"}},
		{"service_invocation/grpc", "service_invocation_grpc", "TestServiceInvocationGrpcPerformance", "service_invocation", "grpc", true,
			[]string{"testapp"}, []string{"testapp-daprd"}},
		{"state_get/grpc", "state_get_grpc", "TestStateGetGrpcPerformance", "state", "grpc", true,
			[]string{"tester"}, []string{"tester-daprd"}},
		{"actor_timer/http", "actor_timer", "TestActorTimerWithStatePerformance", "actors", "", false,
			[]string{"actorapp", "actorapp-2", "actorapp-3", "actorapp-4"},
			[]string{"actorapp-daprd", "actorapp-2-daprd", "actorapp-3-daprd", "actorapp-4-daprd"}},
		{"pubsub_bulk_publish_raw/grpc", "pubsub_bulk_publish_grpc", "TestBulkPubsubPublishGrpcPerformance/In-memory_without_cloud_event_(raw_payload)",
			"pubsub/bulk", "grpc", true, []string{"publisher"}, []string{"publisher-daprd"}},
		{"jobs_scheduling/http", "jobs", "TestJobSchedulingPerformance", "jobs", "", false, []string{"tester"}, []string{"tester-daprd"}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			c := convert(t, tc.file)
			rep := c.reps[tc.file]
			col := c.summaryOf(t, tc.pkg, tc.test, "fortio", tc.api, tc.transport)
			f := fortioOf(t, col)

			var requests, errs int64
			for _, rd := range rep.Rounds {
				requests += rd.Main.Requests
				errs += rd.Main.Errors()
			}
			want := map[float64]float64{}
			var wantQPS, wantAvg float64
			if len(rep.Rounds) == 1 {
				m := &rep.Rounds[0].Main
				for _, p := range []float64{50, 75, 90, 95, 99, 99.9} {
					d, err := m.Percentile(p)
					if err != nil {
						t.Fatal(err)
					}
					want[p] = d.Seconds()
				}
				wantQPS, wantAvg = m.ActualQPS, m.Latency.AvgSeconds
			} else {
				ph := rep.Figures.Phase(perf.PhaseMain)
				for _, p := range perf.OverheadPercentiles {
					want[p], _ = ph.Quantile(p, false)
				}
				want[95] = rep.Figures.Gates["latency.p95"]
				wantQPS, wantAvg = ph.QPS, ph.MeanSeconds
			}
			for p, w := range want {
				if got := daprPct(f, p); got != w || w == 0 {
					t.Errorf("Dapr's p%v = %v s, want our main phase's %v s", p, got, w)
				}
			}
			if int64(f.DurationHistogram.Count) != requests {
				t.Errorf("Count = %d, want %d requests", f.DurationHistogram.Count, requests)
			}
			if f.ActualQPS != wantQPS || f.DurationHistogram.Avg != wantAvg {
				t.Errorf("ActualQPS %v, Avg %v s; want %v, %v", f.ActualQPS, f.DurationHistogram.Avg, wantQPS, wantAvg)
			}
			binned := 0
			for _, b := range f.DurationHistogram.Data {
				binned += b.Count
			}
			if int64(binned) != requests || len(f.DurationHistogram.Data) == 0 || f.DurationHistogram.Data[len(f.DurationHistogram.Data)-1].Percent != 100 {
				t.Errorf("histogram buckets hold %d requests in %d buckets, want all %d, to 100 %%", binned, len(f.DurationHistogram.Data), requests)
			}
			if wantRate := 1 - float64(errs)/float64(requests); daprSuccessRate(f) != wantRate {
				t.Errorf("Dapr's success rate %v, want %v (RunType %q, RetCodes %v)", daprSuccessRate(f), wantRate, f.RunType, f.RetCodes)
			}
			if tc.grpc != strings.HasPrefix(strings.ToLower(f.RunType), "grpc") {
				t.Errorf("RunType %q for a gRPC load: %v", f.RunType, tc.grpc)
			}
			checkUsage(t, rep, col.Usage, tc.app, tc.sidecar)
		})
	}
}

// trendWant is k6's trend of one result's service time, milliseconds.
func trendWant(t *testing.T, r *perf.Result) daprValues {
	t.Helper()
	pct := func(p float64) float64 {
		d, err := r.Percentile(p)
		if err != nil {
			t.Fatal(err)
		}
		return d.Seconds() * 1000
	}
	return daprValues{Min: r.Latency.MinSeconds * 1000, Med: pct(50), Avg: r.Latency.AvgSeconds * 1000,
		P90: pct(90), P95: pct(95), Max: r.Latency.MaxSeconds * 1000}
}

// sameTrend compares the fields Dapr's k6 summaries carry (k6.go's K6TrendMetric: no p75, p99).
func sameTrend(got, want daprValues) bool {
	return near(got.Min, want.Min) && near(got.Med, want.Med) && near(got.Avg, want.Avg) &&
		near(got.P90, want.P90) && near(got.P95, want.P95) && near(got.Max, want.Max)
}

// TestDaprReadsK6Summaries: each k6-based test of ours is collected by Dapr's report under
// Dapr's test (and subtest, named as go test names Dapr's t.Run), charted in Dapr's folder and
// aggregated under Dapr's key, with our loads' figures in milliseconds.
func TestDaprReadsK6Summaries(t *testing.T) {
	t.Run("actor_type_scale", func(t *testing.T) {
		c := convert(t, "actor_type_scale/http")
		rep := c.reps["actor_type_scale/http"]
		col := c.summaryOf(t, "actor_type_scale", "TestActorIdStress", "k6", "actors", "")
		s := k6Of(t, col)
		m := &rep.Rounds[0].Main
		w := trendWant(t, m)
		r := s.RunnersResults[0]
		if !sameTrend(r.HTTPReqDuration.Values, w) || !sameTrend(r.IterationDuration.Values, w) {
			t.Errorf("http_req_duration %+v, iteration_duration %+v; want %+v", r.HTTPReqDuration.Values, r.IterationDuration.Values, w)
		}
		if r.Iterations.Values.Count != float64(m.Requests) || r.Iterations.Values.Rate != m.ActualQPS {
			t.Errorf("iterations %+v, want %d at %v/s", r.Iterations.Values, m.Requests, m.ActualQPS)
		}
		if r.Checks.Values.Rate != 1 || r.VUsMax.Values.Max != float64(m.Executor.MaxVUs) {
			t.Errorf("checks %+v, vus_max %+v; want rate 1, max %d", r.Checks.Values, r.VUsMax.Values, m.Executor.MaxVUs)
		}
		checkUsage(t, rep, col.Usage, []string{"actorapp"}, []string{"actorapp-daprd"})
	})

	t.Run("workflows", func(t *testing.T) {
		c := convert(t, "workflow_constant_iterations_postgresql/http", "workflow_payload_50000_postgresql/http", "workflow_payload_10000_postgresql/http")
		iter := c.reps["workflow_constant_iterations_postgresql/http"]
		for i, sub := range []string{"[T_30_300]:_", "[T_60_300]:_", "[T_90_300]:_"} {
			test := "TestWorkflowWithConstantIterations/" + sub
			col := c.summaryOf(t, "workflows", test, "k6", "workflows", "")
			s := k6Of(t, col)
			l := &iter.Loads[i].Result
			if w := trendWant(t, l); !sameTrend(s.RunnersResults[0].HTTPReqDuration.Values, w) {
				t.Errorf("%s: http_req_duration %+v, want %+v (load %s)", test, s.RunnersResults[0].HTTPReqDuration.Values, w, iter.Loads[i].Name)
			}
			if key := daprGroupKey("workflows", test); key != "TestWorkflowWithConstantIterations" {
				t.Errorf("%s: Dapr aggregates it under %q", test, key)
			}
			checkUsage(t, iter, col.Usage, []string{"workflowapp"}, []string{"workflowapp-daprd"})
		}
		// Dapr's inputs run 10000 then 50000: go test names the second "[T_30_300]:_#01".
		for test, file := range map[string]string{
			"TestWorkflowWithDifferentPayloads/[T_30_300]:_":    "workflow_payload_10000_postgresql/http",
			"TestWorkflowWithDifferentPayloads/[T_30_300]:_#01": "workflow_payload_50000_postgresql/http",
		} {
			s := k6Of(t, c.summaryOf(t, "workflows", test, "k6", "workflows", ""))
			if w := trendWant(t, &c.reps[file].Loads[0].Result); !sameTrend(s.RunnersResults[0].HTTPReqDuration.Values, w) {
				t.Errorf("%s: http_req_duration %+v, want %s's %+v", test, s.RunnersResults[0].HTTPReqDuration.Values, file, w)
			}
			if key := daprGroupKey("workflows", test); key != "TestWorkflowWithDifferentPayloads" {
				t.Errorf("%s: Dapr aggregates it under %q", test, key)
			}
		}
	})

	t.Run("pubsub_bulk_publish_http", func(t *testing.T) {
		c := convert(t, "pubsub_bulk_publish_raw_b10/http")
		rep := c.reps["pubsub_bulk_publish_raw_b10/http"]
		normal := k6Of(t, c.summaryOf(t, "pubsub_bulk_publish_http", "TestPubsubBulkPublishHttpPerformance/memory-broker_b10_s1KB_normal", "k6", "pubsub/bulk", "http"))
		bulk := k6Of(t, c.summaryOf(t, "pubsub_bulk_publish_http", "TestPubsubBulkPublishHttpPerformance/memory-broker_b10_s1KB_bulk", "k6", "pubsub/bulk", "http"))
		// The normal run's iteration is ten single publishes: our baseline request.
		if w := trendWant(t, &rep.Rounds[0].Baseline); !sameTrend(normal.RunnersResults[0].IterationDuration.Values, w) || normal.RunnersResults[0].HTTPReqDuration.Values != (daprValues{}) {
			t.Errorf("normal: iteration_duration %+v, http_req_duration %+v; want %+v and none", normal.RunnersResults[0].IterationDuration.Values, normal.RunnersResults[0].HTTPReqDuration.Values, w)
		}
		if w := trendWant(t, &rep.Rounds[0].Main); !sameTrend(bulk.RunnersResults[0].HTTPReqDuration.Values, w) {
			t.Errorf("bulk: http_req_duration %+v, want %+v", bulk.RunnersResults[0].HTTPReqDuration.Values, w)
		}
		if len(c.usage) != 0 {
			t.Errorf("resource lines %v: Dapr's bulk publish HTTP test logs none", c.usage)
		}
	})

	t.Run("pubsub_subscribe_http", func(t *testing.T) {
		c := convert(t, "pubsub_subscribe_redis/http")
		rep := c.reps["pubsub_subscribe_redis/http"]
		col := c.summaryOf(t, "pubsub_subscribe_http", "TestPubsubBulkPublishSubscribeHttpPerformance/dapr-perf-test-redis-pubsub-subs-http", "k6", "pubsub/bulk", "http")
		r := k6Of(t, col).RunnersResults[0]
		// Our time is the publish request's; Dapr's iteration also waits for the delivery.
		if w := trendWant(t, &rep.Loads[0].Result); !sameTrend(r.HTTPReqDuration.Values, w) || r.IterationDuration.Values != (daprValues{}) {
			t.Errorf("http_req_duration %+v, iteration_duration %+v; want %+v and none", r.HTTPReqDuration.Values, r.IterationDuration.Values, w)
		}
		checkUsage(t, rep, col.Usage, []string{"subscriber"}, []string{"subscriber-daprd"})
	})

	t.Run("configuration_subscribe", func(t *testing.T) {
		c := convert(t, "configuration_subscribe/grpc")
		rep := c.reps["configuration_subscribe/grpc"]
		col := c.summaryOf(t, "configuration", "TestConfigurationSubscribeGRPCPerformance", "k6", "configuration", "grpc")
		if w := trendWant(t, &rep.Loads[0].Result); !sameTrend(k6Of(t, col).RunnersResults[0].HTTPReqDuration.Values, w) {
			t.Errorf("http_req_duration %+v, want %+v", k6Of(t, col).RunnersResults[0].HTTPReqDuration.Values, w)
		}
		checkUsage(t, rep, col.Usage, []string{"subscriber"}, []string{"subscriber-daprd"})
	})

	t.Run("actor_double_activation", func(t *testing.T) {
		c := convert(t, "actor_double_activation/http")
		rep := c.reps["actor_double_activation/http"]
		col := c.summaryOf(t, "actor_double_activation", "TestActorDoubleActivation", "k6", "actors", "")
		s := k6Of(t, col)
		if len(s.RunnersResults) != len(rep.Loads[0].Testers) {
			t.Fatalf("%d runners, want one per tester (%d)", len(s.RunnersResults), len(rep.Loads[0].Testers))
		}
		// Dapr's k6 run holds both phases: runner 0 is tester 0's base and faults loads.
		base, faults := &rep.Loads[0].Testers[0], &rep.Loads[1].Testers[0]
		h, err := base.Latency.Histogram()
		if err != nil {
			t.Fatal(err)
		}
		h2, err := faults.Latency.Histogram()
		if err != nil {
			t.Fatal(err)
		}
		h.Merge(h2)
		r := s.RunnersResults[0]
		if got, want := r.HTTPReqDuration.Values.P95, h.Percentile(95).Seconds()*1000; got != want {
			t.Errorf("runner 0 p(95) %v ms, want %v ms", got, want)
		}
		if got, want := r.Iterations.Values.Count, float64(base.Requests+faults.Requests); got != want {
			t.Errorf("runner 0 iterations %v, want %v", got, want)
		}
		if got, want := r.Checks.Values.Rate, 1-float64(base.Errors()+faults.Errors())/float64(base.Requests+faults.Requests); got != want || faults.Errors() == 0 {
			t.Errorf("runner 0 checks rate %v, want %v (the injected 500s)", got, want)
		}
		if s.Pass != rep.Pass {
			t.Errorf("pass %v, want the result's %v", s.Pass, rep.Pass)
		}
		checkUsage(t, rep, col.Usage, []string{"actorapp-0", "actorapp-1", "actorapp-2"}, []string{"actorapp-0-daprd", "actorapp-1-daprd", "actorapp-2-daprd"})
	})
}

// TestTriggerTestsLogResourcesOnly: Dapr's job trigger test logs its resource lines and no
// summary, so Dapr's report collects nothing for it.
func TestTriggerTestsLogResourcesOnly(t *testing.T) {
	c := convert(t, "jobs_triggering/http")
	if len(c.collected) != 0 {
		t.Errorf("collected %d summaries, want none", len(c.collected))
	}
	u := c.usage["TestJobTriggerPerformance"]
	if u == nil {
		t.Fatalf("no resource lines for TestJobTriggerPerformance")
	}
	checkUsage(t, c.reps["jobs_triggering/http"], *u, []string{"jobapp"}, []string{"jobapp-daprd"})
}

// TestDaprTestModes: the suite this command logs for each of Dapr's tests is the one
// buildTestModes gives it, and every test of the mapping is one Dapr charts. With -dapr-repo,
// the modes are recomputed from the Dapr repository's v1.18.3 test files.
func TestDaprTestModes(t *testing.T) {
	for _, m := range mappings {
		mode, ok := daprTestModesV1183[m.dapr.Func]
		if !ok {
			t.Errorf("%s: not one of Dapr's test functions", m.dapr.Func)
		}
		if m.dapr.Suite != suiteNone && string(m.dapr.Suite) != mode {
			t.Errorf("%s logs a %s summary; Dapr's report expects %s", m.dapr.Func, m.dapr.Suite, mode)
		}
	}
	if *daprRepo == "" {
		t.Skip("no -dapr-repo: the modes are the table's")
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"--git-dir", *daprRepo}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	got := map[string]string{}
	for _, f := range strings.Fields(git("ls-tree", "-r", "--name-only", "v1.18.3", "tests/perf")) {
		dir := filepath.Dir(f)
		if !strings.HasSuffix(f, "_test.go") || strings.Contains(f, "/report/") || strings.Contains(f, "/utils/") || dir == "tests/perf" {
			continue // buildTestModes skips report, utils and its root's own files
		}
		mode, funcs := daprModeOfSource(git("show", "v1.18.3:"+f))
		for _, fn := range funcs {
			got[fn] = mode
		}
	}
	got["TestParamsOpts"] = daprTestModesV1183["TestParamsOpts"]
	for fn, mode := range daprTestModesV1183 {
		if got[fn] != mode {
			t.Errorf("%s: Dapr's buildTestModes gives %q, the table %q", fn, got[fn], mode)
		}
	}
	for fn := range got {
		if _, ok := daprTestModesV1183[fn]; !ok {
			t.Errorf("%s: in Dapr's tests, not in the table", fn)
		}
	}
}

// TestVariantsAreSkipped: a daprperf variant is not written under Dapr's test, nor a test Dapr
// skips whose runs its report would average with another's.
func TestVariantsAreSkipped(t *testing.T) {
	for _, f := range []string{"state_get_redis/http", "actor_activation_redis/http", "configuration_get/http", "memory_growth/http", "actor_id_scale/http"} {
		rep, err := report.ReadReport(filepath.Join(reference, f, "result.json"))
		if err != nil {
			t.Fatal(err)
		}
		runs, skip, err := runsOf(rep, f)
		if err != nil || skip == "" || len(runs) != 0 {
			t.Errorf("%s: %d runs, skip %q, err %v; want skipped", f, len(runs), skip, err)
		}
	}
}

// TestParserSeesTheWrongSuite: the parse above is not blind. A k6 summary logged for a fortio
// test, or a fortio summary whose RunType is not its first line, is not read as Dapr reads ours.
func TestParserSeesTheWrongSuite(t *testing.T) {
	c := convert(t, "actor_type_scale/http")
	modes := map[string]string{"TestActorIdStress": "fortio"} // as if Dapr's test were fortio-based
	got, _, err := daprParse(bytes.NewReader(c.stream), modes)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("a k6 summary under a fortio test was collected: %v", got)
	}

	c = convert(t, "state_get/http")
	moved := strings.Replace(string(c.stream), `"Output":"  \"RunType\": \"HTTP\",\n"}`, `"Output":"  \"Labels\": \"\",\n"}`, 1)
	if moved == string(c.stream) {
		t.Fatal("no RunType line in the stream")
	}
	got, _, err = daprParse(strings.NewReader(moved), daprTestModesV1183)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("a fortio summary without its RunType line was collected: %v", got)
	}
}
