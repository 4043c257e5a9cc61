package bisect_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/bisect"
)

// slowFrom is a made-up history: commit i's figure is 1 before firstBad and 2 from it on;
// commits in noBuild do not build, and comparisons involving one in unsure are undecided.
type slowFrom struct {
	firstBad int
	noBuild  map[int]bool
	unsure   map[int]bool
	built    []int
	compared int
}

func (h *slowFrom) index(c bisect.Commit) int {
	var i int
	fmt.Sscanf(c.Hash, "c%d", &i)
	return i
}

func (h *slowFrom) Build(_ context.Context, c bisect.Commit) (string, error) {
	i := h.index(c)
	h.built = append(h.built, i)
	if h.noBuild[i] {
		return "", &bisect.SkipError{Reason: "syntax error"}
	}
	return c.Hash, nil
}

func (h *slowFrom) Compare(_ context.Context, a, b bisect.Binary) (bisect.Comparison, error) {
	h.compared++
	fig := func(i int) float64 {
		if i >= h.firstBad {
			return 2
		}
		return 1
	}
	ia, ib := h.index(a.Commit), h.index(b.Commit)
	d := perf.Difference{Figure: "latency p90", Unit: "s", A: fig(ia), B: fig(ib), Median: fig(ib) - fig(ia)}
	switch {
	case h.unsure[ia] || h.unsure[ib]:
		d.Verdict = perf.VerdictUndecided
	case d.Median > 0:
		d.Verdict = perf.VerdictRegressed
	case d.Median < 0:
		d.Verdict = perf.VerdictImproved
	default:
		d.Verdict = perf.VerdictSame
	}
	return bisect.Comparison{A: a.Commit, B: b.Commit, Difference: d, Rounds: 4}, nil
}

func history(n int) []bisect.Commit {
	cs := make([]bisect.Commit, n)
	for i := range cs {
		cs[i] = bisect.Commit{Hash: fmt.Sprintf("c%d", i), Subject: fmt.Sprintf("change %d", i)}
	}
	return cs
}

func TestSearchFindsTheFirstBadCommit(t *testing.T) {
	for firstBad := 1; firstBad < 20; firstBad++ {
		h := &slowFrom{firstBad: firstBad}
		o, err := bisect.Search{Builder: h, Comparer: h, Figure: "latency p90"}.Run(context.Background(), history(20))
		require.NoError(t, err)
		require.True(t, o.Found, "first bad %d: %s", firstBad, o.Reason)
		assert.Equal(t, firstBad, o.FirstBad)
		assert.Equal(t, firstBad-1, o.LastGood)
		assert.LessOrEqual(t, len(o.Steps), 5, "log2(19) rounded up steps for 18 commits between")
	}
}

func TestSearchSkipsWhatDoesNotBuildAndWhatItCannotPlace(t *testing.T) {
	// The midpoint of 0..12 is 6, which does not build: 5 is tried next, then the search goes on.
	h := &slowFrom{firstBad: 9, noBuild: map[int]bool{6: true}}
	o, err := bisect.Search{Builder: h, Comparer: h}.Run(context.Background(), history(13))
	require.NoError(t, err)
	assert.True(t, o.Found)
	assert.Equal(t, 9, o.FirstBad)
	assert.Equal(t, bisect.Skipped, o.Steps[0].Mark)
	assert.Equal(t, "syntax error", o.Steps[0].Reason)
	assert.Equal(t, 5, o.Steps[1].Index)

	// When every commit between the last good and the first bad is skipped or undecided, the
	// search ends with that range.
	h = &slowFrom{firstBad: 9, noBuild: map[int]bool{8: true}, unsure: map[int]bool{7: true}}
	o, err = bisect.Search{Builder: h, Comparer: h}.Run(context.Background(), history(13))
	require.NoError(t, err)
	assert.False(t, o.Found)
	assert.Equal(t, 6, o.LastGood)
	assert.Equal(t, 9, o.FirstBad)
	assert.Contains(t, o.Reason, "each of the 2 commits between c6 and c9 was skipped or undecided")
	page := bisect.Page(o)
	assert.True(t, strings.HasPrefix(page, "# Bisection of : narrowed to 3 commits, not to one"), page)
	assert.Contains(t, page, "| skipped: syntax error |")
	assert.Contains(t, page, "**undecided**")
}

func TestSearchStopsWhenTheEndsDoNotDiffer(t *testing.T) {
	h := &slowFrom{firstBad: 100}
	o, err := bisect.Search{Builder: h, Comparer: h, Figure: "latency p90"}.Run(context.Background(), history(8))
	require.NoError(t, err)
	assert.False(t, o.Found)
	assert.Empty(t, o.Steps)
	assert.Equal(t, 1, h.compared)
	assert.Contains(t, o.Reason, "not regressed against the good end on latency p90 (same)")

	h = &slowFrom{firstBad: 3, noBuild: map[int]bool{0: true}}
	_, err = bisect.Search{Builder: h, Comparer: h}.Run(context.Background(), history(8))
	assert.ErrorContains(t, err, "the good end c0: does not build: syntax error")
}

// failAfter is a slowFrom whose comparisons fail after n of them: a search stopped part way.
type failAfter struct {
	*slowFrom
	n int
}

func (f *failAfter) Compare(ctx context.Context, a, b bisect.Binary) (bisect.Comparison, error) {
	if f.compared >= f.n {
		return bisect.Comparison{}, fmt.Errorf("interrupted")
	}
	return f.slowFrom.Compare(ctx, a, b)
}

// A search stopped part way goes on from its outcome: the ends' comparison and its steps are
// taken as they were, only the rest is built and compared, and the answer is the same.
func TestSearchGoesOnFromAnEarlierOutcome(t *testing.T) {
	var written []int
	stopped := &failAfter{slowFrom: &slowFrom{firstBad: 13}, n: 3}
	s := bisect.Search{Builder: stopped, Comparer: stopped, Progress: func(o bisect.Outcome) { written = append(written, len(o.Steps)) }}
	first, err := s.Run(context.Background(), history(20))
	require.ErrorContains(t, err, "interrupted")
	require.Len(t, first.Steps, 2, "the ends and two steps were compared before the stop")
	assert.Equal(t, []int{0, 1, 2}, written, "the outcome was handed over after the ends and after each step")

	require.Greater(t, first.Seconds, 0.0, "a search stopped by an error still says how long it took")

	h := &slowFrom{firstBad: 13}
	first.Seconds = 3600 // an earlier sitting's hour
	again, err := bisect.Search{Builder: h, Comparer: h, Earlier: &first}.Run(context.Background(), history(20))
	require.NoError(t, err)
	assert.Greater(t, again.Seconds, 3600.0, "the time goes on from the earlier search's")
	assert.True(t, again.Found)
	assert.Equal(t, 13, again.FirstBad)
	assert.True(t, again.Steps[0].Earlier && again.Steps[1].Earlier)
	assert.False(t, again.Steps[2].Earlier)
	assert.Equal(t, len(again.Steps)-2, h.compared, "neither the ends nor the earlier steps compared again")

	_, err = bisect.Search{Builder: h, Comparer: h, Earlier: &first}.Run(context.Background(), history(12))
	assert.ErrorContains(t, err, "the earlier search is of other commits (20 from c0), not of these 12 from c0")
}
