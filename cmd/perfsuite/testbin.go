package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// pkg is one test package of the suite and its test binary.
type pkg struct {
	ImportPath, Dir string
	Rel             string // Dir relative to the repository root, as plan lines name it ("tests/jobs")
	Bin             string
}

// build lists the packages of args that have tests (go list, in its order) and builds their
// test binaries into s.tmp, or finds them in s.prebuilt. Arguments that list no test package
// are a configError.
func (s *suite) build(args []string) error {
	list := exec.Command(s.goCmd, append([]string{"list", "-tags", "perf", "-json=ImportPath,Dir,TestGoFiles,XTestGoFiles"}, args...)...)
	list.Stderr = s.stderr
	out, err := list.Output()
	if err != nil {
		return configError{fmt.Errorf("go list %s: %w (the package arguments)", strings.Join(args, " "), err)}
	}
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	binDir := cmp.Or(s.prebuilt, s.tmp)
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath, Dir           string
			TestGoFiles, XTestGoFiles []string
		}
		if err := dec.Decode(&p); err != nil {
			return fmt.Errorf("go list: %w", err)
		}
		if len(p.TestGoFiles)+len(p.XTestGoFiles) == 0 {
			continue // go test -c writes no binary for a package without tests
		}
		rel, err := filepath.Rel(root, p.Dir)
		if err != nil {
			return err
		}
		s.pkgs = append(s.pkgs, pkg{ImportPath: p.ImportPath, Dir: p.Dir, Rel: filepath.ToSlash(rel),
			Bin: filepath.Join(binDir, path.Base(p.ImportPath)+".test")})
	}
	if len(s.pkgs) == 0 {
		return configError{fmt.Errorf("no test package in %s", strings.Join(args, " "))}
	}
	if s.prebuilt == "" {
		paths := make([]string, len(s.pkgs))
		for i, p := range s.pkgs {
			paths[i] = p.ImportPath
		}
		build := exec.Command(s.goCmd, append([]string{"test", "-tags", "perf", "-c", "-o", s.tmp + "/"}, paths...)...)
		build.Stdout, build.Stderr = s.stdout, s.stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go test -c: %w: a test binary did not build", err)
		}
	}
	for _, p := range s.pkgs {
		if st, err := os.Stat(p.Bin); err != nil || st.Mode()&0o111 == 0 {
			if s.prebuilt != "" {
				return configError{fmt.Errorf("PERF_TEST_BINARIES=%s has no test binary for %s (want %s; build them with go test -tags perf -c -o DIR/ PACKAGE...)", s.prebuilt, p.ImportPath, p.Bin)}
			}
			return fmt.Errorf("go test -c wrote no test binary for %s at %s", p.ImportPath, p.Bin)
		}
	}
	return nil
}

// result is what one run of a test binary came to.
type result struct {
	exit    int // the binary's exit status; -1 when it did not start or a signal ended it
	elapsed time.Duration
	plans   []perf.PlanLine
	failed  []failure
	err     error // the binary did not start, or its output did not read as test2json events
}

// failure is a failed test of a package and its last output lines.
type failure struct {
	Pkg, Test string // Test is "" when the binary failed outside any test
	Lines     []string
}

// tailLines is how many of a failed test's last lines are kept.
const tailLines = 12

// exec runs p's test binary in its package folder as go test does (-test.count=1
// -test.paniconexit0, -test.run when given, then args), with env added to the environment,
// through go tool test2json: every output event's text goes to out as printed, the plan lines
// are collected, and the failed tests kept with their last lines.
func (s *suite) exec(p pkg, env []string, out io.Writer, args ...string) result {
	args = append([]string{"-test.count=1", "-test.paniconexit0", "-test.v=test2json"}, args...)
	if s.runRE != "" {
		args = append(args, "-test.run="+s.runRE)
	}
	bin := exec.Command(p.Bin, args...)
	bin.Dir = p.Dir
	bin.Env = append(os.Environ(), env...)
	conv := exec.Command(s.test2json, "-p", p.ImportPath)
	// Ctrl-C is the test binary's to handle: the converter, in a process group of its own,
	// reads on until the binary's output ends.
	conv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	conv.Stderr = s.stderr
	pr, pw, err := os.Pipe()
	if err != nil {
		return result{exit: -1, err: err}
	}
	conv.Stdin = pr
	bin.Stdout, bin.Stderr = pw, pw
	events, err := conv.StdoutPipe()
	if err == nil {
		err = conv.Start()
	}
	start := time.Now()
	if err == nil {
		if err = bin.Start(); err != nil {
			err = fmt.Errorf("start %s: %w", p.Bin, err)
		}
	}
	pr.Close()
	pw.Close()
	if err != nil {
		if conv.Process != nil {
			io.Copy(io.Discard, events)
			conv.Wait()
		}
		return result{exit: -1, err: err}
	}
	ev := readEvents(events, out, p.Rel)
	r := ev.result
	bin.Wait()
	if err := conv.Wait(); err != nil && r.err == nil {
		r.err = fmt.Errorf("test2json: %w", err)
	}
	r.exit = -1
	if bin.ProcessState != nil {
		r.exit = bin.ProcessState.ExitCode()
	}
	r.elapsed = time.Since(start)
	if r.exit != 0 && len(r.failed) == 0 { // it failed outside a test, or died in one
		r.failed = []failure{{Pkg: p.Rel, Test: ev.lastTest, Lines: ev.last(ev.lastTest)}}
	}
	return r
}

// events is what readEvents gathers beyond a result: each test's last lines.
type events struct {
	result
	tails    map[string]*tail
	lastTest string // the test of the last output line
}

// readEvents reads test2json events from r until it ends, writing their output to out.
func readEvents(r io.Reader, out io.Writer, pkgName string) events {
	ev := events{tails: map[string]*tail{}}
	dec := json.NewDecoder(r)
	var partial string // test2json splits long lines into several output events
	for {
		var e struct{ Action, Test, Output string }
		if err := dec.Decode(&e); err != nil {
			if !errors.Is(err, io.EOF) {
				ev.err = fmt.Errorf("test2json output: %w", err)
				io.Copy(out, io.MultiReader(dec.Buffered(), r)) // the rest as it comes, so the binary is never blocked
			}
			break
		}
		switch e.Action {
		case "output":
			out.Write([]byte(e.Output))
			text := partial + e.Output
			for {
				line, rest, ok := strings.Cut(text, "\n")
				if !ok {
					break
				}
				ev.line(e.Test, line)
				text = rest
			}
			partial = text
		case "fail":
			if e.Test != "" && !ev.hasFailedSubtest(e.Test) {
				ev.failed = append(ev.failed, failure{Pkg: pkgName, Test: e.Test, Lines: ev.last(e.Test)})
			}
		}
	}
	if partial != "" {
		ev.line(ev.lastTest, partial)
	}
	return ev
}

// line notes one whole output line of test.
func (ev *events) line(test, line string) {
	ev.lastTest = test
	t := ev.tails[test]
	if t == nil {
		t = &tail{}
		ev.tails[test] = t
	}
	t.add(line)
	if rest, ok := strings.CutPrefix(line, perf.PlanLinePrefix); ok {
		var l perf.PlanLine
		if err := json.Unmarshal([]byte(rest), &l); err != nil {
			ev.err = errors.Join(ev.err, fmt.Errorf("plan line of %s: %w", test, err))
			return
		}
		ev.plans = append(ev.plans, l)
	}
}

// last is test's last output lines.
func (ev *events) last(test string) []string {
	if t := ev.tails[test]; t != nil {
		return t.lines
	}
	return nil
}

// hasFailedSubtest reports whether a subtest of test has failed already (subtests end before
// their parent, whose failure then says nothing more).
func (ev *events) hasFailedSubtest(test string) bool {
	for _, f := range ev.failed {
		if strings.HasPrefix(f.Test, test+"/") {
			return true
		}
	}
	return false
}

// tail keeps the last tailLines lines written to it.
type tail struct{ lines []string }

func (t *tail) add(line string) {
	if t.lines = append(t.lines, line); len(t.lines) > tailLines {
		t.lines = t.lines[1:]
	}
}

// writeFailures writes the failed tests, each with its last lines, keeping the last limit lines.
func writeFailures(w io.Writer, failed []failure, limit int) {
	var lines []string
	for _, f := range failed {
		lines = append(lines, fmt.Sprintf("  %s %s:", f.Pkg, cmp.Or(f.Test, "(outside any test)")))
		for _, l := range f.Lines {
			lines = append(lines, "    "+l)
		}
	}
	lines = lines[max(0, len(lines)-limit):]
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// tee writes to every writer, whatever one of them answers (a log that fails to take a line
// must not stop the output).
type tee []io.Writer

func (t tee) Write(b []byte) (int, error) {
	for _, w := range t {
		w.Write(b)
	}
	return len(b), nil
}
