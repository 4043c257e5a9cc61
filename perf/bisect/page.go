package bisect

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/daprperf/daprperf/perf/report"
)

// Write writes the outcome into dir as outcome.json and its page, README.md, the JSON first
// so that a page that fails to draw loses nothing.
func Write(dir string, o Outcome) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "outcome.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(Page(o)), 0o644)
}

// Read reads the outcome.json that Write wrote into dir.
func Read(dir string) (*Outcome, error) {
	b, err := os.ReadFile(filepath.Join(dir, "outcome.json"))
	if err != nil {
		return nil, err
	}
	var o Outcome
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, fmt.Errorf("bisect: %s: %w", filepath.Join(dir, "outcome.json"), err)
	}
	return &o, nil
}

// Page is the outcome as Markdown: the finding first (the first bad commit, or the narrowest
// range and why no narrower), then the ends' comparison and a row per step with its build,
// its comparisons (B − A, the change, the decision interval, the verdict and its rounds) and
// its mark.
func Page(o Outcome) string {
	var b strings.Builder
	n := len(o.Commits)
	switch {
	case n < 2:
		fmt.Fprintf(&b, "# Bisection of %s: no range\n\n%s\n", o.Figure, o.Reason)
		return b.String()
	case o.Found:
		c := o.Commits[o.FirstBad]
		fmt.Fprintf(&b, "# Bisection of %s: the first bad commit is %s\n\n**%s** %s\n\n", o.Figure, c.Short(), c.Hash, c.Subject)
	default:
		fmt.Fprintf(&b, "# Bisection of %s: narrowed to %d commits, not to one\n\n%s.\n\n", o.Figure, o.FirstBad-o.LastGood, o.Reason)
	}
	good, bad := o.Commits[0], o.Commits[n-1]
	fmt.Fprintf(&b, "Between the good commit %s and the bad commit %s: %d commits along the bad one's first parents, "+
		"searched in %d steps (%d skipped, %d undecided), %.0f s in all. The narrowest range reached: last good %s, first bad %s.\n\n",
		good.Short(), bad.Short(), n-1, len(o.Steps), o.count(Skipped), o.count(Undecided), o.Seconds,
		o.Commits[o.LastGood].Short(), o.Commits[o.FirstBad].Short())
	b.WriteString("Each commit is compared with the good end (B is the commit); when that leaves it undecided, the bad end is compared " +
		"with it (B is the bad end). A comparison adds rounds until its verdict is decided or its budget is spent (docs/method.md).\n\n")
	if o.Confirm != nil {
		fmt.Fprintf(&b, "The ends: %s\n\n", cell(*o.Confirm))
	}
	if o.Reason != "" && o.Found {
		fmt.Fprintf(&b, "%s.\n\n", upper(o.Reason))
	}
	if len(o.Steps) == 0 {
		return b.String()
	}
	b.WriteString("| step | commit | subject | build | against the good end | the bad end against it | mark | range after |\n")
	b.WriteString("|---:|---|---|---|---|---|---|---|\n")
	for _, s := range o.Steps {
		build := fmt.Sprintf("%.0f s", s.BuildSeconds)
		if s.Mark == Skipped {
			build = "skipped: " + escape(s.Reason)
		}
		cells := []string{"", ""}
		for i, c := range s.Comparisons {
			if i < 2 {
				cells[i] = cell(c)
			}
		}
		mark := "**" + string(s.Mark) + "**"
		if s.Earlier {
			mark += " (an earlier search's)"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s … %s (%d) |\n", s.N, s.Commit.Short(), escape(s.Commit.Subject),
			build, cells[0], cells[1], mark, o.Commits[s.Good].Short(), o.Commits[s.Bad].Short(), s.Bad-s.Good)
	}
	return b.String()
}

// cell reads like "+0.512 ms (+34.5 %) [+0.401, +0.618] regressed, 12 rounds, 95 s".
func cell(c Comparison) string {
	d := c.Difference
	iv := ""
	if d.HasInterval {
		iv = fmt.Sprintf(" [%s, %s]", report.FormatValue(d.Low, d.Unit, true), report.FormatValue(d.High, d.Unit, true))
	}
	return fmt.Sprintf("%s (%+.1f %%)%s %s, %d rounds, %.0f s", report.FormatValue(d.Median, d.Unit, true), 100*d.Change, iv, c.Verdict(), c.Rounds, c.Seconds)
}

func (o Outcome) count(m Mark) int {
	n := 0
	for _, s := range o.Steps {
		if s.Mark == m {
			n++
		}
	}
	return n
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// escape keeps a table cell one cell.
func escape(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}
