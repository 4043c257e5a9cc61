package plan

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// searchRate runs one rateSearch, as the searches did before they took turns: probe runs load n of the search (from 1) at qps. A probe's
// error ends the search with what it has, and is returned.
func searchRate(start, top int, resolution float64, probe func(step, qps int) (perf.CurveProbe, error)) (perf.RateSearch, error) {
	rs, err := interleavedSearches(1, start, top, resolution, func(_, step, qps int) (perf.CurveProbe, error) { return probe(step, qps) })
	return rs[0], err
}

// capacity is a probe of a machine that keeps the bound up to max requests/s.
func capacity(max int, offered *[]int) func(step, qps int) (perf.CurveProbe, error) {
	return func(_, qps int) (perf.CurveProbe, error) {
		*offered = append(*offered, qps)
		return perf.CurveProbe{OfferedQPS: qps, Pass: qps <= max}, nil
	}
}

func TestSearchRateDoublesThenHalvesToTheResolution(t *testing.T) {
	for _, max := range []int{260, 999, 1234, 3000, 7777} {
		var offered []int
		s, err := searchRate(250, perf.MaxQPS, 0.02, capacity(max, &offered))
		require.NoError(t, err)
		assert.LessOrEqual(t, s.HighestQPS, max, "never above the capacity")
		assert.GreaterOrEqual(t, float64(s.HighestQPS), 0.98*float64(max), "within 2 %% below it: %v", offered)
		assert.Len(t, s.Steps, len(offered))
		assert.Less(t, len(offered), 40, "doubling then halving, two loads a rate: %v", offered)
	}
	var offered []int
	s, _ := searchRate(250, perf.MaxQPS, 0.02, capacity(1234, &offered))
	assert.Equal(t, []int{250, 250, 500, 500, 1000, 1000, 2000, 2000, 1500, 1500, 1250, 1250, 1125, 1125, 1187, 1187, 1218, 1218, 1234, 1234,
		1234, 1234, 1250, 1250}, offered, "two loads alike settle a rate; the bracket's ends are judged again")
	assert.Equal(t, 1234, s.HighestQPS)
	assert.Equal(t, "1234 requests/s passed and 1250 failed, within 2 %, each judged twice", s.Reason)
}

// One load that misses the bound at a rate the machine keeps (a stall) does not fail the rate,
// nor one that keeps it by chance above what the machine keeps pass it: the majority of three
// loads decides.
func TestSearchRateTakesTheMajorityOfThreeLoads(t *testing.T) {
	var offered []int
	loads := map[int]int{}
	s, err := searchRate(250, 1000, 0.02, func(_, qps int) (perf.CurveProbe, error) {
		offered = append(offered, qps)
		loads[qps]++
		switch {
		case qps == 250 && loads[qps] == 1: // the first load stalls
			return perf.CurveProbe{OfferedQPS: qps, Why: "stalled"}, nil
		case qps == 1000 && loads[qps] == 2: // a lucky load above the capacity
			return perf.CurveProbe{OfferedQPS: qps, Pass: true}, nil
		}
		return perf.CurveProbe{OfferedQPS: qps, Pass: qps <= 600}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int{250, 250, 250, 500, 500, 1000, 1000, 1000, 750, 750, 625, 625, 562, 562, 593, 593, 609, 609, 601, 601,
		593, 593, 601, 601}, offered)
	assert.Equal(t, 593, s.HighestQPS)
	assert.Equal(t, "593 requests/s passed and 601 failed, within 2 %, each judged twice", s.Reason)
	assert.Len(t, s.Steps, len(offered), "every load recorded")

	offered = nil
	s, err = searchRate(250, 1000, 0.02, func(_, qps int) (perf.CurveProbe, error) {
		offered = append(offered, qps)
		return perf.CurveProbe{OfferedQPS: qps, Pass: len(offered) == 2, Why: "p99 40 ms"}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int{250, 250, 250, 250, 250}, offered, "one pass in three is a fail, and two fails more confirm it")
	assert.Equal(t, "the first rate, 250 requests/s, did not keep the bound in most of its loads, judged twice: p99 40 ms", s.Reason)
}

// A lucky verdict above the knee does not hold the search there: the bracket's lower end is
// judged again, and when it fails the search goes back below it. Here the machine keeps 1,800
// requests/s, but the first two loads at 2,000 and two of three at 2,031 pass by chance.
func TestSearchRateJudgesTheBracketsEndsAgain(t *testing.T) {
	loads := map[int]int{}
	var offered []int
	s, err := searchRate(250, perf.MaxQPS, 0.02, func(_, qps int) (perf.CurveProbe, error) {
		offered = append(offered, qps)
		loads[qps]++
		lucky := qps == 2000 && loads[qps] <= 2 || qps == 2031 && (loads[qps] == 2 || loads[qps] == 3)
		return perf.CurveProbe{OfferedQPS: qps, Pass: qps <= 1800 || lucky, Why: "p99 40 ms"}, nil
	})
	require.NoError(t, err)
	assert.LessOrEqual(t, s.HighestQPS, 1800, "never above what the machine keeps: %v", offered)
	assert.GreaterOrEqual(t, float64(s.HighestQPS), 0.98*1800, "within 2 %% below it: %v", offered)
	assert.Contains(t, s.Reason, "each judged twice")
	assert.Equal(t, 5, loads[2031], "2,031: three loads, then two that fail it")
	assert.Equal(t, 4, loads[2000], "2,000: two lucky loads, then two that fail it")
	assert.Less(t, len(offered), maxSearchSteps)
}

func TestSearchRateEnds(t *testing.T) {
	var offered []int
	s, err := searchRate(250, 600, 0.02, capacity(5000, &offered))
	require.NoError(t, err)
	assert.Equal(t, []int{250, 250, 500, 500, 600, 600}, offered, "no rate above the top; no knee to judge again")
	assert.Equal(t, 600, s.HighestQPS)
	assert.Contains(t, s.Reason, "every rate up to the highest offered, 600 requests/s, kept the bound")

	offered = nil
	s, err = searchRate(250, perf.MaxQPS, 0.02, capacity(100, &offered))
	require.NoError(t, err)
	assert.Equal(t, []int{250, 250, 250, 250}, offered)
	assert.Equal(t, 0, s.HighestQPS)
	assert.Contains(t, s.Reason, "the first rate, 250 requests/s, did not keep the bound")

	boom := errors.New("tester gone")
	s, err = searchRate(250, perf.MaxQPS, 0.02, func(step, qps int) (perf.CurveProbe, error) {
		if step == 5 {
			return perf.CurveProbe{}, boom
		}
		return perf.CurveProbe{OfferedQPS: qps, Pass: true}, nil
	})
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, 500, s.HighestQPS, "what it had before the error")
	assert.Len(t, s.Steps, 4)
}

func curveScenario(cp *CurvePlan) perf.Scenario {
	return perf.Scenario{Test: "curve", Transport: perf.HTTP, Tester: "tester", Main: perf.Route{To: "app", ThroughSidecar: true},
		MainOptions: []perf.Option{perf.WithConnections(16)}, WarmupOptions: []perf.Option{perf.WithQPS(10), perf.WithDuration(time.Second)},
		Plan: cp}
}

func goodCurve() *CurvePlan {
	return &CurvePlan{Rates: []int{100, 500, 1000}, Rounds: 5, Duration: 10 * time.Second, P99: 25 * time.Millisecond, BoundSource: "test",
		Searches: 3, SearchStart: 250, Resolution: 0.02}
}

func TestCurvePlanConfigure(t *testing.T) {
	sc := curveScenario(goodCurve())
	var cfg perf.RunConfig
	r := mustConfigure(t, planOf(sc), sc, &cfg).(*curveRun)
	assert.Equal(t, []int{100, 500, 1000}, r.Rates)
	assert.Equal(t, 10*time.Second, r.load.Duration)
	assert.Equal(t, 16, r.load.Connections)
	assert.Equal(t, 0.99, r.KeptRatio, "0 reads as 0.99")
	assert.Equal(t, perf.MaxQPS, r.maxQPS)
	assert.Len(t, r.Steps(sc, cfg), 1+3+1, "the warmup, three rates, the searches taking turns")

	t.Setenv(perf.EnvQPS, "600")
	t.Setenv(perf.EnvDuration, "2s")
	t.Setenv(perf.EnvRepeats, "2")
	t.Setenv(perf.EnvCurveP99, "40ms")
	r = mustConfigure(t, planOf(sc), sc, &cfg).(*curveRun)
	assert.Equal(t, []int{100, 500, 600}, r.Rates, "DAPR_PERF_QPS caps the rates and is offered itself")
	assert.Equal(t, 600, r.maxQPS)
	assert.Equal(t, 250, r.SearchStart)
	assert.Equal(t, 2*time.Second, r.load.Duration)
	assert.Equal(t, 2, r.Rounds)
	assert.Equal(t, perf.CurveBound{P99Seconds: 0.04, KeptRatio: 0.99, Source: perf.EnvCurveP99}, r.bound())
	assert.Equal(t, []int{100, 500, 1000}, sc.Plan.(*CurvePlan).Rates, "the plan value is never written")
}

func TestCurvePlanErrorsNameTheField(t *testing.T) {
	bad := &CurvePlan{Rates: []int{500, 100}, Rounds: 0, Duration: time.Millisecond, Searches: 1, Resolution: 2}
	sc := curveScenario(bad)
	err := configureErr(planOf(sc), sc, &perf.RunConfig{})
	require.Error(t, err)
	for _, w := range []string{"Rates[1] = 100: must be from 1 to", "Rounds = 0: must be at least 1", "P99 = 0s, BoundSource = \"\"",
		"Searches = 1, SearchStart = 0, Resolution = 2", "Duration = 1ms: must be at least"} {
		assert.Contains(t, err.Error(), w)
	}
	empty := curveScenario(&CurvePlan{Rounds: 1, Duration: time.Second, P99: time.Second, BoundSource: "x"})
	assert.ErrorContains(t, configureErr(planOf(empty), empty, &perf.RunConfig{}), "Rates is empty")
}

// Searches take turns, one load each, so a machine that slows over the run slows all of them
// alike: run one after another on a machine whose capacity falls by 3 requests/s with every
// load (a sixth over the run), three searches give answers more than 5 % apart; taking turns,
// within 5 %.
func TestInterleavedSearchesSeeTheSameMachine(t *testing.T) {
	drifting := func(loads *int, order *[]int) func(search, step, qps int) (perf.CurveProbe, error) {
		return func(search, _, qps int) (perf.CurveProbe, error) {
			*loads++
			*order = append(*order, search)
			capacity := 3000 - 3**loads // 3,000 requests/s at first, 3 less with each load
			return perf.CurveProbe{OfferedQPS: qps, Pass: qps <= capacity}, nil
		}
	}
	spread := func(ss []perf.RateSearch) float64 {
		lo, hi := ss[0].HighestQPS, ss[0].HighestQPS
		for _, s := range ss {
			lo, hi = min(lo, s.HighestQPS), max(hi, s.HighestQPS)
		}
		return float64(hi-lo) / float64(lo)
	}

	var loads int
	var order []int
	var oneByOne []perf.RateSearch
	for i := range 3 {
		s, err := searchRate(250, perf.MaxQPS, 0.02, func(step, qps int) (perf.CurveProbe, error) {
			return drifting(&loads, &order)(i+1, step, qps)
		})
		require.NoError(t, err)
		oneByOne = append(oneByOne, s)
	}
	assert.Greater(t, spread(oneByOne), 0.05, "one after another, the drift decides: %+v", oneByOne)

	loads, order = 0, nil
	turns, err := interleavedSearches(3, 250, perf.MaxQPS, 0.02, drifting(&loads, &order))
	require.NoError(t, err)
	require.Len(t, turns, 3)
	assert.LessOrEqual(t, spread(turns), 0.05, "taking turns: %+v", turns)
	assert.Equal(t, []int{1, 2, 3, 1, 2, 3}, order[:6], "one load of each in turn")
	total := 0
	for _, s := range turns {
		assert.Contains(t, s.Reason, "within 2 %")
		total += len(s.Steps)
	}
	assert.Equal(t, loads, total, "every load recorded in its own search")
}

// A load's error ends every search with what it has, and is returned.
func TestInterleavedSearchesStopTogether(t *testing.T) {
	boom := errors.New("tester gone")
	n := 0
	ss, err := interleavedSearches(2, 250, perf.MaxQPS, 0.02, func(search, step, qps int) (perf.CurveProbe, error) {
		if n++; n == 7 {
			return perf.CurveProbe{}, boom
		}
		return perf.CurveProbe{OfferedQPS: qps, Pass: true}, nil
	})
	require.ErrorIs(t, err, boom)
	require.Len(t, ss, 2)
	for i, s := range ss {
		assert.Equal(t, 250, s.HighestQPS, "search %d: 250 passed, 500 had one load of its two, before the error", i+1)
		assert.Equal(t, "stopped by an error: tester gone", s.Reason)
	}
	assert.Len(t, ss[0].Steps, 3)
	assert.Len(t, ss[1].Steps, 3)
}
