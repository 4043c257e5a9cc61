package runner

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// usageDeployment is a perf.Deployment whose one process, "app", has used one CPU second more
// at each reading, with every third reading failing.
type usageDeployment struct {
	perf.Deployment
	reads atomic.Int64
}

func (d *usageDeployment) Processes() []string { return []string{"app"} }

func (d *usageDeployment) Usage(context.Context) (map[string]perf.Usage, error) {
	n := d.reads.Add(1)
	if n%3 == 0 {
		return nil, errors.New("no reading")
	}
	return map[string]perf.Usage{"app": {CPUSeconds: float64(n), RSSBytes: uint64(n) << 20}, "other": {}}, nil
}

// TestRecorderTurnsCPUSecondsIntoCores: the series has the process's role and a point per good
// reading, the first with no CPU (no interval yet), the failed readings come back as errors,
// and a process the deployment does not list is left out.
func TestRecorderTurnsCPUSecondsIntoCores(t *testing.T) {
	dep := &usageDeployment{}
	rec := startRecorder(t.Context(), dep, 50*time.Millisecond, map[string]string{"app": perf.RoleApp})
	time.Sleep(520 * time.Millisecond)
	series, errs := rec.stop()
	require.Len(t, series, 1)
	s := series[0]
	assert.Equal(t, "app", s.Process)
	assert.Equal(t, perf.RoleApp, s.Role)
	require.GreaterOrEqual(t, len(s.Points), 3)
	assert.Zero(t, s.Points[0].CPUCores, "the first reading has no interval")
	assert.Positive(t, s.Points[1].CPUCores)
	assert.NotEmpty(t, errs, "the failed readings")
	assert.Equal(t, uint64(1)<<20, s.Points[0].RSSBytes)
}
