package history_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/history"
	"github.com/daprperf/daprperf/perf/report"
)

// reports is the repository's report root, whose published result files the tests copy.
const reports = "../../reports"

// published are the real result files copied into each test's root: two plans with rounds
// (service invocation on two versions) and two without (memory growth, the stages of
// pubsub_publish).
var published = []string{
	"v1.16.5/service_invocation/http/result.json",
	"v1.16.5/memory_growth/http/result.json",
	"v1.17.5/service_invocation/http/result.json",
	"v1.17.5/pubsub_publish/http/result.json",
}

// nightly is the machine of the run folders: the published files have no memory and kernel.
var nightly = map[string]any{"cpuModel": "AMD EPYC 7763 64-Core Processor", "cpus": 4.0,
	"hostMemoryBytes": 16.0 * (1 << 30), "kernelRelease": "6.8.0-45-generic"}

// copyFile copies a published result file into root at rel, changing its environment's fields
// by env and its run id when runID is not empty.
func copyFile(t *testing.T, root, from, rel, runID string, env map[string]any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(reports, from))
	if err != nil {
		t.Fatal(err)
	}
	if runID != "" || env != nil {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if runID != "" {
			m["runID"] = runID
		}
		e := m["environment"].(map[string]any)
		for k, v := range env {
			e[k] = v
		}
		if b, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// night copies the v1.17.5 service invocation result as the run id of one night on the nightly
// machine, starting at start (RFC 3339), and returns its run folder.
func night(t *testing.T, root, id, start string) string {
	t.Helper()
	env := map[string]any{"startTime": start}
	for k, v := range nightly {
		env[k] = v
	}
	copyFile(t, root, "v1.17.5/service_invocation/http/result.json", "runs/"+id+"/service_invocation/http/result.json", id, env)
	return filepath.Join(root, "runs", id)
}

// tree is a report root holding the published files and two nights' run folders.
func tree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, p := range published {
		copyFile(t, root, p, p, "", nil)
	}
	night(t, root, "20270101T020000Z-aa01", "2027-01-01T02:00:00Z")
	night(t, root, "20270102T020000Z-aa02", "2027-01-02T02:00:00Z")
	return root
}

// raw is a result file read as plain JSON, to check the index against without perf's types.
type raw struct {
	RunID       string `json:"runID"`
	Environment struct {
		GitCommit string `json:"gitCommit"`
	} `json:"environment"`
	Overhead []struct {
		Figure          string    `json:"figure"`
		PerRoundSeconds []float64 `json:"perRoundSeconds"`
		MedianSeconds   float64   `json:"medianSeconds"`
	} `json:"overhead"`
	Rounds []struct {
		Main struct {
			ActualQPS float64 `json:"actualQPS"`
		} `json:"main"`
	} `json:"rounds"`
	Loads []struct {
		ActualQPS float64 `json:"actualQPS"`
	} `json:"loads"`
	Resources []struct {
		Process      string  `json:"process"`
		Role         string  `json:"role"`
		PeakRSSBytes float64 `json:"peakRSSBytes"`
	} `json:"resources"`
	Figures struct {
		Cost []struct {
			Process              string  `json:"process"`
			CPUSecondsPerRequest float64 `json:"cpuSecondsPerRequest"`
		} `json:"cost"`
	} `json:"figures"`
}

func readRaw(t *testing.T, path string) raw {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r raw
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func entry(t *testing.T, idx *history.Index, path string) history.Entry {
	t.Helper()
	for _, e := range idx.Entries {
		if e.Path == path {
			return e
		}
	}
	t.Fatalf("no entry of %s", path)
	return history.Entry{}
}

func figure(t *testing.T, e history.Entry, name string) history.Figure {
	t.Helper()
	f, ok := e.Figure(name)
	if !ok {
		t.Fatalf("%s: no figure %s", e.Path, name)
	}
	return f
}

// Rebuild indexes every result file of the tree once, in time order, with the figures the
// files hold; the index file has one JSON object per entry and Load reads back the same.
func TestRebuild(t *testing.T) {
	root := tree(t)
	idx, warnings, err := history.Rebuild(root)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("Rebuild: %v %v", err, warnings)
	}
	if len(idx.Entries) != len(published)+2 {
		t.Fatalf("%d entries, want %d", len(idx.Entries), len(published)+2)
	}
	for i := 1; i < len(idx.Entries); i++ {
		if idx.Entries[i].StartTime.Before(idx.Entries[i-1].StartTime) {
			t.Errorf("entry %d (%s) starts before entry %d", i, idx.Entries[i].Path, i-1)
		}
	}

	// A plan with rounds: every figure per round, as the file has it.
	const si = "v1.17.5/service_invocation/http/result.json"
	r := readRaw(t, filepath.Join(root, si))
	e := entry(t, idx, si)
	if e.RunID != r.RunID || e.Scenario != (history.Scenario{Test: "service_invocation", Transport: perf.HTTP, Plan: "overhead"}) ||
		e.DaprVersion != "1.17.5" || e.DaprperfCommit != r.Environment.GitCommit || e.DaprperfCommit == "" || !e.Pass || !e.Valid {
		t.Errorf("entry %+v: want the file's run id, scenario, version, commit (from gitCommit), pass and valid", e)
	}
	if e.Machine.Complete() || e.Machine.CPUs != 2 || len(e.Machine.Hash) != 12 {
		t.Errorf("machine %+v: want 2 CPUs, a hash, and incomplete (the file has no memory or kernel)", e.Machine)
	}
	for _, o := range r.Overhead {
		if !slices.Contains([]string{"p50", "p90", "p99"}, o.Figure) {
			continue
		}
		f := figure(t, e, "overhead."+o.Figure)
		if f.Value != o.MedianSeconds || !slices.Equal(f.PerRound, o.PerRoundSeconds) || len(f.PerRound) != 6 || f.Unit != "s" {
			t.Errorf("overhead %s: %+v, want median %v and rounds %v", o.Figure, f, o.MedianSeconds, o.PerRoundSeconds)
		}
	}
	qps := figure(t, e, history.FigureQPS)
	if len(qps.PerRound) != len(r.Rounds) {
		t.Fatalf("qps per round %v, want %d rounds", qps.PerRound, len(r.Rounds))
	}
	for i, rd := range r.Rounds {
		if qps.PerRound[i] != rd.Main.ActualQPS {
			t.Errorf("qps round %d = %v, want %v", i+1, qps.PerRound[i], rd.Main.ActualQPS)
		}
	}
	sidecars := 0
	for _, c := range r.Figures.Cost {
		if !strings.HasSuffix(c.Process, "daprd") {
			if _, ok := e.Figure(history.CPUFigure(c.Process)); ok {
				t.Errorf("the app %s has a CPU figure: only sidecars are indexed", c.Process)
			}
			continue
		}
		sidecars++
		f := figure(t, e, history.CPUFigure(c.Process))
		if f.Value != 1e6*c.CPUSecondsPerRequest || len(f.PerRound) != 6 || f.Unit != "µs" {
			t.Errorf("%s CPU: %+v, want %v µs and 6 rounds", c.Process, f, 1e6*c.CPUSecondsPerRequest)
		}
		for _, x := range f.PerRound { // a round's own mean over its own rate: near the run's
			if x < f.Value/2 || x > 2*f.Value {
				t.Errorf("%s CPU per round %v far from the run's %v", c.Process, f.PerRound, f.Value)
				break
			}
		}
	}
	if sidecars != 2 {
		t.Errorf("%d sidecars with a cost, want 2", sidecars)
	}
	for _, rs := range r.Resources {
		if strings.HasSuffix(rs.Role, "sidecar") {
			f := figure(t, e, history.RSSFigure(rs.Process))
			if f.Value != rs.PeakRSSBytes || len(f.PerRound) != 6 || slices.Max(f.PerRound) != rs.PeakRSSBytes {
				t.Errorf("%s RSS: %+v, want %v, the largest of its rounds", rs.Process, f, rs.PeakRSSBytes)
			}
		}
	}

	// A plan without rounds: no overhead; its rate per load, said so.
	const mg = "v1.16.5/memory_growth/http/result.json"
	g := entry(t, idx, mg)
	if _, ok := g.Figure(history.FigureOverheadP90); ok {
		t.Errorf("the growth plan has an overhead figure")
	}
	gq := figure(t, g, history.FigureQPS)
	if rl := readRaw(t, filepath.Join(root, mg)).Loads; len(gq.PerRound) != len(rl) || gq.PerRound[0] != rl[0].ActualQPS ||
		!strings.Contains(gq.Source, "no rounds") {
		t.Errorf("growth qps %+v: want one value per load (%d) and a source that says there are no rounds", gq, len(rl))
	}

	b, err := os.ReadFile(history.IndexPath(root))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != len(idx.Entries) {
		t.Errorf("index has %d lines, want one per entry (%d)", len(lines), len(idx.Entries))
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Errorf("line %d is not a JSON object: %v", i+1, err)
		}
	}
	loaded, err := history.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(loaded.Entries)
	if err != nil {
		t.Fatal(err)
	}
	built, _ := json.Marshal(idx.Entries)
	if !bytes.Equal(again, built) {
		t.Errorf("Load reads back other entries than Rebuild wrote")
	}
}

// Adding a run twice indexes it once; adding another keeps every entry; a path outside the
// root is refused.
func TestAddTwice(t *testing.T) {
	root := tree(t)
	if _, _, err := history.Rebuild(root); err != nil {
		t.Fatal(err)
	}
	run := night(t, root, "20270103T020000Z-aa03", "2027-01-03T02:00:00Z")
	first, err := history.Add(root, run)
	if err != nil {
		t.Fatal(err)
	}
	second, err := history.Add(root, filepath.Join(run, "service_invocation", "http", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Entries) != len(published)+3 || len(second.Entries) != len(first.Entries) {
		t.Errorf("entries: %d after the first add, %d after the second; want %d both times", len(first.Entries), len(second.Entries), len(published)+3)
	}
	n := 0
	for _, e := range second.Entries {
		if e.RunID == "20270103T020000Z-aa03" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the run added twice has %d entries, want 1", n)
	}
	if last := second.Entries[len(second.Entries)-1]; last.RunID != "20270103T020000Z-aa03" {
		t.Errorf("the latest entry is %s, want the night of 2027-01-03", last.RunID)
	}

	outside := t.TempDir()
	copyFile(t, outside, published[0], published[0], "", nil)
	if _, err := history.Add(root, filepath.Join(outside, published[0])); err == nil || !strings.Contains(err.Error(), "not under the report root") {
		t.Errorf("a file outside the root: %v, want refused", err)
	}
}

// A result file that is removed keeps its entry, marked missing, through an add and a rebuild.
func TestRemovedFileIsKept(t *testing.T) {
	root := tree(t)
	if _, _, err := history.Rebuild(root); err != nil {
		t.Fatal(err)
	}
	gone := "runs/20270101T020000Z-aa01/service_invocation/http/result.json"
	before := entry(t, must(history.Load(root)), gone)
	if err := os.Remove(filepath.Join(root, gone)); err != nil {
		t.Fatal(err)
	}
	idx, err := history.Add(root, night(t, root, "20270103T020000Z-aa03", "2027-01-03T02:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	if e := entry(t, idx, gone); !e.Missing || !slices.Equal(figure(t, e, history.FigureOverheadP90).PerRound, figure(t, before, history.FigureOverheadP90).PerRound) {
		t.Errorf("after add: %s missing=%v, want kept, marked missing, with its figures", gone, e.Missing)
	}
	idx, _, err = history.Rebuild(root)
	if err != nil {
		t.Fatal(err)
	}
	if e := entry(t, idx, gone); !e.Missing || e.RunID != "20270101T020000Z-aa01" {
		t.Errorf("after rebuild: %+v, want kept and marked missing", e)
	}
	if len(idx.Entries) != len(published)+3 {
		t.Errorf("%d entries after the rebuild, want %d", len(idx.Entries), len(published)+3)
	}
	if e := entry(t, idx, "runs/20270102T020000Z-aa02/service_invocation/http/result.json"); e.Missing {
		t.Errorf("a file that is there is marked missing")
	}
}

func must(idx *history.Index, err error) *history.Index {
	if err != nil {
		panic(err)
	}
	return idx
}

// Runs on two machines are told apart: the series of the nightly machine flags the published
// runs, measured elsewhere, and names their machine; asked on the other machine, the flags turn.
func TestSeriesTellsMachinesApart(t *testing.T) {
	root := tree(t)
	idx, _, err := history.Rebuild(root)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := history.ParseScenario("service_invocation/http")
	if err != nil {
		t.Fatal(err)
	}
	nightlyHash := entry(t, idx, "runs/20270101T020000Z-aa01/service_invocation/http/result.json").Machine
	published := entry(t, idx, "v1.17.5/service_invocation/http/result.json").Machine
	if !nightlyHash.Complete() || nightlyHash.Hash == published.Hash {
		t.Fatalf("fingerprints %+v and %+v: want the nightly's complete and the two different", nightlyHash, published)
	}
	s, err := idx.Series(sc, history.FigureOverheadP90, nightlyHash.Hash)
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, p := range s.Points {
		runs = append(runs, p.RunID)
		if p.OtherMachine != (p.Machine != nightlyHash.Hash) {
			t.Errorf("point %s on %s: OtherMachine %v", p.RunID, p.Machine, p.OtherMachine)
		}
	}
	// The references were taken the same evening, v1.17.5 (22:06 UTC) before v1.16.5 (22:19).
	want := []string{"ref-si-v1.17.5-6r", "ref-si-v1.16.5-6r", "20270101T020000Z-aa01", "20270102T020000Z-aa02"}
	if !slices.Equal(runs, want) {
		t.Errorf("series runs %v, want %v in time order", runs, want)
	}
	if !slices.Equal(s.OtherMachines, []string{published.Hash}) {
		t.Errorf("other machines %v, want [%s]", s.OtherMachines, published.Hash)
	}
	if same := s.SameMachine(); len(same) != 2 || same[0].RunID != want[2] || same[1].RunID != want[3] {
		t.Errorf("same-machine points %v, want the two nights", same)
	}

	other, err := idx.Series(sc, history.FigureOverheadP90, published.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if len(other.SameMachine()) != 2 || !slices.Equal(other.OtherMachines, []string{nightlyHash.Hash}) {
		t.Errorf("on the published machine: %d same-machine points, others %v", len(other.SameMachine()), other.OtherMachines)
	}

	if _, err := idx.Series(sc, "overhead.p42", nightlyHash.Hash); err == nil || !strings.Contains(err.Error(), history.FigureOverheadP90) {
		t.Errorf("an unknown figure: %v, want an error listing the figures there are", err)
	}
	if _, err := idx.Series(sc, history.FigureOverheadP90, ""); err == nil {
		t.Errorf("no machine named: want an error")
	}
	if _, err := idx.Series(history.Scenario{Test: "state_get", Transport: perf.GRPC}, history.FigureQPS, nightlyHash.Hash); err == nil {
		t.Errorf("a scenario the index lacks: want an error")
	}
}

// A published copy of a run's file (the same run in runs/ and v<version>/) counts once in a
// series, with both paths.
func TestSeriesCountsAPublishedCopyOnce(t *testing.T) {
	root := tree(t)
	copyFile(t, root, "v1.17.5/service_invocation/http/result.json", "runs/ref-si-v1.17.5-6r/service_invocation/http/result.json", "", nil)
	idx, _, err := history.Rebuild(root)
	if err != nil {
		t.Fatal(err)
	}
	e := entry(t, idx, "v1.17.5/service_invocation/http/result.json")
	s, err := idx.Series(history.Scenario{Test: "service_invocation", Transport: perf.HTTP}, history.FigureOverheadP50, e.Machine.Hash)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range s.Points {
		if p.RunID == e.RunID {
			n++
			if len(p.Paths) != 2 {
				t.Errorf("paths %v, want the run folder's and the published one", p.Paths)
			}
		}
	}
	if n != 1 {
		t.Errorf("run %s has %d points, want 1", e.RunID, n)
	}
}

// A corrupt result file is skipped by Rebuild with a warning naming it, and refused by Add
// with an error naming it, the index then unchanged. A corrupt index is named with its line by
// Load and Add, and set aside, not lost, by Rebuild.
func TestCorruptFiles(t *testing.T) {
	root := tree(t)
	bad := filepath.Join(root, "runs", "20270104T020000Z-bad0", "service_invocation", "http", "result.json")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"schema": 1, "test": "service_invocation", "rounds": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	idx, warnings, err := history.Rebuild(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], bad) {
		t.Errorf("warnings %q, want one naming %s", warnings, bad)
	}
	if len(idx.Entries) != len(published)+2 {
		t.Errorf("%d entries, want the %d readable files", len(idx.Entries), len(published)+2)
	}
	before, err := os.ReadFile(history.IndexPath(root))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := history.Add(root, filepath.Dir(filepath.Dir(filepath.Dir(bad)))); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("Add of a corrupt file: %v, want an error naming %s", err, bad)
	}
	if after, _ := os.ReadFile(history.IndexPath(root)); !bytes.Equal(before, after) {
		t.Errorf("a refused Add changed the index")
	}

	corrupt := append(bytes.Clone(before[:bytes.IndexByte(before, '\n')+1]), []byte("{not json\n")...)
	if err := os.WriteFile(history.IndexPath(root), corrupt, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := history.Load(root); err == nil || !strings.Contains(err.Error(), history.IndexPath(root)+":2") {
		t.Errorf("Load of a corrupt index: %v, want the file and line 2 named", err)
	}
	if _, err := history.Add(root, filepath.Join(root, "runs", "20270101T020000Z-aa01")); err == nil || !strings.Contains(err.Error(), ":2") {
		t.Errorf("Add over a corrupt index: %v, want an error naming its line", err)
	}
	if err := os.Remove(bad); err != nil {
		t.Fatal(err)
	}
	idx, warnings, err = history.Rebuild(root)
	if err != nil {
		t.Fatal(err)
	}
	aside := history.IndexPath(root) + ".unreadable-1"
	if kept, err := os.ReadFile(aside); err != nil || !bytes.Equal(kept, corrupt) {
		t.Errorf("the corrupt index was not set aside as %s (%v)", aside, err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], aside) || len(idx.Entries) != len(published)+2 {
		t.Errorf("rebuild over a corrupt index: warnings %q, %d entries", warnings, len(idx.Entries))
	}
}

func TestLoadKeyNamesTheLoadARunRan(t *testing.T) {
	rep, err := report.ReadReport(filepath.Join(reports, "v1.17.5", "service_invocation", "http", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := history.LoadKey(rep), "500 QPS x 30s, 16 connections, 1024 B"; got != want {
		t.Errorf("LoadKey = %q, want %q", got, want)
	}
	other := *rep
	other.Params.QPS = 1000
	if history.LoadKey(&other) == history.LoadKey(rep) {
		t.Errorf("another rate has the same key %q", history.LoadKey(rep))
	}
	off := false
	other = *rep
	other.Environment.MTLS = &off
	if got, want := history.LoadKey(&other), "500 QPS x 30s, 16 connections, 1024 B, mTLS off"; got != want {
		t.Errorf("LoadKey without mTLS = %q, want %q", got, want)
	}
	other = *rep
	other.AppWork = "sleeps 0.5 s"
	worked := history.LoadKey(&other)
	if !strings.HasPrefix(worked, "500 QPS x 30s, 16 connections, 1024 B, app work ") || worked == history.LoadKey(rep) {
		t.Errorf("LoadKey with the app's own work = %q: want it apart from %q", worked, history.LoadKey(rep))
	}
	other.AppWork = "sleeps 1 s"
	if history.LoadKey(&other) == worked {
		t.Errorf("other work, same key %q", worked)
	}
}
