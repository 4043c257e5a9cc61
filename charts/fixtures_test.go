package charts

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
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
