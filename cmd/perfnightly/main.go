// Command perfnightly is the job a scheduled nightly run calls (make nightly): it runs a
// nightly set of scenarios, adds the run to the history of runs, decides whether this night
// differs from the nights before, draws the trend page and says where everything is.
//
//	perfnightly
//	perfnightly -again
//
// With -again it runs nothing: it decides the existing run DAPR_PERF_RUN_ID again against the
// history (steps 3 to 5 below), rewriting its nightly.json and the trend page, after a change
// of the decision's method or for nights run before it; the run's exit-code file is left as
// the night wrote it. Otherwise, in order, it
//
//  1. runs the set's steps through scripts/perf.sh (cmd/perfsuite) under one run id,
//     nightly-<UTC time>, each step with its settings (sets.go), into
//     <report root>/runs/<run id>/;
//  2. adds every result file of the run to the history index (perf/history) under the report
//     root, rebuilding the index from the result files when it is missing;
//  3. decides, for each scenario and figure of the night (decide.go): the change points of the
//     figure's series on this machine (perf/changepoint), and the night against the nights
//     before it since the last change point (report.CompareWithEarlier): regressed, improved,
//     same within the margin, or undecided;
//  4. draws the trend page, <report root>/history/index.html, and writes the decisions to
//     <run dir>/nightly.json;
//  5. prints the decisions, the pages and the exit code, which it also writes to
//     <run dir>/exit-code.
//
// The exit code is the run's (make perf's, docs/results.md#exit-codes) when the run could not
// be judged (4 invalid, 5 infrastructure, 6 configuration, 130 interrupted); otherwise 7 when a
// figure regressed against the nights before, else the run's (0, or 3 for a missed bound):
//
//	0    no regression found, every scenario passed
//	3    a bound was missed, no regression found against the history
//	4    an invalid run: the load did not keep its schedule; nothing was decided
//	5    an infrastructure error; nothing was decided
//	6    a configuration or usage error (a bad DAPR_PERF_NIGHTLY_SET among them)
//	7    a regression: a figure of this night regressed against the nights before it, those
//	     nights run on at least minGatingDays UTC days (decide.go)
//	130  interrupted
//
// Environment: DAPR_PERF_NIGHTLY_SET (default, or short), DAPR_PERF_REPORT_DIR (default
// reports), DAPR_PERF_RUN_ID (default nightly-<UTC time>); each step's settings apply unless
// set by the caller; the rest as make perf (docs/configuration.md).
package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// envSet names the nightly set.
const envSet = "DAPR_PERF_NIGHTLY_SET"

// OutcomeRegression is the exit code of a night in which a figure regressed against the nights
// before it.
const OutcomeRegression perf.Outcome = 7

func main() {
	fs := flag.NewFlagSet("perfnightly", flag.ContinueOnError)
	again := fs.Bool("again", false, "run nothing: decide the night DAPR_PERF_RUN_ID again against the history and redraw the trend page (after a change of the decision's method, or for a night run before it)")
	if err := fs.Parse(os.Args[1:]); err != nil || fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "nightly: usage: perfnightly [-again]; arguments %q (exit %d)\n", os.Args[1:], int(perf.OutcomeConfig))
		os.Exit(int(perf.OutcomeConfig))
	}
	os.Exit(int(run(os.Stdout, os.Stderr, *again)))
}

// night is one nightly run: where it writes and what it ran.
type night struct {
	stdout, stderr io.Writer
	set            nightlySet
	repo, root     string // the repository and the report root
	runID, runDir  string
}

// run runs the night, or with again only decides it again, and returns its exit code.
func run(stdout, stderr io.Writer, again bool) perf.Outcome {
	n, err := configure(stdout, stderr, again)
	if err != nil {
		fmt.Fprintf(stderr, "nightly: %v (exit %d)\n", err, int(perf.OutcomeConfig))
		return perf.OutcomeConfig
	}
	// Ctrl-C reaches perfsuite and the test binary too (one process group); they keep what was
	// measured and end with 130, which the run's outcome below then carries.
	signal.Ignore(os.Interrupt)
	if again {
		fmt.Fprintf(stdout, "nightly: run %s decided again, nothing run\n", n.runID)
		code := n.decideAndDraw(report.RunOutcome(n.runDir, 0, io.Discard))
		fmt.Fprintf(stdout, "nightly: exit %d (%s)\n", int(code), codeWords(code))
		return code
	}
	start := time.Now()
	fmt.Fprintf(stdout, "nightly: set %s (%s): %d step(s), expected about %s; run %s in %s\n",
		n.set.Name, n.set.Doc, len(n.set.Steps), n.set.expected(), n.runID, n.runDir)
	suiteCode := perf.OutcomePass
	for i, st := range n.set.Steps {
		fmt.Fprintf(stdout, "nightly: step %d/%d: %s, expected about %s\n", i+1, len(n.set.Steps), strings.Join(st.Packages, " "), st.Expected)
		code := n.runStep(st)
		suiteCode = perf.Worst(suiteCode, code)
		if code == perf.OutcomeInterrupted || code == perf.OutcomeConfig {
			break
		}
	}
	var outcomeLines strings.Builder
	outcome := report.RunOutcome(n.runDir, 0, &outcomeLines)
	if suiteCode == perf.OutcomeInterrupted || suiteCode == perf.OutcomeConfig {
		outcome = suiteCode
	}
	code := n.decideAndDraw(outcome)
	if err := os.WriteFile(filepath.Join(n.runDir, "exit-code"), []byte(fmt.Sprintf("%d\n", int(code))), 0o644); err != nil {
		fmt.Fprintf(stderr, "nightly: %v\n", err)
	}
	fmt.Fprintf(stdout, "nightly: done in %s: exit %d (%s)\n", time.Since(start).Round(time.Second), int(code), codeWords(code))
	return code
}

// configure reads the environment: the set, the report root and the run id, which must name a
// run that is not there yet, or with again one that is.
func configure(stdout, stderr io.Writer, again bool) (*night, error) {
	set, err := setNamed(os.Getenv(envSet))
	if err != nil {
		return nil, err
	}
	repo, err := perf.RepoRoot()
	if err != nil {
		return nil, err
	}
	root := cmp.Or(os.Getenv("DAPR_PERF_REPORT_DIR"), filepath.Join(repo, "reports"))
	if root, err = filepath.Abs(root); err != nil {
		return nil, fmt.Errorf("DAPR_PERF_REPORT_DIR: %w", err)
	}
	id := cmp.Or(os.Getenv("DAPR_PERF_RUN_ID"), "nightly-"+time.Now().UTC().Format("20060102T150405Z"))
	n := &night{stdout: stdout, stderr: stderr, set: set, repo: repo, root: root, runID: id, runDir: perf.RunDir(root, id)}
	_, err = os.Stat(n.runDir)
	switch {
	case again && err != nil:
		return nil, fmt.Errorf("-again: DAPR_PERF_RUN_ID=%s: no such run: %w", id, err)
	case !again && err == nil:
		return nil, fmt.Errorf("DAPR_PERF_RUN_ID=%s: %s exists already; a night never writes into another run's folder", id, n.runDir)
	}
	return n, nil
}

// runStep runs one step through scripts/perf.sh and returns its exit code.
func (n *night) runStep(st step) perf.Outcome {
	args := suiteArgs(st)
	cmd := exec.Command(filepath.Join(n.repo, "scripts", "perf.sh"), args...)
	cmd.Dir = n.repo
	cmd.Stdout, cmd.Stderr = n.stdout, n.stderr
	env := append(os.Environ(),
		"DAPR_PERF_RUN_ID="+n.runID,
		"DAPR_PERF_REPORT_DIR="+n.root,
		"DAPR_PERF_COMMAND=make nightly ("+envSet+"="+n.set.Name+")",
		"DAPR_PERF_OVERHEAD_GATE="+cmp.Or(os.Getenv("DAPR_PERF_OVERHEAD_GATE"), "warn"),
		"DAPR_PERF_PREFLIGHT="+cmp.Or(os.Getenv("DAPR_PERF_PREFLIGHT"), "off"))
	keys := make([]string, 0, len(st.Env))
	for k := range st.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, set := os.LookupEnv(k); !set {
			env = append(env, k+"="+st.Env[k])
		}
	}
	cmd.Env = env
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return perf.OutcomePass
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return perf.Outcome(exit.ExitCode())
	default:
		fmt.Fprintf(n.stderr, "nightly: scripts/perf.sh: %v\n", err)
		return perf.OutcomeInfra
	}
}

// suiteArgs is a step's perfsuite arguments: -run, then the packages.
func suiteArgs(st step) []string {
	var args []string
	if st.Run != "" {
		args = append(args, "-run", st.Run)
	}
	return append(args, st.Packages...)
}

// codeWords says what a nightly exit code means.
func codeWords(code perf.Outcome) string {
	if code == OutcomeRegression {
		return "a figure regressed against the nights before"
	}
	return code.String()
}
