package perf_test

import (
	"fmt"
	"path"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// importRule says which packages of the module one package may import. TestImportRules
// enforces it and importRulesMarkdown renders it into docs/architecture.md.
type importRule struct {
	pkg  string   // import path relative to the module, as a pattern (see match)
	what string   // its job, as the doc's table says it (Markdown)
	may  []string // patterns of the module's packages its non-test files may import; none when empty
	// tests makes the rule cover the package's test files too: set for packages that hold
	// only tests. Other packages' tests may import any package of the module, since a test
	// may assemble the real pieces (the tester app, a platform, a scenario).
	tests bool
}

// coreRules are the rules of the five core packages, the tester client and the leaves they
// share; the imports point one way: perf <- report <- push, perf <- testers <- plan,
// testers <- runner, and the runner never imports perf/plan (it knows a plan only as
// perf.Plan).
var coreRules = []importRule{
	{pkg: "perf", what: "the vocabulary and the seams: `Scenario`, `App`, `Params`, `Result`, `Report` and its sections, `Figures`, `Threshold`, `Verdict`; `Platform` and `Deployment`; `Plan`, `Session`, `RunConfig`, `LiveSource`; what the tester app shares with its client and its platforms (`TesterLimits`, `LiveProgress`, its flags and token); the environment table",
		may: []string{"perf/driver", "perf/growth", "perf/hdr", "perf/stats", "perf/secondsjson"}},
	{pkg: "perf/report", what: "what is derived from a report and how it reads: figures, overhead and its interval, validity, verdicts and their env overrides, the summary, one `Kind` per plan kind, reading a result file",
		may: []string{"perf", "perf/growth", "perf/hdr", "perf/stats"}},
	{pkg: "perf/push", what: "the Pushgateway and Prometheus remote write: the common figures of every report, then its kind's own; `Push` to the gateway, `Write` as samples stamped with the run's start time",
		may: []string{"perf", "perf/report", "perf/growth", "perf/hdr", "perf/stats"}},
	{pkg: "perf/plan", what: "the eight plans (overhead, growth, stages, iterations, delivery, jobs, reminders, faults) and what only they need: routes to the apps and stores, the preflight, the app clients",
		may: []string{"perf", "perf/report", "perf/testers", "perf/actorstats", "perf/driver", "perf/profile", "perf/growth", "perf/hdr", "perf/stats"}},
	{pkg: "perf/runner", what: "`Run`: configuration, the result file, the session a plan works through (its resource recorder, its interrupt hook), progress lines, the actor hosts' counters, the step-down ladder, the plan-only pass, the push, the remote write and the summary",
		may: []string{"perf", "perf/report", "perf/push", "perf/testers", "perf/actorstats", "perf/profile", "perf/growth", "perf/hdr", "perf/stats"}},
	{pkg: "perf/testers", what: "the client of the tester app's HTTP API: a load run on one tester, or split over several and their results merged; the live progress a long phase logs",
		may: []string{"perf", "perf/hdr"}},
	{pkg: "perf/actorstats", what: "the one client of an actor host's counters (GET /stats), for the runner and the plans",
		may: []string{"perf"}},
	{pkg: "perf/driver", what: "a leaf: the closed-loop executors", may: []string{"perf/hdr", "perf/stats", "perf/secondsjson"}},
	{pkg: "perf/growth", what: "a leaf: the memory-growth detector", may: []string{"perf/stats"}},
	{pkg: "perf/profile", what: "a sidecar's pprof profiles read during a load, and their top functions of CPU and allocation", may: []string{"perf"}},
	{pkg: "perf/calibrate", what: "what a verdict does on data whose truth is known: false alarms on A/A runs, detections of a slowdown of known size, their real runs and bootstrap resamples", may: []string{"perf", "perf/report", "perf/stats"}},
	{pkg: "perf/bisect", what: "the commit that moved a figure: a first-parent history halved, each commit built (`go build` of its git tree, skipped when it does not build) and judged by the A/B verdict against both ends, and the page of its steps", may: []string{"perf", "perf/report"}},
	{pkg: "perf/changepoint", what: "a leaf: change points over a history of runs, each run a sample of rounds", may: []string{"perf/stats"}},
	{pkg: "perf/hdr", what: "a leaf: the HDR histogram"},
	{pkg: "perf/secondsjson", what: "a leaf: a struct's durations written to JSON in seconds, under their names with `Seconds` after them, and read in seconds or in the nanoseconds of older files"},
	{pkg: "perf/stats", what: "a leaf: medians and intervals"},
}

// aroundRules are the rules of the packages around the core: the platforms and the apps
// know only the vocabulary (and the leaves they measure with).
var aroundRules = []importRule{
	{pkg: "internal/...", what: "helpers the platforms share, such as `internal/pgdirs` (where Debian puts each PostgreSQL version) and `internal/startorder` (which sidecar starts before the others), and `internal/promtest`, the real Prometheus the tests of the remote write start"},
	{pkg: "local/...", what: "the local platform",
		may: []string{"perf", "local/...", "internal/...", "perf/hdr", "perf/stats"}},
	{pkg: "kube/...", what: "the Kubernetes platform, its node harness and probe",
		may: []string{"perf", "kube/...", "internal/...", "perf/hdr", "perf/stats"}},
	{pkg: "apps/...", what: "the tester and the test apps, and their binaries",
		may: []string{"perf", "apps/...", "perf/driver", "perf/hdr", "perf/stats", "perf/secondsjson"}},
	{pkg: "charts/trend", what: "the trend page of a history of runs: each figure's runs with their rounds, the change points marked, the finding first"},
	{pkg: "charts", what: "the charts and the run reports, the publishing, comparison and exit code of runs: a library, whose command is `cmd/charts`",
		may: []string{"perf", "perf/report", "perf/profile", "perf/growth", "perf/hdr", "perf/stats"}},
	{pkg: "cmd/promhistory", what: "writes stored result files to a Prometheus (remote write), for a history across runs and versions",
		may: []string{"perf", "perf/report", "perf/push"}},
	{pkg: "perf/history", what: "the history of runs under a report root: its index (one entry per result file, kept atomically, never dropping one), rebuilt from the result files or added to, and a figure's series over time, each point's machine fingerprint said",
		may: []string{"perf", "perf/report", "perf/stats"}},
	{pkg: "cmd/...", what: "small commands: `perfsuite`, which runs the suite; `perfhistory`, which keeps the history index; `perfnightly`, the nightly job; `perfcalibrate`, the verdict's false alarms and power; `perfbisect`, the bisection; `charts`, the command of package `charts`",
		may: []string{"perf", "perf/report", "perf/history", "perf/changepoint", "perf/calibrate", "perf/bisect", "charts", "charts/trend"}},
	{pkg: "tests/scenarios", what: "the scenarios as data (their executors are `perf/driver`'s), and `Run`, which picks the platform",
		may: []string{"perf", "perf/plan", "perf/runner", "perf/driver", "local", "kube"}},
	{pkg: "tests/...", what: "the perf tests, one package per scenario family", tests: true,
		may: []string{"perf", "tests/scenarios"}},
	{pkg: "docs", what: "tests of these pages' links", tests: true},
}

// importRules are coreRules then aroundRules; the first rule whose pattern matches a
// package is its rule, so tests/scenarios comes before tests/....
var importRules = append(append([]importRule(nil), coreRules...), aroundRules...)

// envconfigPath is the env parser only the perf test process needs.
const envconfigPath = "github.com/kelseyhightower/envconfig"

// binaryRule names the packages one binary (a main package of the module) must not link,
// directly or through any chain of imports. TestImportRulesOfBinaries enforces it.
type binaryRule struct {
	bin        string   // the main package, relative to the module, as a pattern (see match)
	what       string   // what it is, and why it may link what is not forbidden (Markdown)
	mayNotLink []string // full import paths
}

// binaryRules: a binary links only what it runs. testing in a binary means test code went
// into it; envconfig, that it parses perf's DAPR_PERF_* table, which only the perf test
// process reads; perf/growth, that it carries the memory-growth detector, which only the
// judging of a report (perf/report, charts) uses.
// knownLinks are the forbidden links that remain, each by the one package that brings it in
// and why; a binary may link what is listed here through that package only. The test fails
// when an entry no longer happens, so that it is removed as soon as the link is gone.
var knownLinks = []struct{ pkg, via, why string }{
	{perf.ModulePath + "/perf/growth", "perf", "perf.Report holds the growth section's types (report.go)"},
}

var binaryRules = []binaryRule{
	{bin: "apps/*/cmd/*", what: "the tester and the test apps, each run as its own process or container",
		mayNotLink: []string{"testing", envconfigPath, perf.ModulePath + "/perf/growth"}},
	{bin: "cmd/charts", what: "the charts and the run reports (package `charts`); it links `perf/growth`, whose findings its tables show",
		mayNotLink: []string{"testing", envconfigPath}},
	{bin: "cmd/perfsuite", what: "the suite's runner (`make perf`); it links `perf/growth` through `perf/report`, whose outcome of the result files is its exit code",
		mayNotLink: []string{"testing", envconfigPath}},
	{bin: "cmd/promhistory", what: "writes result files to a Prometheus; it links `perf/growth` through `perf/push` and `perf/report`, which derive the figures it writes",
		mayNotLink: []string{"testing", envconfigPath}},
	{bin: "cmd/perfhistory", what: "the history index's command (rebuild, add, list); it links `perf/growth` through `perf/report`, which reads the result files",
		mayNotLink: []string{"testing", envconfigPath}},
	{bin: "cmd/perfnightly", what: "the nightly job (`make nightly`): it runs `cmd/perfsuite`, adds the run to the history, decides and draws the trend page; it links `perf/growth` through `perf/report`",
		mayNotLink: []string{"testing", envconfigPath}},
	{bin: "cmd/perfcalibrate", what: "the verdict's calibration table from A/B result files; it links `perf/growth` through `perf/report`",
		mayNotLink: []string{"testing", envconfigPath}},
	{bin: "cmd/perfbisect", what: "the bisection (`make bisect`): daprd built at commits of a dapr/dapr clone, each judged by A/B runs of `cmd/perfsuite`; it links `perf/growth` through `perf/report`, which reads their result files",
		mayNotLink: []string{"testing", envconfigPath}},
	{bin: "cmd/daprreport", what: "writes result files as Dapr's `test_report_perf.json` (the `go test -json` events Dapr's `tests/perf/report` reads); it links `perf/growth` through `perf/report`, which reads the result files",
		mayNotLink: []string{"testing", envconfigPath}},
	{bin: "kube/node/nodeprobe", what: "the probe the Kubernetes node image runs",
		mayNotLink: []string{"testing", envconfigPath, perf.ModulePath + "/perf/growth"}},
}

// match reports whether the module-relative import path p matches pattern pat: a pattern
// ending in "/..." covers its base and every package below it; any other pattern is a
// path.Match pattern ("apps/*/cmd/*"), which a plain path is too.
func match(pat, p string) bool {
	if base, ok := strings.CutSuffix(pat, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	ok, err := path.Match(pat, p)
	return err == nil && ok
}

// rel is import path p relative to the module, or p itself when it is not the module's.
func rel(p string) string {
	if r, ok := strings.CutPrefix(p, perf.ModulePath+"/"); ok {
		return r
	}
	return p
}

// codeList renders paths as a comma-separated list of code spans, or "none".
func codeList(paths []string) string {
	if len(paths) == 0 {
		return "none"
	}
	cells := make([]string, len(paths))
	for i, p := range paths {
		cells[i] = "`" + rel(p) + "`"
	}
	return strings.Join(cells, ", ")
}

// importRulesMarkdown renders coreRules, aroundRules and binaryRules as the Markdown that
// docs/architecture.md shows between its importRulesBegin and importRulesEnd markers.
func importRulesMarkdown() string {
	var b strings.Builder
	table := func(rules []importRule) {
		b.WriteString("| package | its job | may import (of this module) |\n|---|---|---|\n")
		for _, r := range rules {
			pkg := "`" + r.pkg + "`"
			if r.tests {
				pkg += " (test files only)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", pkg, r.what, codeList(r.may))
		}
	}
	table(coreRules)
	b.WriteString("\nAround the core:\n\n")
	table(aroundRules)
	b.WriteString("\nThe binaries, and what each must not link, directly or through any package it imports:\n\n")
	b.WriteString("| binary | what it is | must not link |\n|---|---|---|\n")
	for _, r := range binaryRules {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.bin, r.what, codeList(r.mayNotLink))
	}
	return b.String()
}
