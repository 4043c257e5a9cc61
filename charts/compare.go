package charts

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/profile"
	"github.com/daprperf/daprperf/perf/report"
)

// Exit codes of compare: no gating figure regressed, one regressed, bad input (a missing,
// malformed or incomparable file, or bad flags).
const (
	exitNoRegression = 0
	exitRegression   = 1
	exitBadInput     = 2
)

// inputError is an error of compare's input: exit code 2.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

func badInput(format string, args ...any) error { return inputError{fmt.Errorf(format, args...)} }

// compareOptions are compare's flags.
type compareOptions struct {
	// Reports is the report root that run ids (<root>/runs/<id>) and versions (<root>/<v>)
	// are looked up in.
	Reports string
	// Alpha is the false-alarm rate asked of regressed and improved, per figure: the decision
	// interval of the change is at 1 − Alpha (default 0.01; report.DefaultDecideConfidence).
	Alpha float64
	// MinChange is the smallest relative change that counts as regressed or improved (default
	// 0.05: 5 %).
	MinChange float64
	// Margin is the equivalence margin of the verdict same, relative to A (default 0.05).
	Margin float64
	// Confidence of the median intervals shown (default 0.95).
	Confidence float64
	// Gate lists the figure-name prefixes whose regressions fail the comparison ("latency",
	// "overhead p90"); empty means every figure.
	Gate []string
	// AllowParamChange compares scenarios whose load settings differ (QPS, connections,
	// duration, payload); without it that is an incomparable input.
	AllowParamChange bool
	// Out is a Markdown file to write (and the chart next to it); "" writes to stdout only.
	Out string
}

func defaultCompareOptions() compareOptions {
	return compareOptions{Reports: "reports", Alpha: 1 - report.DefaultDecideConfidence, MinChange: report.DefaultMinChange,
		Margin: report.DefaultMargin, Confidence: report.DefaultConfidence}
}

// rule is the verdict's rule of opts: report.DefaultChangeRule with Alpha, MinChange and Margin.
func (o compareOptions) rule() perf.ChangeRule {
	r := report.DefaultChangeRule()
	r.Confidence, r.MinChange, r.Margin = 1-o.Alpha, o.MinChange, o.Margin
	return r
}

// side is one side of a comparison as named on the command line.
type side struct {
	// Name is the argument as given; Path what it resolved to; Kind says how: "run",
	// "version", "file" or "directory".
	Name, Path, Kind string
	Scenarios        map[string]scenario
}

// resolveSide finds what arg names: an existing file or directory, else a run id
// (<reports>/runs/<arg>), else a version directory (<reports>/<arg>, or <reports>/v<arg>).
// Nothing found is an input error naming every place looked at.
func resolveSide(reports, arg string) (side, error) {
	s := side{Name: arg}
	if arg == "" {
		return s, badInput("charts compare: an empty name")
	}
	candidates := []struct{ path, kind string }{
		{arg, ""},
		{perf.RunDir(reports, arg), "run"},
		{filepath.Join(reports, arg), "version"},
	}
	if !strings.HasPrefix(arg, "v") {
		candidates = append(candidates, struct{ path, kind string }{filepath.Join(reports, "v"+arg), "version"})
	}
	var tried []string
	for _, c := range candidates {
		info, err := os.Stat(c.path)
		if err != nil {
			tried = append(tried, c.path)
			continue
		}
		s.Path, s.Kind = c.path, c.kind
		if s.Kind == "" {
			s.Kind = map[bool]string{true: "directory", false: "file"}[info.IsDir()]
		}
		scs, err := loadReports(c.path)
		if err != nil {
			return s, inputError{err}
		}
		if s.Scenarios, err = byKey(scs); err != nil {
			return s, inputError{err}
		}
		return s, nil
	}
	return s, badInput("charts compare: %q is no file, no run and no version: looked for %s", arg, strings.Join(tried, ", "))
}

// compare compares sides a and b (each a run id, a version directory or a result file) and
// writes the Markdown to w, or to opts.Out with the chart next to it. It returns the exit
// code: exitRegression when a gating figure regressed; an error is bad input
// (inputError) or a failed write.
func compare(opts compareOptions, a, b string, w io.Writer) (int, error) {
	c, err := loadComparison(opts, a, b)
	if err != nil {
		return exitBadInput, err
	}
	dir := "."
	chart := ""
	if opts.Out != "" {
		dir = filepath.Dir(opts.Out)
		chart = "compare-" + fileSafe(c.A) + "-" + fileSafe(c.B) + ".png"
		fig, err := compareChart(c)
		if err != nil {
			return exitBadInput, fmt.Errorf("charts: compare chart: %w", err)
		}
		if err := fig.writePNG(filepath.Join(dir, chart)); err != nil {
			return exitBadInput, err
		}
	}
	var images []image
	multiples := ""
	if opts.Out != "" {
		if chart != "" {
			png, err := os.ReadFile(filepath.Join(dir, chart))
			if err != nil {
				return exitBadInput, fmt.Errorf("charts: %w", err)
			}
			images = append(images, image{File: chart, PNG: png})
		}
		png, err := compareMultiplesPNG(c)
		if err != nil {
			return exitBadInput, fmt.Errorf("charts: compare figures chart: %w", err)
		}
		if png != nil {
			multiples = "compare-" + fileSafe(c.A) + "-" + fileSafe(c.B) + "-figures.png"
			if err := os.WriteFile(filepath.Join(dir, multiples), png, 0o644); err != nil {
				return exitBadInput, fmt.Errorf("charts: %w", err)
			}
			images = append(images, image{File: multiples, PNG: png})
		}
	}
	md := compareMarkdown(c, dir, chart, multiples)
	if opts.Out != "" {
		if err := os.WriteFile(opts.Out, []byte(md), 0o644); err != nil {
			return exitBadInput, fmt.Errorf("charts: %w", err)
		}
		// The same page as HTML, its charts embedded: it stands alone, as a run's report does.
		page := compareHTML(c, md, images)
		if err := os.WriteFile(strings.TrimSuffix(opts.Out, filepath.Ext(opts.Out))+".html", []byte(page), 0o644); err != nil {
			return exitBadInput, fmt.Errorf("charts: %w", err)
		}
		fmt.Fprintf(w, "%s: %d scenarios compared, %s\n%s\n", opts.Out, len(c.Scenarios), filepath.Join(dir, chart), verdictLine(c.Regressions, c.Undecided, opts))
	} else {
		fmt.Fprint(w, md)
	}
	if len(c.Regressions) > 0 {
		return exitRegression, nil
	}
	return exitNoRegression, nil
}

// loadComparison resolves and reads both sides and compares every scenario present on both.
func loadComparison(opts compareOptions, a, b string) (comparison, error) {
	sa, err := resolveSide(opts.Reports, a)
	if err != nil {
		return comparison{}, err
	}
	sb, err := resolveSide(opts.Reports, b)
	if err != nil {
		return comparison{}, err
	}
	c := comparison{A: filepath.Clean(a), B: filepath.Clean(b), SideA: sa, SideB: sb, Opts: opts}
	var keys []string
	for k := range sa.Scenarios {
		if _, ok := sb.Scenarios[k]; ok {
			keys = append(keys, k)
		} else {
			c.OnlyA = append(c.OnlyA, k)
		}
	}
	for k := range sb.Scenarios {
		if _, ok := sa.Scenarios[k]; !ok {
			c.OnlyB = append(c.OnlyB, k)
		}
	}
	slices.Sort(keys)
	slices.Sort(c.OnlyA)
	slices.Sort(c.OnlyB)
	if len(keys) == 0 {
		return comparison{}, badInput("charts compare: incomparable: no scenario in both %s (%s: %s) and %s (%s: %s)",
			sa.Path, sa.Kind, strings.Join(sortedKeys(sa.Scenarios), ", "), sb.Path, sb.Kind, strings.Join(sortedKeys(sb.Scenarios), ", "))
	}
	var errs []error
	for _, k := range keys {
		ra, rb := sa.Scenarios[k], sb.Scenarios[k]
		if d := paramDifferences(ra.Report, rb.Report); d != "" && !opts.AllowParamChange {
			errs = append(errs, badInput("charts compare: incomparable: %s and %s ran %s with different load (%s); rerun with the same settings, or pass -allow-param-change",
				ra.Path, rb.Path, k, d))
			continue
		}
		sc := scenarioComparison{Key: k, A: ra, B: rb, Rows: compareRows(ra.Report, rb.Report, opts)}
		if len(ra.Report.Profiles) > 0 && len(rb.Report.Profiles) > 0 {
			sc.Profiles, sc.ProfileWarnings = profile.RoleDiffs(ra.Report.Profiles, rb.Report.Profiles, ra.Dir, rb.Dir)
		}
		for _, r := range sc.Rows {
			switch {
			case r.Verdict == perf.VerdictRegressed && r.Gates:
				c.Regressions = append(c.Regressions, fmt.Sprintf("%s %s (%s, %s)", k, r.Figure, r.Change, r.Test))
			case r.Verdict == perf.VerdictUndecided:
				c.Undecided++
			}
		}
		c.Scenarios = append(c.Scenarios, sc)
	}
	if err := errors.Join(errs...); err != nil {
		return comparison{}, inputError{err}
	}
	return c, nil
}
