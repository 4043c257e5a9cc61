package charts

import (
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
