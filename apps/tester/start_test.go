package tester

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// A shared start: none waits nothing, a past one starts at once, a near one is waited for,
// and one further than perf.MaxStartLead is refused, naming the field.
func TestStartAt(t *testing.T) {
	p := perf.DefaultParams()
	d, err := startWait(p)
	require.NoError(t, err)
	assert.Zero(t, d)

	p.StartAt = time.Now().Add(-time.Second)
	d, err = startWait(p)
	require.NoError(t, err)
	assert.Zero(t, d)

	p.StartAt = time.Now().Add(200 * time.Millisecond)
	require.NoError(t, waitStart(t.Context(), p))
	assert.False(t, time.Now().Before(p.StartAt), "waited until startAt")

	p.StartAt = time.Now().Add(perf.MaxStartLead + time.Minute)
	_, err = startWait(p)
	assert.ErrorContains(t, err, "startAt = ")
	assert.ErrorContains(t, err, "must be at most 1m0s after the tester's clock")

	p.StartAt = time.Now().Add(30 * time.Second)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorContains(t, waitStart(ctx, p), "cancelled while waiting for startAt")
}
