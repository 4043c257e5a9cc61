// Command promhistory writes stored result files to a Prometheus, as a run does under
// DAPR_PERF_PROMETHEUS_WRITE_URL: each file's figures as remote-write samples stamped with its
// run's start time (push.Write), so that the published references and any earlier runs join
// the history a Grafana panel draws across runs and daprd versions.
//
//	promhistory -url URL [-run-id ID] PATH...
//
// PATH is a result file, or a folder searched for result files (result.json and result-<n>.json;
// an invalid attempt's attempt-<n>.json is left out, as the runner leaves it out of the push).
// The files are written oldest first. URL is the remote-write endpoint, such as
// http://127.0.0.1:9090/api/v1/write (a Prometheus started with
// --web.enable-remote-write-receiver; a URL without a path gets /api/v1/write). Each file is
// written under its own run id (the published references have theirs, ref-...); a file without
// one is written under -run-id, or by default reference-v<daprd version>.
//
// A Prometheus refuses samples older than its head block (about an hour behind its newest
// sample) unless its configuration sets storage.tsdb.out_of_order_time_window to cover them;
// docs/results.md shows one. Writing a file twice is harmless: the same sample again.
//
// Exit codes: 0 every file written; 1 a file could not be read or written (the others are
// still written, and each failure is printed); 2 a usage error (a bad flag, no PATH).
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/push"
	"github.com/daprperf/daprperf/perf/report"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// resultFileName is the name of a result file the runner writes: result.json, or
// result-<n>.json for a scenario run again in the same run.
var resultFileName = regexp.MustCompile(`^result(-[0-9]+)?\.json$`)

// run is the command with its arguments (without the program name); it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("promhistory", flag.ContinueOnError)
	fl.SetOutput(stderr)
	rawURL := fl.String("url", "", "remote-write endpoint, such as http://127.0.0.1:9090/api/v1/write (required)")
	runID := fl.String("run-id", "", "run_id of files that have none (default reference-v<daprd version>)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: promhistory -url URL [-run-id ID] PATH...")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *rawURL == "" || fl.NArg() == 0 {
		fl.Usage()
		return 2
	}
	endpoint, err := push.RemoteWriteURL(*rawURL)
	if err != nil {
		shown := *rawURL
		if u, perr := url.Parse(shown); perr == nil && u.User != nil {
			shown = u.Redacted()
		}
		fmt.Fprintf(stderr, "promhistory: -url %q: %v\n", shown, err)
		return 2
	}

	var failed []error
	var files []string
	for _, p := range fl.Args() {
		found, err := resultFiles(p)
		if err != nil {
			failed = append(failed, err)
		}
		files = append(files, found...)
	}
	type loaded struct {
		path string
		rep  *perf.Report
	}
	var reps []loaded
	for _, f := range files {
		rep, err := report.ReadReport(f)
		if err != nil {
			failed = append(failed, err)
			continue
		}
		if rep.RunID == "" {
			rep.RunID = cmp.Or(*runID, "reference-v"+cmp.Or(rep.Environment.DaprVersion, "unknown"))
		}
		reps = append(reps, loaded{f, rep})
	}
	slices.SortStableFunc(reps, func(a, b loaded) int {
		return a.rep.Environment.StartTime.Compare(b.rep.Environment.StartTime)
	})
	written := 0
	for _, l := range reps {
		wctx, cancel := context.WithTimeout(ctx, push.DefaultWriteTimeout)
		err := push.Write(wctx, push.WriteConfig{URL: endpoint}, l.rep)
		cancel()
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", l.path, err))
			continue
		}
		written++
		fmt.Fprintf(stdout, "%s: %s/%s daprd %s, run_id %s, at %s\n", l.path, l.rep.Test, l.rep.Transport,
			l.rep.Environment.DaprVersion, l.rep.RunID, l.rep.Environment.StartTime.UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(stdout, "promhistory: %d of %d result files written to %s\n", written, len(files), endpoint)
	if len(failed) > 0 {
		fmt.Fprintf(stderr, "promhistory: %d failed:\n%v\n", len(failed), errors.Join(failed...))
		return 1
	}
	return 0
}

// resultFiles is path itself when it is a file, or every result file under the folder path
// (resultFileName), in lexical order.
func resultFiles(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	var out []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && resultFileName.MatchString(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("%s: no result file (result.json) under it", path)
	}
	return out, err
}
