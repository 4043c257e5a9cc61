package faults

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidate(t *testing.T) {
	for _, o := range []Options{{}, {FailFraction: 1}, {FailFraction: 0.5, Delay: time.Second}} {
		assert.NoError(t, o.Validate(), "%+v", o)
	}
	for _, tc := range []struct {
		o    Options
		want []string
	}{
		{Options{FailFraction: -0.1}, []string{"FailFraction", "-0.1", "[0, 1]"}},
		{Options{FailFraction: 1.5}, []string{"FailFraction", "1.5", "[0, 1]"}},
		{Options{FailFraction: math.NaN()}, []string{"FailFraction", "NaN"}},
		{Options{Delay: -time.Millisecond}, []string{"Delay", "-1ms", ">= 0"}},
		{Options{FailFraction: 2, Delay: -1}, []string{"FailFraction", "Delay"}},
	} {
		err := tc.o.Validate()
		require.Error(t, err, "%+v", tc.o)
		for _, w := range tc.want {
			assert.Contains(t, err.Error(), w)
		}
	}
}

func TestNewPanicsOnInvalid(t *testing.T) {
	assert.PanicsWithValue(t, "faults: invalid FailFraction 2: must be in [0, 1]", func() { New(Options{FailFraction: 2}) })
}

func TestNextExactFraction(t *testing.T) {
	for _, tc := range []struct {
		f     float64
		n     int
		fails int
	}{
		{0, 1000, 0},
		{1, 1000, 1000},
		{0.1, 1000, 100},
		{0.5, 1000, 500},
		{0.01, 1000, 10},
		{0.3, 1000, 300},
		{1.0 / 3, 999, 333},
		{0.001, 999, 0},
	} {
		in := New(Options{FailFraction: tc.f})
		fails := 0
		for range tc.n {
			if in.Next().Fail {
				fails++
			}
		}
		assert.Equal(t, tc.fails, fails, "f=%v n=%d", tc.f, tc.n)
		assert.Equal(t, uint64(tc.n), in.Count())
	}
}

func TestNextTenPercentIsEveryTenth(t *testing.T) {
	in := New(Options{FailFraction: 0.1})
	for n := 1; n <= 100; n++ {
		assert.Equal(t, n%10 == 0, in.Next().Fail, "request %d", n)
	}
}

func TestNextConcurrent(t *testing.T) {
	in := New(Options{FailFraction: 0.25})
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		fails int
	)
	for range 8 {
		wg.Go(func() {
			local := 0
			for range 500 {
				if in.Next().Fail {
					local++
				}
			}
			mu.Lock()
			fails += local
			mu.Unlock()
		})
	}
	wg.Wait()
	assert.Equal(t, 1000, fails)
}

func TestWait(t *testing.T) {
	assert.NoError(t, New(Options{}).Next().Wait(t.Context()))

	in := New(Options{Delay: 2 * time.Millisecond})
	start := time.Now()
	require.NoError(t, in.Next().Wait(t.Context()))
	assert.GreaterOrEqual(t, time.Since(start), 2*time.Millisecond)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	start = time.Now()
	err := New(Options{Delay: time.Hour}).Next().Wait(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), time.Second)
}

func TestSlowFractionWaitsTheSlowDelay(t *testing.T) {
	in := New(Options{Delay: 0, SlowFraction: 0.5, SlowDelay: 3 * time.Millisecond})
	for n := 1; n <= 4; n++ {
		start := time.Now()
		require.NoError(t, in.Next().Wait(t.Context()))
		took := time.Since(start)
		if n%2 == 0 {
			assert.GreaterOrEqual(t, took, 3*time.Millisecond, "request %d is slow", n)
		} else {
			assert.Less(t, took, 2*time.Millisecond, "request %d is not", n)
		}
	}
}

func TestStallHoldsEveryAnswerUntilItEnds(t *testing.T) {
	in := New(Options{StallAt: 2, Stall: 50 * time.Millisecond})
	first := in.Next() // before the stall, but answered during it: held too
	start := time.Now()
	second := in.Next() // starts the stall
	require.NoError(t, first.Wait(t.Context()))
	assert.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond, "an answer in flight waits for the stall's end")
	require.NoError(t, second.Wait(t.Context()))
	after := time.Now()
	require.NoError(t, in.Next().Wait(t.Context()))
	assert.Less(t, time.Since(after), 5*time.Millisecond, "after the stall, answers are immediate")
}

func TestValidateNamesEveryNewField(t *testing.T) {
	err := Options{SlowFraction: 2, SlowDelay: -1, Stall: -1}.Validate()
	require.Error(t, err)
	for _, field := range []string{"SlowFraction", "SlowDelay", "Stall"} {
		assert.ErrorContains(t, err, field)
	}
}
