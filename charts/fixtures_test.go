package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/growth"
	"github.com/daprperf/daprperf/perf/hdr"
	"github.com/daprperf/daprperf/perf/report"
)

// go test ./charts -update rewrites the fixture result files and the golden Markdown files.
var update = flag.Bool("update", false, "rewrite testdata: fixture result files and golden files")

func TestMain(m *testing.M) {
	flag.Parse()
	if *update {
		if err := writeFixtures(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

// Fixture trees: reports holds one HTTP report (1 round) and one gRPC report (3 rounds);
// compare holds two versions of three scenarios with known differences.
const (
	reportsFixtures = "testdata/reports"
	compareFixtures = "testdata/compare"
	// The regression gate: a reference of 6 rounds, the same run with main latency 10 % higher
	// in every round, and a malformed file (gateMalformed, written by hand).
	gateReference = "testdata/gate/reference"
	gateRegressed = "testdata/gate/regressed"
	gateMalformed = "testdata/gate/malformed/result.json"
)

// phaseSpec describes one load phase of a fixture: percentiles in ms at p50, p75, p90, p99
// and p99.9, the actual QPS, failed requests and skipped schedule slots.
type phaseSpec struct {
	ms        [5]float64
	actualQPS float64
	errors    int64
	skipped   int64
}

type roundSpec struct{ baseline, main phaseSpec }

// reportSpec describes a fixture report. CPU is in cores (alternating ±0.002 around it);
// RSS starts at rssMiB and grows by 1 MiB over each main phase.
type reportSpec struct {
	version, test          string
	proto                  perf.Protocol
	rounds                 []roundSpec
	start                  time.Time
	calleeCPU, callerCPU   float64
	calleeRSS, callerRSS   float64
	invalid                []string
	cpus                   int
	runID, commit, cpuName string
}

func fixtureSpecs() map[string][]reportSpec {
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	env := func(s reportSpec) reportSpec {
		s.cpus, s.cpuName = 2, "AMD EPYC 7763 64-Core Processor"
		s.commit = "3f2a9c1d5e7b8a6c4d2e0f1a3b5c7d9e1f2a4b6c"
		s.runID = s.start.Format("20060102T150405Z") + "-" + string(s.proto)
		return s
	}
	qps := func(b, m [5]float64) roundSpec {
		return roundSpec{baseline: phaseSpec{ms: b, actualQPS: 999.95}, main: phaseSpec{ms: m, actualQPS: 999.94}}
	}
	// Compare fixtures: a constant baseline; main = baseline + overhead (p50, p75, p90, p99, p99.9).
	base := [5]float64{0.50, 0.70, 0.90, 1.00, 1.50}
	over := func(ovs ...[5]float64) []roundSpec {
		var out []roundSpec
		for _, ov := range ovs {
			var m [5]float64
			for i := range m {
				m[i] = base[i] + ov[i]
			}
			out = append(out, qps(base, m))
		}
		return out
	}
	cmp := func(version, test string, proto perf.Protocol, calleeCPU float64, rounds []roundSpec) reportSpec {
		return env(reportSpec{version: version, test: test, proto: proto, rounds: rounds, start: start,
			calleeCPU: calleeCPU, callerCPU: 0.150, calleeRSS: 40, callerRSS: 35})
	}
	// Gate fixtures: 6 rounds whose main latency varies by ±2 % from round to round; the
	// regressed run has every main percentile 10 % higher.
	gate := func(factor float64) []reportSpec {
		var rounds []roundSpec
		for _, f := range []float64{1.00, 1.02, 0.99, 1.01, 0.98, 1.00} {
			var m [5]float64
			for i, v := range [5]float64{1.50, 2.00, 2.50, 3.50, 5.00} {
				m[i] = math.Round(v*f*factor*1000) / 1000
			}
			rounds = append(rounds, qps(base, m))
		}
		return []reportSpec{env(reportSpec{version: "1.17.5", test: "service_invocation", proto: perf.HTTP, rounds: rounds,
			start: start, calleeCPU: 0.200, callerCPU: 0.150, calleeRSS: 40, callerRSS: 35})}
	}
	return map[string][]reportSpec{
		gateReference: gate(1.00),
		gateRegressed: gate(1.10),
		reportsFixtures: {
			// Dapr's published v1.17.0 HTTP figures, one round.
			env(reportSpec{version: "1.17.5", test: "service_invocation", proto: perf.HTTP, start: start,
				rounds: []roundSpec{qps(
					[5]float64{0.53, 0.70, 0.90, 0.99, 1.20},
					[5]float64{1.59, 1.95, 2.38, 3.89, 6.61})},
				calleeCPU: 0.202, callerCPU: 0.230, calleeRSS: 50, callerRSS: 45}),
			// Three rounds; round 2 fell behind and had 3 errors.
			env(reportSpec{version: "1.17.5", test: "service_invocation", proto: perf.GRPC, start: start.Add(time.Hour),
				rounds: []roundSpec{
					qps([5]float64{0.60, 0.80, 1.00, 1.40, 1.90}, [5]float64{2.25, 2.60, 2.92, 4.59, 8.00}),
					{
						baseline: phaseSpec{ms: [5]float64{0.62, 0.82, 1.05, 1.50, 2.00}, actualQPS: 999.95},
						main:     phaseSpec{ms: [5]float64{2.30, 2.70, 3.00, 4.70, 8.20}, actualQPS: 980, errors: 3, skipped: 1200},
					},
					qps([5]float64{0.58, 0.78, 0.95, 1.30, 1.80}, [5]float64{2.28, 2.66, 2.97, 4.40, 7.90}),
				},
				calleeCPU: 0.248, callerCPU: 0.270, calleeRSS: 49, callerRSS: 46,
				invalid: []string{"round 2 main: 2.00 % of the schedule not kept (1,200 of 60,000 slots skipped)"}}),
		},
		compareFixtures: {
			// gRPC: p90 overhead 0.9/1.0/1.1 ms -> 1.15/1.2/1.25 ms: +20 %, intervals apart.
			cmp("1.16.5", "service_invocation", perf.GRPC, 0.200, over(
				[5]float64{0.80, 0.90, 0.90, 2.0, 3.0}, [5]float64{0.85, 0.95, 1.00, 2.1, 3.2}, [5]float64{0.90, 1.00, 1.10, 2.2, 3.4})),
			cmp("1.17.5", "service_invocation", perf.GRPC, 0.220, over(
				[5]float64{0.82, 0.90, 1.15, 2.1, 3.0}, [5]float64{0.86, 0.95, 1.20, 2.2, 3.2}, [5]float64{0.92, 1.00, 1.25, 2.3, 3.4})),
			// HTTP: p90 overhead 0.9/1.0/1.1 ms -> 1.0/1.05/1.2 ms: +5 %, intervals overlap.
			cmp("1.16.5", "service_invocation", perf.HTTP, 0.200, over(
				[5]float64{0.80, 0.90, 0.90, 2.0, 3.0}, [5]float64{0.85, 0.95, 1.00, 2.1, 3.2}, [5]float64{0.90, 1.00, 1.10, 2.2, 3.4})),
			cmp("1.17.5", "service_invocation", perf.HTTP, 0.200, over(
				[5]float64{0.80, 0.90, 1.00, 2.0, 3.0}, [5]float64{0.85, 0.95, 1.05, 2.1, 3.2}, [5]float64{0.90, 1.00, 1.20, 2.2, 3.4})),
			// One round each: no interval.
			cmp("1.16.5", "single_run", perf.HTTP, 0.200, over([5]float64{0.80, 0.90, 1.00, 2.0, 3.0})),
			cmp("1.17.5", "single_run", perf.HTTP, 0.200, over([5]float64{0.80, 0.90, 1.10, 2.0, 3.0})),
		},
	}
}

// fixtureReports builds every fixture report, by tree.
func fixtureReports() (map[string][]*perf.Report, error) {
	out := map[string][]*perf.Report{}
	for root, specs := range fixtureSpecs() {
		for _, s := range specs {
			rep, err := buildReport(s)
			if err != nil {
				return nil, err
			}
			out[root] = append(out[root], rep)
		}
	}
	out[reportsFixtures] = append(out[reportsFixtures], growthReport())
	return out, nil
}

// writeFixtures writes every fixture report under its tree, as perf.WriteReport lays it out.
func writeFixtures() error {
	all, err := fixtureReports()
	if err != nil {
		return err
	}
	for root, reps := range all {
		for _, rep := range reps {
			if _, err := perf.WriteReport(root, rep); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestFixturesAreRegenerable checks that the committed fixtures are what the helper builds.
func TestFixturesAreRegenerable(t *testing.T) {
	all, err := fixtureReports()
	if err != nil {
		t.Fatal(err)
	}
	for root, reps := range all {
		for _, rep := range reps {
			path := rep.Path(root)
			want, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./charts -update writes it)", err)
			}
			if !bytes.Equal(got, append(want, '\n')) {
				t.Errorf("%s differs from what the fixture helper builds; run go test ./charts -update", path)
			}
		}
	}
}

// growthReport is a memory-growth run as in Dapr's known case: with a fixed method name the
// caller's sidecar steps up to 25 MiB and stays; with a unique one per request it grows from
// 19 to 47, 69 and 80 MiB after 3,000, 6,000 and 9,000 requests.
func growthReport() *perf.Report {
	start := time.Date(2026, 5, 1, 14, 0, 0, 0, time.UTC)
	const perRound = 3000
	mib := func(x float64) uint64 { return uint64(x * (1 << 20)) }
	sidecar := func(process, role string, rss []float64, idle float64, series []int) growth.Sidecar {
		sg := growth.Sidecar{Process: process, Role: role}
		var load []growth.Point
		for i, r := range rss {
			rd := growth.Reading{Label: strconv.Itoa(i * perRound), Requests: int64(i * perRound),
				Seconds: float64(10 * i), RSSBytes: mib(r), Series: series[i]}
			sg.Readings = append(sg.Readings, rd)
			load = append(load, growth.Point{Requests: rd.Requests, Seconds: rd.Seconds, RSSBytes: rd.RSSBytes})
		}
		last := sg.Readings[len(sg.Readings)-1]
		for k := 1; k <= 3; k++ {
			sg.Idle = append(sg.Idle, growth.Point{Requests: last.Requests, Seconds: last.Seconds + float64(10*k),
				RSSBytes: mib(rss[len(rss)-1] + (idle-rss[len(rss)-1])*float64(k)/3)})
		}
		sg.Readings = append(sg.Readings, growth.Reading{Label: "idle", Requests: last.Requests,
			Seconds: last.Seconds + 30, RSSBytes: mib(idle), Series: series[len(series)-1]})
		sg.Growth = growth.Classify(load, sg.Idle, growth.MinThresholdKiB)
		if n := len(series); series[0] >= 0 {
			sg.SeriesPerRequest = float64(series[n-1]-series[0]) / float64(last.Requests)
		}
		return sg
	}
	params := perf.DefaultParams()
	params.QPS, params.Connections, params.Duration = 100, 4, 30*time.Second
	return &perf.Report{
		Schema: perf.ReportSchema, Test: "memory_growth", Transport: perf.HTTP, RunID: "20260501T140000Z-growth",
		Environment: perf.Environment{DaprVersion: "1.17.5", Platform: "local", CPUModel: "AMD EPYC 7763 64-Core Processor",
			CPUs: 2, GoVersion: "go1.26.8", DaprperfCommit: "3f2a9c1d5e7b8a6c4d2e0f1a3b5c7d9e1f2a4b6c", StartTime: start},
		Params:   params,
		Validity: perf.Validity{Valid: true},
		Pass:     true,
		Growth: &growth.Report{
			Rounds: 3, RequestsPerRound: perRound, IdleSeconds: 30,
			ThresholdKiBPer1000: growth.MinThresholdKiB, ThresholdSource: "the minimum",
			Variants: []growth.Variant{
				{Name: "fixed", Description: "one method name: checkout", Sidecars: []growth.Sidecar{
					sidecar("tester-daprd", "caller-sidecar", []float64{19, 25, 25, 25}, 25, []int{120, 124, 124, 124}),
					sidecar("httpapp-daprd", "callee-sidecar", []float64{18, 20, 20, 20}, 20, []int{-1, -1, -1, -1}),
				}},
				{Name: "unique", Description: "a method name per request: checkout/{uuid}", Sidecars: []growth.Sidecar{
					sidecar("tester-daprd", "caller-sidecar", []float64{19, 47, 69, 80}, 80, []int{120, 3124, 6124, 9124}),
					sidecar("httpapp-daprd", "callee-sidecar", []float64{18, 20, 20, 20}, 20, []int{-1, -1, -1, -1}),
				}},
			},
		},
	}
}

func buildReport(s reportSpec) (*perf.Report, error) {
	params := perf.DefaultParams()
	params.QPS, params.Connections, params.Duration, params.PayloadBytes = 1000, 16, time.Minute, 1024
	params.Protocol = s.proto
	warmup := params
	warmup.QPS, warmup.Duration = 100, 10*time.Second
	app := map[perf.Protocol]string{perf.HTTP: "httpapp", perf.GRPC: "grpcapp"}[s.proto]

	rep := &perf.Report{
		Schema: perf.ReportSchema, Test: s.test, Transport: s.proto, RunID: s.runID,
		Environment: perf.Environment{DaprVersion: s.version, Platform: "local", CPUModel: s.cpuName,
			CPUs: s.cpus, GoVersion: "go1.26.8", DaprperfCommit: s.commit, StartTime: s.start},
		Params: params, WarmupParams: warmup,
		Validity: perf.Validity{Valid: len(s.invalid) == 0, Reasons: s.invalid},
		Exits:    []perf.Exit{},
	}
	at := s.start
	for _, rs := range s.rounds {
		bp, mp := params, params
		bp.Target = "http://127.0.0.1:40001/test"
		mp.Target = "http://127.0.0.1:40003/v1.0/invoke/" + app + "/method/test"
		if s.proto == perf.GRPC {
			bp.Target, mp.Target, mp.AppID = "127.0.0.1:40002", "127.0.0.1:40004", app
		}
		baseline := phaseResult(bp, at, rs.baseline)
		at = at.Add(70 * time.Second)
		main := phaseResult(mp, at, rs.main)
		rep.Rounds = append(rep.Rounds, perf.Round{Baseline: baseline, Main: main, Resources: []perf.Series{
			series("tester", "tester", at, 0.300, 30),
			series("tester-daprd", "caller-sidecar", at, s.callerCPU, s.callerRSS),
			series(app+"-daprd", "callee-sidecar", at, s.calleeCPU, s.calleeRSS),
			series(app, "app", at, 0.050, 12),
		}})
		at = at.Add(80 * time.Second)
	}
	ovs, err := report.ComputeOverheads(rep.Rounds)
	if err != nil {
		return nil, err
	}
	rep.Overhead = ovs

	last := rep.Rounds[len(rep.Rounds)-1].Resources
	for i, sr := range last {
		sum := perf.ResourceSummary{Process: sr.Process, Role: sr.Role}
		for _, rd := range rep.Rounds {
			s := rd.Resources[i]
			sum.MeanCPUCores += s.MeanCPU() / float64(len(rep.Rounds))
			sum.PeakRSSBytes = max(sum.PeakRSSBytes, s.PeakRSS())
		}
		sum.RSSSlopeBytesPerSecond, sum.RSSSlopeR2 = sr.Slope()
		rep.Resources = append(rep.Resources, sum)
	}

	var errs int64
	ratio := math.Inf(1)
	for _, rd := range rep.Rounds {
		errs += rd.Baseline.Errors() + rd.Main.Errors()
		ratio = min(ratio, rd.Main.QPSRatio())
	}
	p90, _ := rep.OverheadOf("p90")
	rep.Verdicts = report.Evaluate(perf.DefaultThresholds(s.proto), map[string]float64{
		"errors": float64(errs), "restarts": 0, "qps.ratio": ratio, "overhead.p90": p90.GateSeconds(),
	})
	rep.Pass = rep.Validity.Valid
	for _, v := range rep.Verdicts {
		rep.Pass = rep.Pass && (v.Pass || v.WarnOnly)
	}
	return rep, nil
}

// phaseResult is a one-minute run of 60,000 requests whose stored HDR histogram agrees with its
// percentiles: each range between them holds its share of requests, evenly spread.
func phaseResult(p perf.Params, start time.Time, s phaseSpec) perf.Result {
	const requests = 60_000
	sec := func(ms float64) float64 { return math.Round(ms*1e6) / 1e9 } // ms to s, to the ns
	lat := perf.Latency{
		MinSeconds: sec(s.ms[0] / 2), AvgSeconds: sec((s.ms[0] + s.ms[2]) / 2), MaxSeconds: sec(s.ms[4] * 1.5),
		StdDevSeconds: sec((s.ms[3] - s.ms[0]) / 3), SignificantDigits: hdr.SignificantDigits,
	}
	for i, q := range perf.DefaultPercentiles {
		lat.Percentiles = append(lat.Percentiles, perf.PercentileValue{P: q, Seconds: sec(s.ms[i])})
	}
	edges := []float64{s.ms[0] / 2, s.ms[0], s.ms[1], s.ms[2], s.ms[3], s.ms[4], s.ms[4] * 1.5}
	shares := []int64{30_000, 15_000, 9_000, 5_400, 540, 60} // 50, 25, 15, 9, 0.9, 0.1 %
	h := hdr.New()
	for i, n := range shares {
		w := (edges[i+1] - edges[i]) / float64(n)
		for j := range n {
			h.Record(time.Duration((edges[i] + float64(j)*w) * 1e6))
		}
	}
	enc, err := h.Encode()
	if err != nil {
		panic(err) // an in-memory histogram always encodes
	}
	lat.HDR = enc
	ok, fail := "200", "503"
	if p.Protocol == perf.GRPC {
		ok, fail = "OK", "Unavailable"
	}
	codes := map[string]int64{ok: requests - s.errors}
	if s.errors > 0 {
		codes[fail] = s.errors
	}
	return perf.Result{
		Params: p, StartTime: start, RequestedQPS: float64(p.QPS), ActualQPS: s.actualQPS,
		ActualDuration: time.Duration(math.Round(requests / s.actualQPS * 1e9)), Requests: requests,
		Latency: lat, RetCodes: codes,
		Schedule: perf.Schedule{Scheduled: requests, Skipped: s.skipped},
	}
}

// series samples a process every 5 s over a one-minute main phase: CPU alternates ±0.002
// cores around cpu (the first reading is 0), RSS grows from rssMiB by 1 MiB.
func series(process, role string, start time.Time, cpu, rssMiB float64) perf.Series {
	s := perf.Series{Process: process, Role: role}
	base := uint64(rssMiB * (1 << 20))
	for i := range 13 {
		pt := perf.Sample{At: start.Add(time.Duration(i) * 5 * time.Second), RSSBytes: base + uint64(i)*(1<<20)/12}
		if i > 0 {
			pt.CPUCores = cpu + 0.002*float64(2*(i%2)-1)
		}
		s.Points = append(s.Points, pt)
	}
	return s
}

// fixtureTree copies a fixture tree into a fresh directory, where the charts can be written.
func fixtureTree(t testing.TB, tree string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(tree))
	if err := os.CopyFS(dst, os.DirFS(tree)); err != nil {
		t.Fatal(err)
	}
	return dst
}
