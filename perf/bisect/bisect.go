// Package bisect finds the commit that changed a figure. Given the commits from a good one to
// a bad one along the bad one's first parents, it builds the commit halfway, judges it against
// both ends with the A/B verdict of two builds (perf.ChangeRule: regressed, improved, same or
// undecided, rounds added until decided), and halves the range until one commit is left: the
// first bad commit. A commit that does not build is skipped, as `git bisect skip` does, and so
// is one the verdict cannot place; when only such commits are left between the last good and
// the first bad commit tested, the search ends with that narrowest range.
//
// The pieces are interfaces: a Builder turns a commit into a binary (GoBuild builds a commit
// of a git repository with go build), a Comparer compares two binaries on the figure (Rounds
// measures interleaved rounds in this process; cmd/perfbisect runs an A/B perf run of daprd).
package bisect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// Commit is one commit of the searched history.
type Commit struct {
	Hash    string `json:"hash"`
	Subject string `json:"subject"`
}

// Short is the commit's hash cut to 10 characters.
func (c Commit) Short() string {
	if len(c.Hash) > 10 {
		return c.Hash[:10]
	}
	return c.Hash
}

// Binary is a commit built.
type Binary struct {
	Commit Commit
	Path   string
}

// Mark is what a step found a commit to be.
type Mark string

// The marks of a step.
const (
	// Good: the commit's figure is the good end's (same, or better).
	Good Mark = "good"
	// Bad: the commit's figure is worse than the good end's, or the bad end's.
	Bad Mark = "bad"
	// Skipped: the commit does not build (Step.Reason says why).
	Skipped Mark = "skipped"
	// Undecided: the verdict could not place it after its rounds, against either end.
	Undecided Mark = "undecided"
)

// Builder builds a commit into a binary and returns its path. A commit that cannot be built
// (a compile error, a dependency the module proxy refuses) returns a *SkipError and the search
// goes on without it; any other error stops the search.
type Builder interface {
	Build(ctx context.Context, c Commit) (path string, err error)
}

// SkipError is a commit that does not build, with the reason (a line or three of the build's
// output).
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return "does not build: " + e.Reason }

// Comparer compares binary b against binary a on one figure, lower being better: the
// difference B − A with its four-way verdict (perf.Difference), its rounds added until decided
// or their budget is spent.
type Comparer interface {
	Compare(ctx context.Context, a, b Binary) (Comparison, error)
}

// Comparison is one comparison of two builds.
type Comparison struct {
	// A and B are the commits compared, B − A.
	A Commit `json:"a"`
	B Commit `json:"b"`
	// Difference is the figure's B − A, its intervals and verdict.
	Difference perf.Difference `json:"difference"`
	// Rounds is how many rounds of each build it took.
	Rounds int `json:"rounds"`
	// Files are the result files the comparison wrote, when it wrote some.
	Files []string `json:"files,omitempty"`
	// Seconds is how long it took.
	Seconds float64 `json:"seconds"`
}

// Verdict is the comparison's four-way verdict word.
func (c Comparison) Verdict() string { return perf.VerdictWord(c.Difference.Verdict) }

// Step is one commit tried.
type Step struct {
	// N counts the steps from 1; Index is the commit's place in Outcome.Commits (0 the good end).
	N      int    `json:"n"`
	Index  int    `json:"index"`
	Commit Commit `json:"commit"`
	Mark   Mark   `json:"mark"`
	// Reason says why a commit was skipped.
	Reason       string  `json:"reason,omitempty"`
	BuildSeconds float64 `json:"buildSeconds"`
	// Comparisons are the commit against the good end (B = the commit), then, when that did
	// not place it, the bad end against the commit (B = the bad end).
	Comparisons []Comparison `json:"comparisons,omitempty"`
	// Good and Bad are the range's ends after the step, as indexes into Outcome.Commits.
	Good int `json:"good"`
	Bad  int `json:"bad"`
	// Earlier is true for a step taken from an earlier search of the same commits
	// (Search.Earlier), not built or compared again.
	Earlier bool `json:"earlier,omitempty"`
}

// Outcome is a finished search.
type Outcome struct {
	// Figure is what was compared ("latency p90").
	Figure string `json:"figure"`
	// Commits are the searched history, the good end first and the bad end last.
	Commits []Commit `json:"commits"`
	// Confirm is the bad end against the good end, compared before the search: the search runs
	// only when it says regressed.
	Confirm *Comparison `json:"confirm,omitempty"`
	Steps   []Step      `json:"steps"`
	// LastGood and FirstBad are the narrowest range reached, as indexes into Commits; when
	// they are adjacent, Commits[FirstBad] is the first bad commit.
	LastGood int `json:"lastGood"`
	FirstBad int `json:"firstBad"`
	// Found is true when LastGood and FirstBad are adjacent.
	Found bool `json:"found"`
	// Reason says why the search ended.
	Reason string `json:"reason"`
	// Seconds is the whole search's time.
	Seconds float64 `json:"seconds"`
}

// Search is a bisection's pieces.
type Search struct {
	Builder  Builder
	Comparer Comparer
	// Figure names the compared figure, for the outcome and the log.
	Figure string
	// Log gets a line per build and comparison; nil discards them.
	Log io.Writer
	// Earlier is the outcome of an earlier search of the same commits, or nil: its ends'
	// comparison and the marks of its steps are taken as they are (Step.Earlier), so that a
	// search stopped part way (a session's end, an interrupt) goes on where it was.
	Earlier *Outcome
	// Progress, when set, is called with the outcome so far after the ends' comparison and
	// after each step, so that it can be written down before the next.
	Progress func(Outcome)
}

// Run bisects commits (the good end first, the bad end last, at least two) and returns the
// outcome. It builds both ends first and compares the bad end against the good one; unless
// that says regressed, it ends there (Found false, Reason saying so). Then each step builds a
// commit halfway between the good and bad ends reached, or the nearest untried one to it, and
// marks it by judge. An end that does not build, a build or comparison error, or ctx's end
// stops it with an error; the outcome so far is returned with it.
func (s Search) Run(ctx context.Context, commits []Commit) (out Outcome, err error) {
	start := time.Now()
	// The search's time goes on from an earlier search's, and is stamped on every outcome
	// written along the way as on the one returned.
	var before float64
	if s.Earlier != nil {
		before = s.Earlier.Seconds
	}
	stamp := func() { out.Seconds = before + time.Since(start).Seconds() }
	out = Outcome{Figure: s.Figure, Commits: commits, LastGood: 0, FirstBad: len(commits) - 1}
	defer stamp()
	if len(commits) < 2 {
		return out, fmt.Errorf("bisect: %d commits: need the good and the bad one at least", len(commits))
	}
	log := s.Log
	if log == nil {
		log = io.Discard
	}
	good, err := s.buildEnd(ctx, commits[0], "good")
	if err != nil {
		return out, err
	}
	bad, err := s.buildEnd(ctx, commits[len(commits)-1], "bad")
	if err != nil {
		return out, err
	}
	earlier, err := s.earlierSteps(commits)
	if err != nil {
		return out, err
	}
	var confirm Comparison
	if s.Earlier != nil && s.Earlier.Confirm != nil {
		confirm = *s.Earlier.Confirm
	} else if confirm, err = s.Comparer.Compare(ctx, good, bad); err != nil {
		return out, fmt.Errorf("bisect: compare the bad end with the good end: %w", err)
	}
	out.Confirm = &confirm
	stamp()
	s.progress(out)
	fmt.Fprintf(log, "bisect: bad end %s against good end %s: %s\n", bad.Commit.Short(), good.Commit.Short(), describe(confirm))
	if confirm.Verdict() != perf.VerdictRegressed {
		out.Reason = fmt.Sprintf("the bad end is not regressed against the good end on %s (%s): nothing to search for", s.Figure, confirm.Verdict())
		return out, nil
	}
	tried := map[int]bool{}
	for out.FirstBad-out.LastGood > 1 {
		i := pick(out.LastGood, out.FirstBad, tried)
		if i < 0 {
			break
		}
		tried[i] = true
		step, known := earlier[commits[i].Hash]
		if known {
			step.Earlier = true
			fmt.Fprintf(log, "bisect: %s is %s (an earlier search's step)\n", commits[i].Short(), step.Mark)
		} else {
			step, err = s.step(ctx, i, commits[i], good, bad, log)
		}
		step.N = len(out.Steps) + 1
		switch step.Mark {
		case Good:
			out.LastGood = i
		case Bad:
			out.FirstBad = i
		}
		step.Good, step.Bad = out.LastGood, out.FirstBad
		if err == nil || step.Mark != "" {
			out.Steps = append(out.Steps, step)
			stamp()
			s.progress(out)
		}
		if err != nil {
			out.Reason = "stopped by an error: " + err.Error()
			return out, err
		}
	}
	out.Found = out.FirstBad-out.LastGood == 1
	if out.Found {
		out.Reason = fmt.Sprintf("%s is the first bad commit", commits[out.FirstBad].Short())
	} else {
		out.Reason = fmt.Sprintf("each of the %d commits between %s and %s was skipped or undecided", out.FirstBad-out.LastGood-1, commits[out.LastGood].Short(), commits[out.FirstBad].Short())
	}
	return out, nil
}

// earlierSteps are the steps of s.Earlier by commit hash, once it is checked to be a search of
// the same commits; an earlier search of other commits is an error.
func (s Search) earlierSteps(commits []Commit) (map[string]Step, error) {
	out := map[string]Step{}
	if s.Earlier == nil {
		return out, nil
	}
	e := s.Earlier.Commits
	if len(e) != len(commits) || e[0].Hash != commits[0].Hash || e[len(e)-1].Hash != commits[len(commits)-1].Hash {
		return nil, fmt.Errorf("bisect: the earlier search is of other commits (%d from %s), not of these %d from %s", len(e), firstShort(e), len(commits), commits[0].Short())
	}
	for _, st := range s.Earlier.Steps {
		out[st.Commit.Hash] = st
	}
	return out, nil
}

func firstShort(cs []Commit) string {
	if len(cs) == 0 {
		return "none"
	}
	return cs[0].Short()
}

func (s Search) progress(o Outcome) {
	if s.Progress != nil {
		s.Progress(o)
	}
}

// buildEnd builds one end of the range; an end that does not build is an error.
func (s Search) buildEnd(ctx context.Context, c Commit, which string) (Binary, error) {
	path, err := s.Builder.Build(ctx, c)
	if err != nil {
		return Binary{}, fmt.Errorf("bisect: the %s end %s: %w", which, c.Short(), err)
	}
	return Binary{Commit: c, Path: path}, nil
}

// step builds commit c (index i) and marks it.
func (s Search) step(ctx context.Context, i int, c Commit, good, bad Binary, log io.Writer) (Step, error) {
	step := Step{Index: i, Commit: c}
	t := time.Now()
	path, err := s.Builder.Build(ctx, c)
	step.BuildSeconds = time.Since(t).Seconds()
	var skip *SkipError
	if errors.As(err, &skip) {
		step.Mark, step.Reason = Skipped, skip.Reason
		fmt.Fprintf(log, "bisect: %s skipped: %s\n", c.Short(), skip.Reason)
		return step, nil
	}
	if err != nil {
		return step, fmt.Errorf("bisect: build %s: %w", c.Short(), err)
	}
	step.Mark, step.Comparisons, err = judge(ctx, s.Comparer, good, bad, Binary{Commit: c, Path: path})
	for _, cmp := range step.Comparisons {
		fmt.Fprintf(log, "bisect: %s against %s: %s\n", cmp.B.Short(), cmp.A.Short(), describe(cmp))
	}
	if err == nil {
		fmt.Fprintf(log, "bisect: %s is %s\n", c.Short(), step.Mark)
	}
	return step, err
}

// judge marks candidate c: against the good end first (regressed: bad; same or improved:
// good), and when that is undecided, the bad end against c (regressed, the bad end being worse
// than c: good; same or improved: bad); undecided when neither places it.
func judge(ctx context.Context, cmp Comparer, good, bad, c Binary) (Mark, []Comparison, error) {
	vsGood, err := cmp.Compare(ctx, good, c)
	if err != nil {
		return "", nil, fmt.Errorf("bisect: compare %s with the good end: %w", c.Commit.Short(), err)
	}
	cs := []Comparison{vsGood}
	switch vsGood.Verdict() {
	case perf.VerdictRegressed:
		return Bad, cs, nil
	case perf.VerdictSame, perf.VerdictImproved:
		return Good, cs, nil
	}
	vsBad, err := cmp.Compare(ctx, c, bad)
	if err != nil {
		return "", cs, fmt.Errorf("bisect: compare the bad end with %s: %w", c.Commit.Short(), err)
	}
	cs = append(cs, vsBad)
	switch vsBad.Verdict() {
	case perf.VerdictRegressed:
		return Good, cs, nil
	case perf.VerdictSame, perf.VerdictImproved:
		return Bad, cs, nil
	}
	return Undecided, cs, nil
}

// pick is the untried index strictly between lo and hi nearest their midpoint (the lower one
// first on a tie), or -1 when every one is tried.
func pick(lo, hi int, tried map[int]bool) int {
	mid := lo + (hi-lo)/2
	for d := 0; d < hi-lo; d++ {
		for _, i := range []int{mid - d, mid + d} {
			if i > lo && i < hi && !tried[i] {
				return i
			}
		}
	}
	return -1
}

// describe reads like "+0.512 ms (+34.5 %), regressed after 12 rounds".
func describe(c Comparison) string {
	d := c.Difference
	return fmt.Sprintf("%s (%+.1f %%), %s after %d rounds", report.FormatValue(d.Median, d.Unit, true), 100*d.Change, c.Verdict(), c.Rounds)
}
