// Command charts turns perf result files into PNG charts and Markdown tables, publishes a run
// as a version's reference, compares results, and derives a run's exit code.
//
//	go run ./cmd/charts [-reports DIR]
//
// walks DIR (default "reports") for result files, leaving out the unpublished runs under
// DIR/runs, and writes next to each its charts (latency.png, overhead.png, ...) and a README.md
// with the tables; each version directory DIR/v<version>/ also gets a README.md with one
// summary row per scenario. Give a run's directory as DIR to draw that run's charts.
//
//	go run ./cmd/charts [-reports DIR] publish [-force] <run id | run dir>
//
// copies the run's results into DIR/v<version>/<test>/<transport>/result.json and redraws that
// version's charts and READMEs; it refuses an incomplete, invalid or failed run unless -force.
//
//	go run ./cmd/charts [-reports DIR] compare [flags] <A> <B>
//	go run ./cmd/charts [-reports DIR] compare [flags] <A/B result>
//
// compares two sides, each a run id (DIR/runs/<id>), a version (DIR/v1.17.5) or a path (a
// result file or a directory of them), figure by figure with a Mann-Whitney U test on the
// per-round values (golang.org/x/perf/benchmath), or, given one side holding A/B results,
// build B against build A round by round. It exits 0 without a regression, 1 on a regression
// beyond noise, 2 on bad input (a missing, malformed or incomparable file, named).
//
//	go run ./cmd/charts [-reports DIR] report <run id | run dir>
//
// draws a run's report: every result's charts, README.md and report.html, then the run's
// README.md and index.html, its verdict table first, linking every scenario's page. A result
// that cannot be drawn is listed there and the command exits 1; it never writes a result file.
//
//	go run ./cmd/charts exitcode [-go-test-exit N] <run dir>
//	go run ./cmd/charts summary <run dir>
//
// exitcode prints each result file's outcome and exits with the run's: 0 pass, 3 missed bound,
// 4 invalid run, 5 infrastructure error, 130 interrupted (see perf.Outcome; 6, a configuration
// error, is cmd/perfsuite's). summary writes a Markdown summary of a run for a CI job summary.
//
//	go run ./cmd/charts check [-run-id ID] [-packages DIR] <run dir>
//
// check reads every result file of a run and exits 1 unless each is complete (report.Check:
// the run's id, not incomplete, its verdicts, what its plan kind measures) and, with -packages,
// every scenario package under DIR wrote one; it says nothing of pass or fail.
//
// Every figure comes from the result files (perf.Report); nothing is parsed from logs.
//
// The command is a thin shell over package charts (charts.Run), which tests and other commands
// use as a library.
package main

import (
	"os"

	"github.com/daprperf/daprperf/charts"
)

func main() {
	os.Exit(charts.Run(os.Args[1:], os.Stdout, os.Stderr))
}
