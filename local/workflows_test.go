package local_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
)

// TestWorkflowApp starts the workflow app with its daprd, placement, scheduler and the
// in-memory actor and state stores, then runs each of Dapr's workflow shapes once through the
// app's start-and-wait endpoint: every one completes (200) with its check passed in the
// workflow (the series' and fan-out's sum, state_wf's read-back), delay_wf takes at least its
// delay, bad input is refused with 400 naming the workflow, and the app's counters agree.
func TestWorkflowApp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daprd, placement and scheduler")
	}
	isolated(t, func(t *testing.T, p *local.Platform) {
		// Dapr's app's own work, shortened: the sleeps are timed below, the cleanup counted.
		app := perf.App{Name: "workflowapp", Kind: perf.WorkflowApp, Args: []string{"-wait-delay", "200ms", "-state-sleep", "150ms", "-cleanup"}, Sidecar: &perf.Sidecar{
			AppProtocol: perf.HTTP, Scheduler: true, Components: []perf.Component{
				{Name: "statestore-actorstore", Type: perf.StateInMemory, Metadata: map[string]string{"actorStateStore": "true"}},
				{Name: "statestore", Type: perf.StateInMemory},
			}}}
		d, err := p.StartE(startCtx(t), t, app)
		require.NoError(t, err)
		base := endpoint(t, d, "workflowapp", perf.AppHTTP)

		// The worker connects after daprd is up: wait for it (bounded).
		deadline := time.Now().Add(20 * time.Second)
		for {
			code, _ := get(t, base+"/readyz")
			if code == http.StatusOK {
				break
			}
			require.True(t, time.Now().Before(deadline), "worker not connected to daprd within 20 s: /readyz %d", code)
			time.Sleep(100 * time.Millisecond)
		}

		for _, c := range []struct{ name, input string }{
			{"sum_series_wf", "100"}, {"sum_parallel_wf", "100"}, {"state_wf", "10000"}, {"delay_wf", "300"},
		} {
			start := time.Now()
			code, body := send(t, http.MethodPost, base+"/"+c.name, c.input)
			took := time.Since(start)
			require.Equal(t, http.StatusOK, code, "%s(%s): %s", c.name, c.input, body)
			assert.NotEmpty(t, strings.TrimSpace(body), "%s: the instance id", c.name)
			// The app's wait after starting runs while the workflow does, as in Dapr's app: a
			// request lasts the longer of the two.
			least := 200 * time.Millisecond
			switch c.name {
			case "delay_wf":
				least = max(least, 300*time.Millisecond)
			case "state_wf":
				least = max(least, 3*150*time.Millisecond) // three state activities
			}
			assert.GreaterOrEqual(t, took, least, "%s(%s) took %v", c.name, c.input, took)
			t.Logf("%s(%s): %v", c.name, c.input, took)
		}

		code, body := send(t, http.MethodPost, base+"/sum_series_wf", "four")
		assert.Equal(t, http.StatusBadRequest, code)
		assert.Contains(t, body, "sum_series_wf")
		code, body = send(t, http.MethodPost, base+"/no_such_wf", "1")
		assert.Equal(t, http.StatusBadRequest, code)
		assert.Contains(t, body, "unknown")

		code, body = get(t, base+"/stats")
		require.Equal(t, http.StatusOK, code, body)
		var st struct{ Completed, Failed, CleanupErrors int64 }
		require.NoError(t, json.Unmarshal([]byte(body), &st), body)
		assert.Equal(t, int64(4), st.Completed, body)
		assert.Zero(t, st.Failed, body)
		assert.Zero(t, st.CleanupErrors, "get, terminate and purge of a completed instance: %s", body)
	})
}
