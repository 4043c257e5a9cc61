package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// planPkg is one test package's plan: its scenarios' plan lines, in the order they ran.
type planPkg struct {
	Name  string // the package folder ("tests/jobs")
	Lines []perf.PlanLine
}

// Expected is the package's expected time, the sum of its scenarios' (ExpectedSeconds), and
// upTo the part of it that is an upper bound (UpToSeconds).
func (p planPkg) Expected() (expected, upTo time.Duration) {
	for _, l := range p.Lines {
		expected += seconds(l.ExpectedSeconds)
		upTo += seconds(l.UpToSeconds)
	}
	return expected, upTo
}

// planPass runs every test binary under DAPR_PERF_PLAN_ONLY=1 (each scenario prints its plan
// line and starts nothing) and prints the suite's plan. A binary that fails as a test fails
// (exit 1) met a configuration error, the one thing the pass checks: OutcomeConfig; any other
// failure (a panic, a signal, a plan line that does not parse) makes it OutcomeInfra.
func (s *suite) planPass() (perf.Outcome, error) {
	fmt.Fprintf(s.stdout, "perf: plan: listing every scenario's plan (%s=1: nothing starts)\n", perf.EnvPlanOnly)
	start := time.Now()
	var (
		plan   []planPkg
		failed []failure
		code   = perf.OutcomePass
	)
	for _, p := range s.pkgs {
		r := s.exec(p, []string{perf.EnvPlanOnly + "=1"}, io.Discard, "-test.timeout=20m")
		switch {
		case r.err != nil || (r.exit != 0 && r.exit != 1):
			code = perf.OutcomeInfra
		case r.exit == 1 && code == perf.OutcomePass:
			code = perf.OutcomeConfig
		}
		if r.err != nil {
			fmt.Fprintf(s.stderr, "perf: %s: %v\n", p.Rel, r.err)
		}
		failed = append(failed, r.failed...)
		if len(r.plans) > 0 {
			plan = append(plan, planPkg{Name: p.Rel, Lines: r.plans})
		}
		if s.interrupted.Load() {
			return perf.OutcomeInterrupted, nil
		}
	}
	if code != perf.OutcomePass {
		fmt.Fprintln(s.stderr, "perf: the plan-only pass failed, before any process started:")
		writeFailures(s.stderr, failed, 40)
		return code, errors.New("nothing started")
	}
	if err := writeTable(s.stdout, plan); err != nil {
		return perf.OutcomeInfra, err
	}
	for _, w := range planWarnings(plan) {
		fmt.Fprintf(s.stdout, "perf: warning: %s\n", w)
	}
	s.plan = plan
	var total, upTo time.Duration
	for _, p := range plan {
		e, u := p.Expected()
		total += (e - u).Round(time.Second) // as the progress lines count it
		upTo += u.Round(time.Second)
	}
	more := ""
	if upTo > 0 {
		more = ", plus closed-loop runs of up to " + fmtSecs(upTo)
	}
	fmt.Fprintf(s.stdout, "perf: plan listed in %d s; expected about %s for %d packages%s, an estimate from the plans; the ETA lines below count the former only\n",
		int(time.Since(start).Seconds()), fmtSecs(total), len(plan), more)
	return perf.OutcomePass, nil
}

// runAll runs the test binaries one at a time, printing their output and the progress lines
// and appending both to <run dir>/test.log; it returns 1 when one failed or Ctrl-C stopped the
// run, else 0.
func (s *suite) runAll() int {
	fmt.Fprintf(s.stdout, "perf: run %s; results go to %s\n", s.runID, s.runDir)
	out := tee{s.stdout}
	logPath := filepath.Join(s.runDir, "test.log")
	if err := os.MkdirAll(s.runDir, 0o755); err != nil {
		fmt.Fprintf(s.stderr, "perf: cannot create %s (the test binaries will say why): %v\n", s.runDir, err)
	} else if log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		fmt.Fprintf(s.stderr, "perf: cannot append to the log %s: the run goes on without it: %v\n", logPath, err)
	} else {
		defer log.Close()
		out = append(out, log)
	}
	prog := newProgress(s.plan, out)
	rc := 0
	for _, p := range s.pkgs {
		prog.start(p.Rel)
		r := s.exec(p, nil, out, "-test.timeout="+s.timeout)
		if r.err != nil {
			fmt.Fprintf(out, "perf: %s: %v\n", p.Rel, r.err)
		}
		status := "ok  "
		if r.exit != 0 || r.err != nil {
			status, rc = "FAIL", 1
		}
		fmt.Fprintf(out, "%s\t%s\t%.3fs\n", status, p.ImportPath, r.elapsed.Seconds())
		s.failed = append(s.failed, r.failed...)
		prog.done(p.Rel)
		if s.interrupted.Load() || (status == "FAIL" && s.awaitInterrupt(500*time.Millisecond)) {
			fmt.Fprintf(out, "perf: interrupted: the packages after %s do not run\n", p.Rel)
			return 1
		}
	}
	return rc
}

// progress writes a line as each planned package starts (its plan, the elapsed time, the
// suite's ETA) and ends (its wall time against its plan). The ETA is the plan's expected time
// of the packages not finished yet, without the upper bounds of closed-loop runs: an estimate
// from the phases' lengths, not a measurement.
type progress struct {
	w          io.Writer
	secs       map[string]time.Duration // each planned package's expected time
	n, k       int                      // planned packages, and those done
	left       time.Duration            // the expected time of those not done
	begun, pkg time.Time
}

func newProgress(plan []planPkg, w io.Writer) *progress {
	p := &progress{w: w, secs: map[string]time.Duration{}, n: len(plan), begun: time.Now()}
	for _, pp := range plan {
		e, u := pp.Expected()
		p.secs[pp.Name] = (e - u).Round(time.Second)
		p.left += p.secs[pp.Name]
	}
	return p
}

func (p *progress) start(name string) {
	p.pkg = time.Now()
	if secs, ok := p.secs[name]; ok {
		fmt.Fprintf(p.w, "perf: package %d of %d: %s (plan %s); elapsed %s, suite ETA about %s left (%s UTC)\n", p.k+1, p.n, name, fmtSecs(secs),
			fmtSecs(time.Since(p.begun)), fmtSecs(p.left), time.Now().UTC().Add(p.left).Format("15:04"))
	}
}

func (p *progress) done(name string) {
	if secs, ok := p.secs[name]; ok {
		fmt.Fprintf(p.w, "perf: package %d of %d done: %s in %s of wall time (plan %s)\n", p.k+1, p.n, name, fmtSecs(time.Since(p.pkg)), fmtSecs(secs))
		p.k++
		p.left -= secs
	}
}

// fmtSecs is d in whole seconds as 1h02m03s, 4m05s or 6s.
func fmtSecs(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s >= 3600:
		return fmt.Sprintf("%dh%02dm%02ds", s/3600, s%3600/60, s%60)
	case s >= 60:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%ds", s)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// load is a plan line's main load in a few words.
func load(l perf.PlanLine) string {
	switch {
	case l.UpperBounded():
		return "closed-loop iterations"
	case l.QPS > 0:
		return fmt.Sprintf("%d QPS x %v, %d conn", l.QPS, seconds(l.DurationSeconds), l.Connections)
	}
	return fmt.Sprintf("closed loop / max rate, %v", seconds(l.DurationSeconds))
}

// expected is d, marked "up to" when part of it is an upper bound.
func expected(d, upTo time.Duration) string {
	s := d.Round(time.Second).String()
	if upTo > 0 {
		s = "up to " + s
	}
	return s
}

// planWarnings are the plan lines' warnings (a DAPR_PERF_* variable set but unknown, say), each
// once, in the order first met: every scenario of the suite reads the same environment.
func planWarnings(plan []planPkg) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range plan {
		for _, l := range p.Lines {
			for _, w := range l.Warnings {
				if !seen[w] {
					seen[w] = true
					out = append(out, w)
				}
			}
		}
	}
	return out
}

// writeTable writes the suite's plan: a row per scenario (package, test, plan, load, phases,
// expected time), a total per package of several, and the suite's expected total with the part
// of it that is an upper bound.
func writeTable(w io.Writer, plan []planPkg) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "package\ttest\tplan\tmain load\tphases\texpected")
	var total, upTo time.Duration
	scenarios := 0
	for _, p := range plan {
		for _, l := range p.Lines {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", p.Name, l.Test, l.Plan, load(l), len(l.Phases), expected(seconds(l.ExpectedSeconds), seconds(l.UpToSeconds)))
			scenarios++
		}
		e, u := p.Expected()
		if len(p.Lines) > 1 {
			fmt.Fprintf(tw, "%s\t(package)\t\t\t\t%s\n", p.Name, expected(e, u))
		}
		total += e
		upTo += u
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "suite: %d packages, %d scenarios, expected about %v", len(plan), scenarios, total.Round(time.Second))
	if upTo > 0 {
		fmt.Fprintf(w, " (%v of it is the maxDuration of closed-loop runs, which end when their iterations are done: an upper bound; without it %v)",
			upTo.Round(time.Second), (total - upTo).Round(time.Second))
	}
	_, err := fmt.Fprintln(w, "; an estimate from the plans (phase lengths plus 0.5 s each), not a measured run: building each test binary and starting its platform come on top")
	return err
}
