// Command perfbisect finds the daprd commit that moved a figure (make bisect): between a good
// and a bad commit of a dapr/dapr git clone, along the bad one's first parents, it builds
// daprd at the commit halfway (perf/bisect.GoBuild), judges it with A/B perf runs against the
// good and the bad build (the four-way verdict, rounds added until decided), and halves the
// range until it names the first bad commit, or the narrowest range the commits that build
// and can be placed allow. A commit that does not build (a compile error, a module the proxy
// refuses) is skipped, saying why.
//
//	perfbisect -repo ../dapr -good v1.16.5 -bad v1.17.5 \
//	    -package ./tests/service_invocation_http -run '^TestServiceInvocationHTTPPerformance$' \
//	    -figure 'latency p90'
//
// It writes <report root>/bisect/<id>/outcome.json and README.md, the page with every step's
// figures; each A/B run is a run of its own, <report root>/runs/<id>-<n>, its output in
// <report root>/bisect/<id>/<id>-<n>.log. The builds go to .daprd/bisect/<commit>/daprd and
// are reused. Exit codes: 0 the first bad commit found, 1 a narrowest range only (or the ends
// do not differ), 5 an error on the way (the outcome so far is written), 6 a usage error.
// With -resume it goes on with the bisection DAPR_PERF_RUN_ID names, from the outcome.json its
// folder holds (written after every step): the ends' comparison and every step are taken as
// they are, so that a search stopped by a session's end or an interrupt is not run again.
// Environment: DAPR_PERF_REPORT_DIR (default reports), DAPR_PERF_RUN_ID (the id; default
// bisect-<UTC time>), and the A/B run's own (docs/configuration.md: DAPR_PERF_AB_MAX_ROUNDS,
// DAPR_TEST_DURATION, DAPR_PERF_QPS, ...).
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/bisect"
)

func main() {
	os.Exit(int(run(os.Args[1:], os.Stdout, os.Stderr)))
}

// options are the command line's.
type options struct {
	repo, good, bad, pkg, run, figure, pins, version string
	resume                                           bool
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("perfbisect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.repo, "repo", "", "a git clone of dapr/dapr with the commits between -good and -bad (a work tree or a bare git directory)")
	fs.StringVar(&o.good, "good", "", "the good commit: a tag or hash git rev-parse reads")
	fs.StringVar(&o.bad, "bad", "", "the bad commit")
	fs.StringVar(&o.pkg, "package", "./tests/service_invocation_http", "the scenario package")
	fs.StringVar(&o.run, "run", "^TestServiceInvocationHTTPPerformance$", "go test -run pattern selecting one A/B scenario of the package")
	fs.StringVar(&o.figure, "figure", "latency p90", "the A/B figure to bisect: latency p50, p90, p99, mean, or a sidecar's CPU or memory (docs/results.md)")
	fs.StringVar(&o.version, "control-plane", "", "the daprd version whose placement, scheduler and sentry (in .daprd/<version>/) every build runs with (make bisect: DAPR_VERSION)")
	fs.BoolVar(&o.resume, "resume", false, "go on with the bisection DAPR_PERF_RUN_ID names, from its outcome.json: its steps are taken as they are (make bisect: RESUME=1)")
	fs.StringVar(&o.pins, "pins", "", "space-separated path@version modules, each replacing every version of its module before each build (go mod edit -replace), for versions the module proxy refuses")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.repo == "":
		return o, fmt.Errorf("-repo (make bisect: DAPR_BISECT_REPO) is required: the path of a git clone of dapr/dapr")
	case o.good == "" || o.bad == "":
		return o, fmt.Errorf("-good and -bad (make bisect: GOOD, BAD) are required: a commit each, such as v1.16.5 and v1.17.5")
	case o.version == "":
		return o, fmt.Errorf("-control-plane (make bisect: DAPR_VERSION) is required: the version whose control plane is in .daprd/<version>/, such as v1.18.3")
	}
	for _, pin := range strings.Fields(o.pins) {
		if path, version, ok := strings.Cut(pin, "@"); !ok || path == "" || version == "" {
			return o, fmt.Errorf("-pins (make bisect: BISECT_PINS) word %q: want a module path@version, such as github.com/dapr/components-contrib@v1.17.3", pin)
		}
	}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer) perf.Outcome {
	o, err := parse(args, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "bisect: %v (exit %d)\n", err, int(perf.OutcomeConfig))
		return perf.OutcomeConfig
	}
	repo, err := perf.RepoRoot()
	if err != nil {
		fmt.Fprintf(stderr, "bisect: %v (exit %d)\n", err, int(perf.OutcomeInfra))
		return perf.OutcomeInfra
	}
	root, err := filepath.Abs(cmp.Or(os.Getenv("DAPR_PERF_REPORT_DIR"), filepath.Join(repo, "reports")))
	if err != nil {
		fmt.Fprintf(stderr, "bisect: DAPR_PERF_REPORT_DIR: %v (exit %d)\n", err, int(perf.OutcomeConfig))
		return perf.OutcomeConfig
	}
	id := cmp.Or(os.Getenv("DAPR_PERF_RUN_ID"), "bisect-"+time.Now().UTC().Format("20060102T150405Z"))
	dir := filepath.Join(root, "bisect", id)
	var earlier *bisect.Outcome
	_, statErr := os.Stat(dir)
	switch {
	case o.resume:
		if earlier, err = bisect.Read(dir); err != nil {
			fmt.Fprintf(stderr, "bisect: -resume: DAPR_PERF_RUN_ID=%s: %v (exit %d)\n", id, err, int(perf.OutcomeConfig))
			return perf.OutcomeConfig
		}
	case statErr == nil:
		fmt.Fprintf(stderr, "bisect: DAPR_PERF_RUN_ID=%s: %s exists already; a bisection never writes into another's folder (-resume goes on with it) (exit %d)\n", id, dir, int(perf.OutcomeConfig))
		return perf.OutcomeConfig
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "bisect: %v (exit %d)\n", err, int(perf.OutcomeInfra))
		return perf.OutcomeInfra
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	commits, err := bisect.FirstParent(ctx, o.repo, o.good, o.bad)
	if err != nil {
		fmt.Fprintf(stderr, "%v (exit %d)\n", err, int(perf.OutcomeConfig))
		return perf.OutcomeConfig
	}
	fmt.Fprintf(stdout, "bisect: %d commits from %s to %s; %s of %s (-run %s); each step an A/B run; pages in %s\n",
		len(commits)-1, o.good, o.bad, o.figure, o.pkg, o.run, dir)
	s := bisect.Search{
		Builder: withControlPlane{Builder: bisect.GoBuild{
			Repo: o.repo, Package: "./cmd/daprd", Name: "daprd", Out: filepath.Join(repo, ".daprd", "bisect"),
			Tags: cmp.Or(os.Getenv("DAPRD_TAGS"), "stablecomponents"), LDFlags: versionStamp(ctx, o.repo),
			Pins: strings.Fields(o.pins),
		}, dir: filepath.Join(repo, ".daprd", o.version)},
		Comparer: &abRun{repo: repo, root: root, id: id, pkg: o.pkg, run: o.run, figure: o.figure, logDir: dir, n: lastRun(root, dir, id)},
		Figure:   o.figure,
		Log:      stdout,
		Earlier:  earlier,
		Progress: func(out bisect.Outcome) {
			if err := bisect.Write(dir, out); err != nil {
				fmt.Fprintf(stderr, "bisect: write the outcome so far: %v\n", err)
			}
		},
	}
	out, err := s.Run(ctx, commits)
	if werr := bisect.Write(dir, out); werr != nil {
		fmt.Fprintf(stderr, "bisect: write the outcome: %v\n", werr)
	}
	fmt.Fprintf(stdout, "bisect: %s; the page: %s\n", out.Reason, filepath.Join(dir, "README.md"))
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "%v (exit %d)\n", err, int(perf.OutcomeInfra))
		return perf.OutcomeInfra
	case !out.Found:
		return 1
	}
	return perf.OutcomePass
}

// lastRun is the highest n of the comparisons <id>-<n> a bisection has made, 0 when none: the
// runs <id>-<n> under root's runs folder and the logs <id>-<n>.log in its own folder, dir (which
// travels with its outcome.json when the runs do not). A bisection that goes on numbers its
// comparisons after them, never over them.
func lastRun(root, dir, id string) int {
	last := 0
	for _, folder := range []string{filepath.Join(root, perf.RunsDir), dir} {
		entries, _ := os.ReadDir(folder)
		for _, e := range entries {
			if rest, ok := strings.CutPrefix(e.Name(), id+"-"); ok {
				if n, err := strconv.Atoi(strings.TrimSuffix(rest, ".log")); err == nil {
					last = max(last, n)
				}
			}
		}
	}
	return last
}

// versionStamp is daprd's -ldflags for a commit: the version git describe gives it
// ("1.17.0-rc.1-45-gabc1234"), as dapr's own build stamps a release's.
func versionStamp(ctx context.Context, repo string) func(bisect.Commit) string {
	return func(c bisect.Commit) string {
		v := c.Short()
		if d, err := bisect.Describe(ctx, repo, c.Hash); err == nil {
			v = strings.TrimPrefix(d, "v")
		}
		return "-s -w -X github.com/dapr/dapr/pkg/buildinfo.version=" + v + " -X github.com/dapr/kit/logger.DaprVersion=" + v
	}
}
