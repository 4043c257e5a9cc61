// Command perfsuite runs the perf scenarios: the job behind make perf and its targets, which
// call it through scripts/perf.sh.
//
//	perfsuite [-run REGEXP] [PACKAGE...]
//
// PACKAGE is as go test takes it, relative to the repository root (default ./tests/...); -run
// picks tests as go test's -run does and may come anywhere among the packages. In order, it
//
//  1. builds each package's test binary once (go test -tags perf -c), since go test links a
//     test binary again every time it runs it (Go's build cache keeps no links): the plan pass
//     and the run would link each twice. With PERF_TEST_BINARIES=DIR it builds nothing and runs
//     DIR/<package>.test, as go test -tags perf -c -o DIR/ names them (whether they are current
//     is the caller's business);
//  2. runs the plan pass: each binary under DAPR_PERF_PLAN_ONLY=1 prints its scenarios' plan
//     lines (perf.PlanLine) and starts nothing; it prints the suite's plan and expected total.
//     A configuration error stops here, before any process started. Under DAPR_PERF_PLAN_ONLY=1
//     (make perf-plan) that is all;
//  3. runs the binaries one at a time (they would share the cores they measure) under one run
//     id, each in its package folder as go test -v does, printing go test's usual text, with a
//     line before and after each package (its plan, the suite's ETA), all of it appended to
//     <run dir>/test.log;
//  4. derives the exit code from the run's result files (report.RunOutcome), prints it and
//     writes it to <run dir>/exit-code;
//  5. draws the run's report (charts report: each scenario's report.html, <run dir>/index.html);
//     a drawing failure is printed and leaves the exit code as it is;
//  6. when the code is not 0, ends with why: the result files that did not pass and the last
//     lines of each failed test, so that the last lines of a CI log name the cause.
//
// Each binary runs with -test.v=test2json and its output goes through go tool test2json: the
// events carry the output printed, the plan lines and which tests failed.
//
// The exit code is the worst outcome (perf.Outcome, the largest):
//
//	0    every scenario passed
//	3    a bound was missed (errors, restarts, QPS ratio, an enforced overhead bound)
//	4    an invalid run (the load did not keep its schedule or reach its QPS)
//	5    an infrastructure error (platform, tester or push failed, a store or broker exited, a
//	     run ended early, a scenario wrote no result file, a test binary did not build)
//	6    a configuration or usage error, before any process started: a bad DAPR_PERF_* value
//	     (the plan pass fails), a bad flag or no test package in the arguments
//	130  interrupted (Ctrl-C): Ctrl-C reaches the running test binary, which keeps what it
//	     measured, marked interrupted; the packages after it do not run
//
// Environment: DAPR_PERF_RUN_ID (default: UTC time and 4 random hex digits),
// DAPR_PERF_REPORT_DIR (default: reports; results go to <dir>/runs/<run id>/),
// DAPR_PERF_OVERHEAD_GATE (default here: warn), DAPR_PERF_COMMAND (default: this command's
// line), PERF_TIMEOUT (each test binary's -test.timeout, default 90m), PERF_TEST_BINARIES, GO
// (default go); the rest in docs/configuration.md.
package main

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

func main() {
	os.Exit(int(run(os.Args[1:], os.Stdout, os.Stderr)))
}

// suite is one perfsuite run: its settings and what it found so far.
type suite struct {
	stdout, stderr io.Writer
	goCmd          string // the go command (GO)
	runRE          string // -run
	timeout        string // each binary's -test.timeout in the run (PERF_TIMEOUT)
	prebuilt       string // PERF_TEST_BINARIES
	planOnly       bool   // DAPR_PERF_PLAN_ONLY
	runID, runDir  string
	tmp            string // the built binaries; removed at the end
	test2json      string // go tool test2json's binary
	pkgs           []pkg
	plan           []planPkg // the plan pass's plan lines, by package
	failed         []failure // the run's failed tests, for why
	interrupted    atomic.Bool
	interruptSeen  chan struct{} // closed at the first Ctrl-C
	noteInterrupt  sync.Once
}

// awaitInterrupt reports whether a Ctrl-C was seen, waiting up to d for it. Ctrl-C reaches the
// running test binary and this process together, and the binary can exit before this process's
// signal goroutine has noted it; a package that failed waits this moment before the next starts.
func (s *suite) awaitInterrupt(d time.Duration) bool {
	if s.interrupted.Load() {
		return true
	}
	select {
	case <-s.interruptSeen:
		return true
	case <-time.After(d):
		return s.interrupted.Load()
	}
}

// configError is a bad flag, argument or variable: exit 6.
type configError struct{ error }

// run runs the suite on args and returns its exit code.
func run(args []string, stdout, stderr io.Writer) perf.Outcome {
	s := &suite{stdout: stdout, stderr: stderr, interruptSeen: make(chan struct{})}
	// Ctrl-C reaches the running test binary too (same process group), which stops its run
	// cleanly and writes its result; the suite notes it and ends with 130 once it has exited.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer func() { signal.Stop(sig); close(sig) }()
	go func() {
		for range sig {
			s.interrupted.Store(true)
			s.noteInterrupt.Do(func() { close(s.interruptSeen) })
		}
	}()
	defer func() {
		if s.tmp != "" {
			os.RemoveAll(s.tmp)
		}
	}()
	code, err := s.prepare(args)
	if err == nil {
		code, err = s.planPass()
	}
	if err != nil {
		fmt.Fprintf(stderr, "perf: %v: %s (exit %d)\n", err, code, int(code))
	}
	if err != nil || code != perf.OutcomePass || s.planOnly {
		if s.interrupted.Load() {
			fmt.Fprintf(stderr, "perf: interrupted before the run started: exit %d\n", perf.OutcomeInterrupted)
			return perf.OutcomeInterrupted
		}
		return code
	}
	return s.finish(s.runAll())
}

// prepare reads the flags and the environment, lists the packages and builds their test
// binaries.
func (s *suite) prepare(args []string) (perf.Outcome, error) {
	pkgs, err := s.configure(args)
	if err != nil {
		return perf.OutcomeConfig, err
	}
	goroot, err := exec.Command(s.goCmd, "env", "GOROOT").Output()
	if err != nil {
		return perf.OutcomeInfra, fmt.Errorf("%s env GOROOT: %w", s.goCmd, err)
	}
	// The binaries' children get the toolchain that built them (go.mod's), as under go test,
	// not an older go on PATH.
	os.Setenv("PATH", filepath.Join(strings.TrimSpace(string(goroot)), "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	t2j, err := exec.Command(s.goCmd, "tool", "-n", "test2json").Output()
	if err != nil {
		return perf.OutcomeInfra, fmt.Errorf("%s tool -n test2json: %w", s.goCmd, err)
	}
	s.test2json = strings.TrimSpace(string(t2j))
	if err := os.MkdirAll(".bin", 0o755); err != nil {
		return perf.OutcomeInfra, err
	}
	if s.tmp, err = os.MkdirTemp(".bin", "perf-tests."); err != nil {
		return perf.OutcomeInfra, err
	}
	if s.tmp, err = filepath.Abs(s.tmp); err != nil {
		return perf.OutcomeInfra, err
	}
	start := time.Now()
	if s.prebuilt != "" {
		fmt.Fprintf(s.stdout, "perf: the test binaries come from PERF_TEST_BINARIES=%s (built by the caller; nothing is built here)\n", s.prebuilt)
	} else {
		fmt.Fprintln(s.stdout, "perf: building the test binaries")
	}
	if err := s.build(pkgs); err != nil {
		if errors.As(err, new(configError)) {
			return perf.OutcomeConfig, err
		}
		return perf.OutcomeInfra, err
	}
	if s.prebuilt == "" {
		fmt.Fprintf(s.stdout, "perf: built %d test binaries in %d s\n", len(s.pkgs), int(time.Since(start).Seconds()))
	}
	return perf.OutcomePass, nil
}

// configure reads the flags and the environment, moves to the repository root and sets the
// variables the test binaries read; it returns the package arguments.
func (s *suite) configure(args []string) ([]string, error) {
	command := strings.Join(append([]string{"perfsuite"}, args...), " ")
	fs := flag.NewFlagSet("perfsuite", flag.ContinueOnError)
	fs.SetOutput(s.stderr)
	fs.StringVar(&s.runRE, "run", "", "run only the tests that match `REGEXP` (go test's -run)")
	var pkgs []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, configError{errors.New("bad flag: the one flag is -run REGEXP (go test's -run); the other arguments are packages")}
		}
		if fs.NArg() == 0 {
			break
		}
		pkgs = append(pkgs, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pkgs) == 0 {
		pkgs = []string{"./tests/..."}
	}
	s.goCmd = cmp.Or(os.Getenv("GO"), "go")
	switch v := os.Getenv(perf.EnvPlanOnly); v {
	case "", "0", "false":
	case "1", "true":
		s.planOnly = true
	default:
		return nil, configError{fmt.Errorf("%s=%q: must be 1 or true (print the plan, start nothing), 0 or false", perf.EnvPlanOnly, v)}
	}
	s.timeout = cmp.Or(os.Getenv("PERF_TIMEOUT"), "90m")
	if _, err := time.ParseDuration(s.timeout); err != nil {
		return nil, configError{fmt.Errorf("PERF_TIMEOUT=%q: must be a Go duration such as 90m (each test binary's -test.timeout)", s.timeout)}
	}
	root, err := perf.RepoRoot()
	if err != nil {
		return nil, configError{err}
	}
	if err := os.Chdir(root); err != nil { // packages and folders are relative to the root
		return nil, configError{err}
	}
	if bins := os.Getenv("PERF_TEST_BINARIES"); bins != "" {
		if st, err := os.Stat(bins); err != nil || !st.IsDir() {
			return nil, configError{fmt.Errorf("PERF_TEST_BINARIES=%s: not a folder (it names a folder of test binaries built by go test -tags perf -c -o DIR/)", bins)}
		}
		if s.prebuilt, err = filepath.Abs(bins); err != nil { // the binaries run in their package folders
			return nil, configError{fmt.Errorf("PERF_TEST_BINARIES=%s: %w", bins, err)}
		}
	}
	s.runID = cmp.Or(os.Getenv("DAPR_PERF_RUN_ID"), time.Now().UTC().Format("20060102T150405Z")+"-"+perf.RandomHex(2))
	reports, err := filepath.Abs(cmp.Or(os.Getenv("DAPR_PERF_REPORT_DIR"), "reports")) // the binaries run in their package folders
	if err != nil {
		return nil, configError{fmt.Errorf("DAPR_PERF_REPORT_DIR: %w", err)}
	}
	s.runDir = perf.RunDir(reports, s.runID)
	os.Setenv("DAPR_PERF_RUN_ID", s.runID)
	os.Setenv("DAPR_PERF_REPORT_DIR", reports)
	os.Setenv("DAPR_PERF_COMMAND", cmp.Or(os.Getenv("DAPR_PERF_COMMAND"), command))
	os.Setenv("DAPR_PERF_OVERHEAD_GATE", cmp.Or(os.Getenv("DAPR_PERF_OVERHEAD_GATE"), "warn"))
	return pkgs, nil
}

// finish derives the run's exit code from its result files (goTestExit: 1 when a test binary
// failed), writes it beside them, draws the run's report and, when the code is not 0, says why.
func (s *suite) finish(goTestExit int) perf.Outcome {
	fmt.Fprintf(s.stdout, "perf: the test binaries exited %d (1: one failed or was interrupted); the result files say:\n", goTestExit)
	var verdicts bytes.Buffer
	code := report.RunOutcome(s.runDir, goTestExit, io.MultiWriter(s.stdout, &verdicts))
	if s.interrupted.Load() && code != perf.OutcomeInterrupted {
		fmt.Fprintf(s.stdout, "perf: interrupted (Ctrl-C): exit %d, whatever the result files say (%d); they keep what was measured\n", perf.OutcomeInterrupted, code)
		code = perf.OutcomeInterrupted
	}
	// The run's code beside its results, for callers that only see make's 2.
	codeFile := filepath.Join(s.runDir, "exit-code")
	if err := errors.Join(os.MkdirAll(s.runDir, 0o755), os.WriteFile(codeFile, fmt.Appendf(nil, "%d\n", code), 0o644)); err != nil {
		fmt.Fprintf(s.stderr, "perf: cannot write %s: %v\n", codeFile, err)
	}
	index := s.drawReport(code)
	fmt.Fprintf(s.stdout, "perf: the results of run %s are in %s (exit code %d, also in %s)\n", s.runID, s.runDir, code, codeFile)
	if index != "" {
		fmt.Fprintf(s.stdout, "perf: the run's report: %s (its verdicts first, a link to every scenario's report.html)\n", index)
	}
	fmt.Fprintf(s.stdout, "perf: compare with a reference: go run ./cmd/charts compare v<version> %s; publish it: make publish RUN=%s\n", s.runID, s.runID)
	if code != perf.OutcomePass {
		s.why(code, verdicts.String())
	}
	return code
}

// drawReport draws the run's report with charts report (the drawing lives in the charts
// command) and returns the path of its index.html, "" when there is none. A failure is
// printed; the exit code stays the results'.
func (s *suite) drawReport(code perf.Outcome) string {
	fmt.Fprintln(s.stdout, "perf: drawing the run's report: each scenario's charts, README.md and report.html, and the run's index.html")
	draw := exec.Command(s.goCmd, "run", "./cmd/charts", "report", s.runDir)
	draw.Stdout, draw.Stderr = s.stdout, s.stderr
	if err := draw.Run(); err != nil {
		fmt.Fprintf(s.stderr, "perf: the run's report is incomplete (%v, above); the results and the exit code (%d) are unchanged\n", err, code)
	}
	index := filepath.Join(s.runDir, "index.html")
	if _, err := os.Stat(index); err != nil {
		return ""
	}
	return index
}

// why writes, after a run that did not pass, what did not: the verdicts of the result files
// that did not pass (RunOutcome's lines), then the last lines of each failed test, at most 40.
func (s *suite) why(code perf.Outcome, verdicts string) {
	fmt.Fprintf(s.stdout, "perf: why exit %d:\n", code)
	n := 0
	for l := range strings.Lines(verdicts) {
		if strings.Contains(l, " (exit 0): ") || strings.HasPrefix(l, "exit ") || n == 12 {
			continue
		}
		fmt.Fprint(s.stdout, "  "+l)
		n++
	}
	if len(s.failed) > 0 {
		fmt.Fprintf(s.stdout, "perf: the failed tests (their whole output is in %s), with their last lines:\n", filepath.Join(s.runDir, "test.log"))
		writeFailures(s.stdout, s.failed, 40)
	}
}
