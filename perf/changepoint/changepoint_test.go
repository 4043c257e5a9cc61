package changepoint

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// synthetic is a generated series and the indices of its true change points.
type synthetic struct {
	series  []Point
	changes []int
	steps   []float64 // log of each step's ratio
	noise   float64
	rounds  int
}

// minSNR is the smallest step of s over the standard error of the difference of the means of
// its two neighbouring segments, by the generator's own noise: each run's median varies by
// π/(2·rounds)·σ² from its rounds and by (σ/4)² from the run effect.
func (s synthetic) minSNR() float64 {
	v := math.Pi/(2*float64(s.rounds))*s.noise*s.noise + s.noise*s.noise/16
	out := math.Inf(1)
	for i, c := range s.changes {
		lo, hi := 0, len(s.series)
		if i > 0 {
			lo = s.changes[i-1]
		}
		if i+1 < len(s.changes) {
			hi = s.changes[i+1]
		}
		se := math.Sqrt(v/float64(c-lo) + v/float64(hi-c))
		out = min(out, math.Abs(s.steps[i])/se)
	}
	return out
}

// genConfig bounds the synthetic series: per-round log-normal noise of noiseLo to noiseHi
// (sigma of the log), each run's level moved by a log-normal run effect of a quarter of that,
// one run in ten with rounds three times noisier, rounds per run roundsLo to roundsHi,
// steps of stepLo to stepHi up or down, segments of at least minSeg runs.
type genConfig struct {
	lengthLo, lengthHi int
	changesLo, changes int
	noiseLo, noiseHi   float64
	roundsLo, roundsHi int
	stepLo, stepHi     float64
	minSeg             int
}

var realistic = genConfig{
	lengthLo: 20, lengthHi: 100, changesLo: 1, changes: 3,
	noiseLo: 0.05, noiseHi: 0.20, roundsLo: 3, roundsHi: 12,
	stepLo: 0.10, stepHi: 0.40, minSeg: 6,
}

func uniform(rng *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }

func generate(rng *rand.Rand, g genConfig) synthetic {
	n := g.lengthLo + rng.IntN(g.lengthHi-g.lengthLo+1)
	k := g.changesLo + rng.IntN(g.changes-g.changesLo+1)
	k = min(k, n/g.minSeg-1)
	// k+1 segments of minSeg runs each, and the runs left over dealt to them at random
	seg := make([]int, k+1)
	for i := range seg {
		seg[i] = g.minSeg
	}
	for range n - (k+1)*g.minSeg {
		seg[rng.IntN(k+1)]++
	}
	var changes []int
	at := 0
	for _, l := range seg[:k] {
		at += l
		changes = append(changes, at)
	}
	s := synthetic{
		changes: changes,
		noise:   uniform(rng, g.noiseLo, g.noiseHi),
		rounds:  g.roundsLo + rng.IntN(g.roundsHi-g.roundsLo+1),
	}
	level, next := 1.5e-3, 0 // seconds, a p90 overhead
	for i := range n {
		if next < len(changes) && i == changes[next] {
			step := 1 + uniform(rng, g.stepLo, g.stepHi)
			if rng.IntN(2) == 0 {
				step = 1 / step
			}
			level *= step
			s.steps = append(s.steps, math.Log(step))
			next++
		}
		sigma := s.noise
		if rng.IntN(10) == 0 {
			sigma *= 3
		}
		run := level * math.Exp(rng.NormFloat64()*s.noise/4)
		vals := make([]float64, s.rounds)
		for j := range vals {
			vals[j] = run * math.Exp(rng.NormFloat64()*sigma)
		}
		s.series = append(s.series, Point{Values: vals})
	}
	return s
}

func abs(x int) int { return max(x, -x) }

// score matches detected to true change points one to one, within tol runs.
func score(found []ChangePoint, truth []int, tol int) (tp, fp, fn int) {
	used := make([]bool, len(truth))
	for _, c := range found {
		hit := false
		for j, x := range truth {
			if !used[j] && abs(c.Index-x) <= tol {
				used[j], hit = true, true
				break
			}
		}
		if hit {
			tp++
		} else {
			fp++
		}
	}
	return tp, fp, len(truth) - tp
}

// f1 runs Detect on count series from generate(rng, g) whose every step is at least snr
// standard errors (minSNR), and returns the F1 score, a detection counting within ±1 run.
func f1(t *testing.T, rng *rand.Rand, g genConfig, count int, snr float64) (f float64, tp, fp, fn int) {
	t.Helper()
	for done := 0; done < count; {
		s := generate(rng, g)
		if s.minSNR() < snr {
			continue
		}
		done++
		got, err := Detect(s.series, DefaultOptions())
		require.NoError(t, err)
		a, b, c := score(got, s.changes, 1)
		tp, fp, fn = tp+a, fp+b, fn+c
	}
	return 2 * float64(tp) / float64(2*tp+fp+fn), tp, fp, fn
}

// TestSyntheticF1 scores Detect on 120 generated series whose every step is at least 6
// standard errors: the steps Detect is meant to find (α = 0.001 over a search of up to 50
// runs calls for about 4 standard errors, and 6 for most of them to pass). It also logs the
// score over series drawn from the whole ranges, where some steps are within the noise.
func TestSyntheticF1(t *testing.T) {
	rng := rand.New(rand.NewPCG(2020, 3358960))
	f, tp, fp, fn := f1(t, rng, realistic, 120, 6)
	t.Logf("F1 %.3f over 120 series with every step >= 6 standard errors: %d found, %d false, %d missed", f, tp, fp, fn)
	assert.GreaterOrEqual(t, f, 0.9)
	all, tp, fp, fn := f1(t, rng, realistic, 120, 0)
	t.Logf("F1 %.3f over 120 series from the whole ranges: %d found, %d false, %d missed", all, tp, fp, fn)
	assert.GreaterOrEqual(t, all, 0.75)
}

func TestNoAlarmOnFlatSeries(t *testing.T) {
	rng := rand.New(rand.NewPCG(2014, 109505))
	flat := realistic
	flat.changesLo, flat.changes = 0, 0
	alarms := 0
	for range 50 {
		s := generate(rng, flat)
		require.Empty(t, s.changes)
		got, err := Detect(s.series, DefaultOptions())
		require.NoError(t, err)
		if len(got) > 0 {
			t.Logf("n=%d noise=%.2f rounds=%d: %v", len(s.series), s.noise, s.rounds, indices(got))
		}
		alarms += len(got)
	}
	t.Logf("%d change points over 50 flat series", alarms)
	assert.Zero(t, alarms)
}

// spread are the per-round deviations of a run, in units of its noise: symmetric around 0, so
// that a run's median is exactly its level, whatever the noise.
var spread = []float64{-1.5, -0.8, -0.3, 0, 0.3, 0.8, 1.5}

// runAt is a run of median level whose 7 rounds scatter by log-normal sigma.
func runAt(level, sigma float64) Point {
	vals := make([]float64, len(spread))
	for i, z := range spread {
		vals[i] = level * math.Exp(sigma*z)
	}
	return Point{Values: vals}
}

// levels are 30 run levels around 1.5 ms with a 2 % run-to-run effect.
func levels() []float64 {
	rng := rand.New(rand.NewPCG(30, 30))
	out := make([]float64, 30)
	for i := range out {
		out[i] = 1.5e-3 * math.Exp(0.02*rng.NormFloat64())
	}
	return out
}

func TestOneNoisyRunWeighsLessAndIsNoChange(t *testing.T) {
	lv := levels()
	var series []Point
	for i, l := range lv {
		if i == 15 {
			series = append(series, runAt(1.4*l, 0.8)) // +40 %, rounds from 0.3x to 3.3x
		} else {
			series = append(series, runAt(l, 0.05))
		}
	}
	got, err := Detect(series, DefaultOptions())
	require.NoError(t, err)
	assert.Empty(t, got)

	d := newDetector(series, DefaultOptions())
	assert.Less(t, d.w[15], d.w[14]/10, "the noisy run's weight against its neighbour's")
}

func TestShiftIsFoundWithTightRoundsOnly(t *testing.T) {
	lv := levels()
	build := func(sigmaAfter float64) []Point {
		var series []Point
		for i, l := range lv {
			if i >= 24 {
				series = append(series, runAt(1.25*l, sigmaAfter))
			} else {
				series = append(series, runAt(l, 0.05))
			}
		}
		return series
	}
	got, err := Detect(build(0.05), DefaultOptions())
	require.NoError(t, err)
	require.Len(t, got, 1)
	c := got[0]
	assert.Equal(t, 24, c.Index)
	assert.LessOrEqual(t, c.PValue, 0.001)
	assert.InDelta(t, 0.25, c.RelativeChange, 0.03)
	assert.InDelta(t, 1.5e-3, c.Before.Median, 0.05e-3)
	assert.InDelta(t, 1.25*1.5e-3, c.After.Median, 0.06e-3)
	assert.Equal(t, 24, c.Before.N)
	assert.Equal(t, 6, c.After.N)
	assert.LessOrEqual(t, c.Before.Low, c.Before.Median)
	assert.GreaterOrEqual(t, c.After.High, c.After.Median)

	// The same medians, but the last six runs' rounds scatter from 0.3x to 3.3x: six such runs
	// do not show a 25 % shift.
	got, err = Detect(build(0.8), DefaultOptions())
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestFloorDropsSmallChanges(t *testing.T) {
	lv := levels()
	var series []Point
	for i := range lv {
		l := 1.5e-3 * (1 + 0.001*float64(i%3)) // nearly no run effect
		if i >= 15 {
			l *= 1.015
		}
		series = append(series, runAt(l, 0.002))
	}
	got, err := Detect(series, DefaultOptions())
	require.NoError(t, err)
	assert.Empty(t, got, "a 1.5 %% step is under the 2 %% floor")

	opts := DefaultOptions()
	opts.MinRelativeChange = 0.01
	got, err = Detect(series, opts)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, 15, got[0].Index)
	assert.InDelta(t, 0.015, got[0].RelativeChange, 0.002)
}

func TestDeterministicGivenSeed(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	s := generate(rng, realistic)
	for i := range s.series {
		s.series[i].Label = fmt.Sprintf("run-%d", i)
	}
	a, err := Detect(s.series, DefaultOptions())
	require.NoError(t, err)
	b, err := Detect(s.series, DefaultOptions())
	require.NoError(t, err)
	assert.Equal(t, a, b)
	require.NotEmpty(t, a)
	assert.Equal(t, fmt.Sprintf("run-%d", a[0].Index), a[0].Label)
}

func TestBadInput(t *testing.T) {
	ok := []Point{{Values: []float64{1, 2}}}
	for _, tc := range []struct {
		name   string
		series []Point
		opts   func(*Options)
		want   string
	}{
		{"empty series", nil, nil, "series is empty"},
		{"no values", []Point{{Values: []float64{1}}, {}}, nil, "series[1].Values is empty"},
		{"NaN", []Point{{Values: []float64{1, math.NaN()}}}, nil, "series[0].Values[1] = NaN"},
		{"Inf", []Point{{Values: []float64{math.Inf(1)}}}, nil, "series[0].Values[0] = +Inf"},
		{"alpha", ok, func(o *Options) { o.Alpha = 0 }, "Options.Alpha = 0"},
		{"permutations", ok, func(o *Options) { o.Permutations = 99 }, "Options.Permutations = 99: want at least 999"},
		{"min segment", ok, func(o *Options) { o.MinSegment = 0 }, "Options.MinSegment = 0"},
		{"window", ok, func(o *Options) { o.Window = 5 }, "Options.Window = 5: want at least 2 x MinSegment = 6"},
		{"floor", ok, func(o *Options) { o.MinRelativeChange = -0.1 }, "Options.MinRelativeChange = -0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := DefaultOptions()
			if tc.opts != nil {
				tc.opts(&opts)
			}
			_, err := Detect(tc.series, opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// BenchmarkDetect200x12 is a nightly history at its longest: 200 runs of 12 rounds, 3 steps.
func BenchmarkDetect200x12(b *testing.B) {
	rng := rand.New(rand.NewPCG(200, 12))
	g := realistic
	g.lengthLo, g.lengthHi, g.roundsLo, g.roundsHi, g.changesLo = 200, 200, 12, 12, 3
	s := generate(rng, g)
	for b.Loop() {
		if _, err := Detect(s.series, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

func indices(cps []ChangePoint) []int {
	var out []int
	for _, c := range cps {
		out = append(out, c.Index)
	}
	return out
}
