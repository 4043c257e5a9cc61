// Command daprreport writes daprperf result files as the test_report_perf.json of Dapr's perf
// suite: the `go test -json` event stream of Dapr's tests/perf run, which Dapr's report tool
// (dapr/dapr tests/perf/report, read at v1.18.3) turns into its charts and README tables.
//
//	daprreport [-o FILE] PATH...
//
// PATH is a result file, or a folder searched for result files (result.json, result-<n>.json).
// -o names the file to write ("-", the default, is standard output). Each scenario that is one
// of Dapr's tests becomes that test's events; every other one (daprperf's store, broker and
// rate variants, its own scenarios) is listed on standard error as skipped. All files must be of
// one daprd version. docs/dapr-report.md says how to run Dapr's report on the output.
//
// Exit codes: 0 written; 1 nothing written: a PATH that does not exist, a folder without result
// files or a file that is not one (each failure names its PATH), files of two daprd versions,
// none of the files a scenario of Dapr's, or the output not writable; 2 a usage error.
//
// # The events
//
// Per Dapr test run, in the order `go test -json` prints them: a "run" event whose Package is
// github.com/dapr/dapr/tests/perf/<Dapr's package> and whose Test is Dapr's function, or
// function/subtest as go test names Dapr's t.Run; "output" events of its log, one per line; a
// "pass" or "fail" event (Report.Pass, and the run complete). Its log is what Dapr's
// utils.LogPerfTestResourceUsage and utils.LogPerfTestSummary print (tests/perf/utils/helpers.go),
// for the tests that print them: the resource lines (usageLines), then "Test summary `<json>`"
// (Dapr's tests print the two in either order; its report reads both), the JSON of the tool
// Dapr's report expects of that test (buildTestModes in tests/perf/report/classify.go: k6 when
// the test's file calls NewK6(, else fortio).
//
// Which measurements make a run (runs.go): the main phase of the rounds (the bulk publish test's
// "normal" run is our baseline, its singles); a named load (reminder registration; the subscribe
// and configuration-subscribe loads); every load pooled where Dapr runs them as one k6 run
// (double activation, the eight publish stages); one subtest per load (workflows). With several
// rounds, the percentiles, the mean and the rate are the phase's figures (the median over
// rounds); the counts, extremes, sum, standard deviation and buckets are over every round.
//
// # Fields filled, and from what
//
// Fortio summary (fortio's -json; times in seconds):
//
//	RunType              "HTTP", or "GRPC Dapr" for gRPC: Result.Params.Protocol
//	StartTime            Result.StartTime of the first load
//	RequestedQPS         Result.RequestedQPS ("max" for a load without a schedule)
//	RequestedDuration    Result.Params.Duration, summed over the loads
//	ActualQPS            Result.ActualQPS (rounds: PhaseFigures.QPS)
//	ActualDuration       Result.ActualDuration, summed, nanoseconds
//	NumThreads           Result.Params.Connections
//	DurationHistogram    Count: Result.Requests; Min, Max: Latency.MinSeconds, MaxSeconds;
//	                     Sum and StdDev: from each load's Latency.AvgSeconds, StdDevSeconds and
//	                     Requests; Avg: Latency.AvgSeconds (rounds: PhaseFigures.MeanSeconds);
//	                     Data: fortio's buckets (resolution 1 ms) filled from the HDR histograms;
//	                     Percentiles: 50, 75, 90, 99, 99.9 then 95, from Latency (rounds:
//	                     PhaseFigures.ServiceTime, Figures.Gates["latency.p95"])
//	RetCodes             Result.RetCodes summed; gRPC "OK" written as fortio's "SERVING"
//	URL, SocketCount     Result.Params.Target, Result.Sockets summed
//	not filled           Labels, Version (fortio's; not recorded), Exactly (0: loads run for a
//	                     duration), AbortOn (0), Sizes, HeaderSizes, ConnectionStats,
//	                     ErrorsDurationHistogram (not measured), Payload (never stored)
//
// k6 summary (Dapr's K6TestSummary; times in milliseconds):
//
//	pass                 Report.Pass and the run complete
//	runnersResults       one runner per tester when the load was split over testers
//	                     (Result.Testers), else one
//	iterations           count: Result.Requests; rate: Result.ActualQPS (rounds:
//	                     PhaseFigures.QPS; pooled loads: count over the summed ActualDuration)
//	http_req_duration    avg, min, med, max, p(90), p(95) of the service time (Latency), when a
//	                     request of ours is one HTTP request
//	iteration_duration   the same, when a request of ours is one k6 iteration (not for the
//	                     subscribe tests, whose iteration also waits for delivery)
//	checks               passes: requests without error (Result.Errors), fails: those with
//	http_req_failed      passes: failed HTTP requests (errors but failed waits for delivery),
//	                     fails: the others; not for the bulk test's "normal" iterations
//	vus_max, vus         max: ExecutorStats.MaxVUs, MaxActiveVUs (closed-loop loads only)
//	not filled (zero)    http_req_connecting, _tls_handshaking, _sending, _waiting, _receiving,
//	                     _blocked, data_received, data_sent (not measured), the gauges' other
//	                     values, http_http_reqs (Dapr's tag, never filled by k6 either),
//	                     http_req_duration{expected_response:...} (null)
//
// Resource lines: CPU ResourceSummary.MeanCPUCores in millicores rounded up, memory
// ResourceSummary.PeakRSSBytes in Dapr's MB (usageLines), of the processes whose role stands for
// the app Dapr's test measures (tests.go); restarts from Report.Exits.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command with its arguments (without the program name); it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("daprreport", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("o", "-", "file to write the go test -json events to (- for standard output)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: daprreport [-o FILE] PATH...")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() == 0 {
		fl.Usage()
		return 2
	}
	files, err := readArgs(fl.Args())
	if err != nil {
		fmt.Fprintf(stderr, "daprreport: %v\n", err)
		return 1
	}
	var runs []daprRun
	var mapped []loaded
	for _, f := range files {
		rs, skip, err := runsOf(f.rep, f.path)
		if err != nil {
			fmt.Fprintf(stderr, "daprreport: %v\n", err)
			return 1
		}
		if skip != "" {
			fmt.Fprintf(stderr, "daprreport: skipped %s: %s\n", f.path, skip)
			continue
		}
		runs = append(runs, rs...)
		mapped = append(mapped, f)
	}
	if len(mapped) == 0 {
		fmt.Fprintf(stderr, "daprreport: none of the %d result files is one of Dapr's tests\n", len(files))
		return 1
	}
	if err := sameDaprd(mapped); err != nil {
		fmt.Fprintf(stderr, "daprreport: %v\n", err)
		return 1
	}
	if err := write(*out, stdout, runs); err != nil {
		fmt.Fprintf(stderr, "daprreport: %v\n", err)
		return 1
	}
	if *out != "-" {
		fmt.Fprintf(stderr, "daprreport: %d result files as %d runs of Dapr's tests in %s\n", len(mapped), len(runs), *out)
	}
	return 0
}

// write writes the events of runs to path, or to stdout for "-". A file is written whole or not
// at all: to a temporary file in its folder, then renamed.
func write(path string, stdout io.Writer, runs []daprRun) error {
	if path == "-" {
		bw := bufio.NewWriter(stdout)
		if err := writeEvents(bw, runs); err != nil {
			return err
		}
		return bw.Flush()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("-o %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is there
	bw := bufio.NewWriter(tmp)
	err = writeEvents(bw, runs)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Chmod(0o644) // as os.Create would make it
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("-o %s: %w", path, err)
	}
	return nil
}
