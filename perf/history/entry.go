// Package history keeps an index of every run under a report root, one entry per result file,
// so that a nightly can compare each night with the nights before without reading every result
// file again, and without comparing another machine as if it were the same.
//
// The index is <root>/history/index.jsonl (IndexPath): JSON Lines, one Entry per line, in time
// order. Rebuild makes it from the result files under the root; Add adds the result files of a
// run; neither ever drops an entry: one whose result file is gone is kept, marked Missing. Every
// write replaces the file atomically (a temp file renamed into place) under an exclusive lock,
// so a reader sees the old index or the new one and two writers do not lose each other's entries.
//
//	idx, err := history.Add(root, "reports/runs/20260101T020000Z-4f2a")
//	s, err := idx.Series(history.Scenario{Test: "service_invocation", Transport: perf.HTTP}, history.FigureOverheadP90, machine)
//	for _, p := range s.Points { ... p.OtherMachine ... }
package history

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/stats"
)

// EntrySchema is the version of an index entry; Load rejects other versions.
const EntrySchema = 1

// Entry is one result file in the index: what ran, where, with which builds, and the figures a
// nightly compares. Times are UTC; figures are in the unit each Figure names.
type Entry struct {
	Schema int `json:"schema"`
	// Path is the result file's path relative to the report root, with forward slashes
	// ("runs/<run id>/service_invocation/http/result.json", "v1.17.5/..."): the entry's key.
	Path     string   `json:"path"`
	RunID    string   `json:"runID"`
	Scenario Scenario `json:"scenario"`
	// StartTime is the run's start (environment.startTime).
	StartTime time.Time `json:"startTime"`
	// DaprperfCommit is this repository's commit the run was made with.
	DaprperfCommit string `json:"daprperfCommit,omitempty"`
	// DaprVersion is what daprd reported ("1.17.5"). DaprdCommit is daprd's source commit
	// where the result file knows it, and DaprdCommitSource how (perf.DaprdBuild.CommitSource);
	// DaprdModuleSum is the go.sum hash of the dapr module daprd was built from. All three are
	// empty for result files written before daprd's build was recorded.
	DaprVersion       string `json:"daprVersion"`
	DaprdCommit       string `json:"daprdCommit,omitempty"`
	DaprdCommitSource string `json:"daprdCommitSource,omitempty"`
	DaprdModuleSum    string `json:"daprdModuleSum,omitempty"`
	// BuildB is the daprd version of build B in an A/B run ("" otherwise): the figures are
	// build A's.
	BuildB   string `json:"buildB,omitempty"`
	MTLS     *bool  `json:"mtls,omitempty"`
	Platform string `json:"platform"`
	// Machine is the fingerprint of the machine the run was measured on.
	Machine perf.MachineFingerprint `json:"machine"`
	// Load names the main phase's load, so that runs are compared at the same one (LoadKey):
	// "500 QPS x 30s, 16 connections, 1024 B", with the executor and mTLS off when they apply.
	Load string `json:"load"`
	// Pass and Valid are the report's; Incomplete is set for a run that ended early.
	Pass       bool `json:"pass"`
	Valid      bool `json:"valid"`
	Incomplete bool `json:"incomplete,omitempty"`
	// Figures are the compared figures (see Figure's names), in a fixed order: the overheads,
	// the rate, then per sidecar its CPU per request and peak RSS.
	Figures []Figure `json:"figures"`
	// Missing is set when the result file is gone: the entry keeps what was read from it.
	Missing bool `json:"missing,omitempty"`
	// ReadError is set when the result file is there but Rebuild could not read it: the entry
	// keeps what was read from it before; the error names the file and what is wrong.
	ReadError string `json:"readError,omitempty"`
}

// Scenario names what ran: the test, its transport and its plan kind (perf.Report.Plan).
type Scenario struct {
	Test      string        `json:"test"`
	Transport perf.Protocol `json:"transport"`
	Plan      string        `json:"plan,omitempty"`
}

// String is "<test>/<transport>", as the report folders name a scenario.
func (s Scenario) String() string { return s.Test + "/" + string(s.Transport) }

// ParseScenario reads "<test>/<transport>" (Scenario.String), the transport http or grpc. It is
// an error saying what it accepts for anything else.
func ParseScenario(s string) (Scenario, error) {
	test, transport, ok := strings.Cut(s, "/")
	if !ok || test == "" || (transport != string(perf.HTTP) && transport != string(perf.GRPC)) {
		return Scenario{}, errorf("scenario %q: want <test>/<transport>, the transport http or grpc (service_invocation/http)", s)
	}
	return Scenario{Test: test, Transport: perf.Protocol(transport)}, nil
}

// The names of the compared figures. The sidecars' figures are named per process
// (CPUFigure, RSSFigure), since a scenario may run several sidecars of one role.
const (
	// FigureOverheadP50, P90 and P99: the sidecar overhead at that percentile, seconds (the
	// report's overhead: main minus baseline per round, Value the median over rounds).
	FigureOverheadP50 = "overhead.p50"
	FigureOverheadP90 = "overhead.p90"
	FigureOverheadP99 = "overhead.p99"
	// FigureQPS is the achieved rate, requests/s.
	FigureQPS = "qps"
)

// CPUFigure names the CPU µs per request of process (a sidecar, "tester-daprd"):
// "cpuMicrosPerRequest:<process>", µs of one core per request.
func CPUFigure(process string) string { return "cpuMicrosPerRequest:" + process }

// RSSFigure names the peak RSS of process: "peakRSSBytes:<process>", bytes.
func RSSFigure(process string) string { return "peakRSSBytes:" + process }

// Figure is one compared figure of a run.
type Figure struct {
	// Name is one of the Figure* constants, or CPUFigure or RSSFigure of a process.
	Name string `json:"name"`
	// Unit is "s", "requests/s", "µs" (CPU of one core per request) or "bytes".
	Unit string `json:"unit"`
	// Value is the run's figure; PerRound its value in each round, in round order, where the
	// plan has rounds (for a plan of named loads, the rate has one value per load).
	Value    float64   `json:"value"`
	PerRound []float64 `json:"perRound,omitempty"`
	// Source says where Value and PerRound come from in the result file.
	Source string `json:"source"`
}

// Figure returns e's figure name; false when e has none of that name.
func (e Entry) Figure(name string) (Figure, bool) {
	i := slices.IndexFunc(e.Figures, func(f Figure) bool { return f.Name == name })
	if i < 0 {
		return Figure{}, false
	}
	return e.Figures[i], true
}

// entryOf makes the entry of rep, read from the result file at rel under the root. A plan with
// rounds gives every figure per round; a plan of named loads (growth, stages, iterations,
// delivery, ...) has no overhead, its rate per load, and its sidecars' CPU per request only
// where the report derived a cost (figures.cost), with no values per round.
func entryOf(rep *perf.Report, rel string) Entry {
	env := rep.Environment
	e := Entry{
		Schema: EntrySchema, Path: rel, RunID: rep.RunID,
		Scenario:  Scenario{Test: rep.Test, Transport: rep.Transport, Plan: rep.Plan},
		StartTime: env.StartTime.UTC(), DaprperfCommit: env.DaprperfCommit, DaprVersion: env.DaprVersion,
		MTLS: env.MTLS, Platform: env.Platform, Machine: env.Fingerprint(), Load: LoadKey(rep),
		Pass: rep.Pass, Valid: rep.Validity.Valid, Incomplete: rep.Incomplete,
	}
	if b := env.Daprd; b != nil {
		e.DaprdCommit, e.DaprdCommitSource, e.DaprdModuleSum = b.Commit, b.CommitSource, b.ModuleSum
	}
	if rep.AB != nil {
		e.BuildB = rep.AB.B.Version
	}
	for _, name := range []string{FigureOverheadP50, FigureOverheadP90, FigureOverheadP99} {
		o, ok := rep.OverheadOf(strings.TrimPrefix(name, "overhead."))
		if !ok || len(o.PerRoundSeconds) == 0 {
			continue
		}
		e.Figures = append(e.Figures, Figure{Name: name, Unit: "s", Value: o.MedianSeconds,
			PerRound: slices.Clone(o.PerRoundSeconds), Source: "overhead: main minus baseline per round, the median over rounds"})
	}
	if f, ok := qpsFigure(rep); ok {
		e.Figures = append(e.Figures, f)
	}
	e.Figures = append(e.Figures, sidecarFigures(rep)...)
	return e
}

// qpsFigure is the achieved rate: each round's main phase and their median, or, without
// rounds, each named load's and their median.
func qpsFigure(rep *perf.Report) (Figure, bool) {
	var xs []float64
	source := "rounds: each main phase's achieved rate, the median over rounds"
	if len(rep.Rounds) > 0 {
		for _, rd := range rep.Rounds {
			xs = append(xs, rd.Main.ActualQPS)
		}
	} else {
		for _, l := range rep.Loads {
			xs = append(xs, l.ActualQPS)
		}
		source = "loads (the plan has no rounds): each named load's achieved rate, the median over loads"
	}
	if len(xs) == 0 {
		return Figure{}, false
	}
	return Figure{Name: FigureQPS, Unit: "requests/s", Value: stats.Median(xs), PerRound: xs, Source: source}, true
}

// sidecarFigures are each sidecar's CPU µs per request and peak RSS, the sidecars in the order
// of the report's resource summaries.
func sidecarFigures(rep *perf.Report) []Figure {
	var out []Figure
	for _, rs := range rep.Resources {
		if !strings.HasSuffix(rs.Role, "sidecar") || rs.NoReadings() {
			continue
		}
		var cpu, rss []float64 // per round, where the round has the process's series
		for _, rd := range rep.Rounds {
			i := slices.IndexFunc(rd.Resources, func(s perf.Series) bool { return s.Process == rs.Process && len(s.Points) >= 2 })
			if i < 0 {
				continue
			}
			s := rd.Resources[i]
			if rd.Main.ActualQPS > 0 {
				cpu = append(cpu, 1e6*s.MeanCPU()/rd.Main.ActualQPS)
			}
			rss = append(rss, float64(s.PeakRSS()))
		}
		var cost *perf.ProcessCost
		if rep.Figures != nil {
			if i := slices.IndexFunc(rep.Figures.Cost, func(c perf.ProcessCost) bool { return c.Process == rs.Process }); i >= 0 {
				cost = &rep.Figures.Cost[i]
			}
		}
		if cost != nil {
			out = append(out, Figure{Name: CPUFigure(rs.Process), Unit: "µs", Value: cost.CPUMicrosPerRequest(), PerRound: cpu,
				Source: "figures.cost (mean CPU cores over the main phases / the main phases' achieved rate × 1e6); per round: the round's mean CPU / its achieved rate × 1e6"})
		}
		source := "resources: peak RSS over the main phases"
		if len(rep.Rounds) == 0 {
			source = "resources (the plan has no rounds): peak RSS over its loads"
		} else {
			source += "; per round: the main phase's peak"
		}
		out = append(out, Figure{Name: RSSFigure(rs.Process), Unit: "bytes", Value: float64(rs.PeakRSSBytes), PerRound: rss, Source: source})
	}
	return out
}

// LoadKey names rep's main-phase load for comparing runs: rate, duration, connections and
// payload size ("500 QPS x 30s, 16 connections, 1024 B"; "max rate" for an open throttle), then
// the closed-loop executor's kind and a hash of its settings when it has one, "mTLS off"
// when the sidecars ran without mTLS, and "app work" with a hash of Report.AppWork when the
// app did work of its own per request. Two runs with one key ran the same load.
func LoadKey(rep *perf.Report) string {
	p := rep.Params
	rate := fmt.Sprintf("%d QPS", p.QPS)
	if p.MaxRate {
		rate = "max rate"
	}
	key := fmt.Sprintf("%s x %v, %d connections, %d B", rate, p.Duration, p.Connections, p.PayloadBytes)
	if p.Executor.Kind != "" {
		b, _ := json.Marshal(p.Executor) // plain data: cannot fail
		sum := sha256.Sum256(b)
		key += fmt.Sprintf(", %s %s", p.Executor.Kind, hex.EncodeToString(sum[:4]))
	}
	if m := rep.Environment.MTLS; m != nil && !*m {
		key += ", mTLS off"
	}
	if rep.AppWork != "" {
		sum := sha256.Sum256([]byte(rep.AppWork))
		key += ", app work " + hex.EncodeToString(sum[:4])
	}
	return key
}
