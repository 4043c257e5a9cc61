package workflowapp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/dapr/durabletask-go/api/protos"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPartsCoverTheSeries: the five ranges Dapr's app sums cover 1..n exactly once, also when
// n is not a multiple of 5, so the workflows' check n(n+1)/2 holds only for a correct sum.
func TestPartsCoverTheSeries(t *testing.T) {
	for _, n := range []int64{5, 7, 100, 101, 999} {
		var total int64
		next := int64(1)
		for _, p := range parts(n) {
			require.Equal(t, next, p[0], "n=%d: ranges %v", n, parts(n))
			require.GreaterOrEqual(t, p[1], p[0]-1)
			for i := p[0]; i <= p[1]; i++ {
				total += i
			}
			next = p[1] + 1
		}
		assert.Equal(t, n+1, next, "n=%d: last range ends at n", n)
		assert.NoError(t, checkSum(n, total))
	}
	assert.ErrorContains(t, checkSum(100, 5049), "want 5050")
}

// fakeActivity is an ActivityContext with an input.
type fakeActivity struct{ in []byte }

func (f fakeActivity) GetInput(v any) error { return json.Unmarshal(f.in, v) }
func (fakeActivity) GetTaskID() int32       { return 1 }
func (fakeActivity) GetTaskExecutionID() string {
	return "x"
}
func (fakeActivity) Context() context.Context              { return context.Background() }
func (fakeActivity) GetTraceContext() *protos.TraceContext { return nil }

func TestSumActivity(t *testing.T) {
	out, err := sumActivity(fakeActivity{in: []byte(`[21,40]`)})
	require.NoError(t, err)
	assert.Equal(t, int64(610), out) // 21+...+40
	_, err = sumActivity(fakeActivity{in: []byte(`"1,2"`)})
	assert.ErrorContains(t, err, "sum_activity input")
}

func TestValidInput(t *testing.T) {
	for _, ok := range [][2]string{{SumSeries, "100"}, {SumParallel, "5"}, {State, "100000"}, {Delay, "0"}, {Delay, "5000"}} {
		assert.NoError(t, validInput(ok[0], ok[1]), ok)
	}
	for _, bad := range [][2]string{{SumSeries, "4"}, {SumSeries, "x"}, {State, "0"}, {State, "99999999"}, {Delay, "-1"}, {Delay, "600001"}, {"other_wf", "1"}} {
		err := validInput(bad[0], bad[1])
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), bad[0])
	}
}

func TestNewNeedsAConnection(t *testing.T) {
	_, err := New(Options{})
	assert.ErrorContains(t, err, "Options.Conn")
}
