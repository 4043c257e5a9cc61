package calibrate_test

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/calibrate"
	"github.com/daprperf/daprperf/perf/report"
)

// runs makes n A/B runs of rounds rounds each: A around 3 ms with 4 % noise per round, a
// drift per round that both sides share, and B = A's level × (1 + shift) with its own noise.
func runs(rng *rand.Rand, n, rounds int, shift float64) []calibrate.Run {
	out := make([]calibrate.Run, n)
	for i := range out {
		for range rounds {
			drift := 1 + 0.10*rng.NormFloat64() // the machine's, shared by the round's two sides
			a := 0.003 * drift * (1 + 0.04*rng.NormFloat64())
			b := 0.003 * drift * (1 + shift) * (1 + 0.04*rng.NormFloat64())
			out[i].Pairs = append(out[i].Pairs, calibrate.Pair{A: a, B: b})
		}
	}
	return out
}

func TestSameBuildRaisesFewAlarms(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	aa := runs(rng, 20, 6, 0)
	rule := report.DefaultChangeRule()
	real := calibrate.Real(aa, rule)
	assert.Equal(t, 20, real.N)
	c := calibrate.Resample(aa, calibrate.Comparison{Rounds: 8}, 2000, rule, 7)
	require.Equal(t, 2000, c.N)
	assert.Equal(t, c.N, c.Regressed+c.Improved+c.Same+c.Undecided)
	low, high, err := calibrate.Interval(c.FalseAlarms(), c.N, 0.95)
	require.NoError(t, err)
	t.Logf("A/A: %d of %d false alarms (%.2f %%, 95 %% interval %.2f to %.2f %%); same %d, undecided %d",
		c.FalseAlarms(), c.N, 100*c.Rate(c.FalseAlarms()), 100*low, 100*high, c.Same, c.Undecided)
	assert.LessOrEqual(t, c.Rate(c.FalseAlarms()), 0.01, "the rule asks 99 %% intervals: at most about 1 %% false alarms")

	again := calibrate.Resample(aa, calibrate.Comparison{Rounds: 8}, 2000, rule, 7)
	assert.Equal(t, c, again, "the same seed gives the same counts")
}

func TestAClearSlowdownIsCaught(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	slowed := runs(rng, 20, 8, 0.15)
	c := calibrate.Resample(slowed, calibrate.Comparison{Rounds: 8}, 1000, report.DefaultChangeRule(), 11)
	t.Logf("+15 %%: regressed in %d of %d", c.Regressed, c.N)
	assert.GreaterOrEqual(t, c.Rate(c.Regressed), 0.95, "a 15 %% slowdown with 4 %% noise is caught at 8 rounds")
	assert.Zero(t, c.Improved)
}

func TestWilsonInterval(t *testing.T) {
	// Wilson's interval of 0 in 1000 at 95 %: [0, z²/(n+z²)] = [0, 0.00383].
	low, high, err := calibrate.Interval(0, 1000, 0.95)
	require.NoError(t, err)
	assert.Zero(t, low)
	assert.InDelta(t, 0.00383, high, 0.00002)
	// 10 in 1000: about [0.0054, 0.0183].
	low, high, err = calibrate.Interval(10, 1000, 0.95)
	require.NoError(t, err)
	assert.InDelta(t, 0.00544, low, 0.0001)
	assert.InDelta(t, 0.01831, high, 0.0001)
	_, _, err = calibrate.Interval(3, 2, 0.95)
	assert.ErrorContains(t, err, "want 0 <= x <= n")
	_, _, err = calibrate.Interval(1, 2, 1)
	assert.ErrorContains(t, err, "confidence")
	assert.Equal(t, calibrate.Counts{}, calibrate.Resample(nil, calibrate.Comparison{Rounds: 6}, 10, report.DefaultChangeRule(), 1), "no rounds, no comparison")
}

// RunsOf pairs each round of build A with the same round of build B, figure by figure, from a
// real result file given a build B whose main latencies are A's × 1.1.
func TestRunsOfPairsTheRoundsOfAnABRun(t *testing.T) {
	rep, err := report.ReadReport(filepath.Join("..", "..", "reports", "v1.17.5", "service_invocation", "http", "result.json"))
	require.NoError(t, err)
	_, err = calibrate.RunsOf(rep)
	require.ErrorContains(t, err, "is no A/B run")

	ab := &perf.ABReport{B: perf.Build{Version: "1.17.5", InjectedDelaySeconds: 0.0005}}
	for _, rd := range rep.Rounds {
		b := rd
		b.Main.Latency.Percentiles = nil
		for _, q := range rd.Main.Latency.Percentiles {
			q.Seconds *= 1.1
			b.Main.Latency.Percentiles = append(b.Main.Latency.Percentiles, q)
		}
		ab.Rounds = append(ab.Rounds, b)
	}
	rep.AB = ab
	byFigure, err := calibrate.RunsOf(rep)
	require.NoError(t, err)
	p90, ok := byFigure["latency p90"]
	require.True(t, ok, "figures: %v", byFigure)
	require.Len(t, p90.Pairs, len(rep.Rounds))
	assert.Equal(t, 0.0005, p90.InjectedDelay)
	assert.Equal(t, rep.RunID, p90.ID)
	for i, p := range p90.Pairs {
		want, err := rep.Rounds[i].Main.Percentile(90)
		require.NoError(t, err)
		assert.InDelta(t, want.Seconds(), p.A, 1e-12, "round %d: A is build A's p90", i)
		assert.InDelta(t, 1.1*p.A, p.B, 1e-6, "round %d: B is build B's", i)
	}
}

func TestSixPairedRoundsCannotDecideButSixAgainstSixCan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	aa := runs(rng, 20, 6, 0)
	rule := report.DefaultChangeRule()
	// The sign test's 99 % interval of a median needs 8 pairs: at 6 no change is ever called.
	_, ok := calibrate.MDE(aa, calibrate.Comparison{Rounds: 6}, 300, rule, 1, 0.8)
	assert.False(t, ok, "6 paired rounds decide nothing at 99 %%")
	// Mann–Whitney's 99 % interval is there at 6 against 6; the shared drift (10 %) is noise to
	// it, so it needs a larger change than the pairs do at 8 rounds.
	unpaired, ok := calibrate.MDE(aa, calibrate.Comparison{Rounds: 6, Unpaired: true}, 300, rule, 1, 0.8)
	require.True(t, ok)
	paired8, ok := calibrate.MDE(aa, calibrate.Comparison{Rounds: 8}, 300, rule, 1, 0.8)
	require.True(t, ok)
	t.Logf("MDE at 80 %% power: paired, 8 rounds %.0f %%; unpaired, 6 against 6 %.0f %%", 100*paired8, 100*unpaired)
	// B − A has 4 % × √2 noise per round; all 8 signs positive with chance 0.8 needs
	// P(d > 0) >= 0.8^(1/8) = 0.972, about 1.9 σ: 11 % for normal noise, more from the
	// heavier tails of 120 pooled rounds.
	assert.GreaterOrEqual(t, paired8, 0.09)
	assert.LessOrEqual(t, paired8, 0.20)
	assert.Greater(t, unpaired, paired8)
}

func TestAdaptiveComparisonsStopAtTheirBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	aa := runs(rng, 20, 6, 0)
	rule := report.DefaultChangeRule()
	adaptive := calibrate.Comparison{Rounds: 6, Budget: 16}
	assert.Equal(t, "paired, 6 to 16 rounds", adaptive.String())
	c := calibrate.Resample(aa, adaptive, 1000, rule, 3)
	require.Equal(t, 1000, c.N)
	assert.LessOrEqual(t, c.Rate(c.FalseAlarms()), 0.01, "Bonferroni over the looks keeps A/A alarms within 1 %%: %+v", c)
	assert.Equal(t, c.N, c.FalseAlarms()+c.Same+c.Undecided)
	assert.Positive(t, c.Same, "some comparisons end same before the budget")
	assert.Positive(t, c.Undecided, "some are still undecided at 16 rounds, and stop there")
	slowed := calibrate.Resample(aa, calibrate.Comparison{Rounds: 6, Budget: 16, Shift: 0.3}, 1000, rule, 3)
	assert.GreaterOrEqual(t, slowed.Rate(slowed.Regressed), 0.95, "a 30 %% change is caught within the budget")
}

func TestShiftIsTheMedianDifferenceAndItsShareOfA(t *testing.T) {
	runs := []calibrate.Run{
		{ID: "one", Pairs: []calibrate.Pair{{A: 10, B: 11}, {A: 12, B: 15}}},
		{ID: "two", Pairs: []calibrate.Pair{{A: 8, B: 10}}},
	}
	diff, rel := calibrate.Shift(runs)
	assert.InDelta(t, 2, diff, 1e-12, "differences 1, 3 and 2")
	assert.InDelta(t, 0.2, rel, 1e-12, "of A's median, 10")
	diff, rel = calibrate.Shift(nil)
	assert.Zero(t, diff)
	assert.Zero(t, rel)
	_, rel = calibrate.Shift([]calibrate.Run{{Pairs: []calibrate.Pair{{A: 0, B: 1}}}})
	assert.Zero(t, rel, "no share of a zero median")
}
