package local_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// TestKilledStoreDuringStateGet runs a short state_get_redis scenario over HTTP in a child test
// process: the setup seeds the key through daprd, the baseline reads it straight from Redis,
// and Redis is killed as the main phase (through daprd) starts. The child must fail, within
// its bounded run, with the unexpected exit of redis as a named verdict and the failed GETs
// counted; its result file must hold the baseline it measured and the exit; nothing of its
// run may still be running.
func TestKilledStoreDuringStateGet(t *testing.T) {
	if dir := os.Getenv("DAPRPERF_KILL_STORE_CHILD_DIR"); dir != "" {
		p, err := local.New(local.WithEnv(runner.EnvFor(t)), local.WithRunDirParent(dir), local.WithoutDaprdB())
		require.NoError(t, err)
		runner.Run(t, scenarios.StateGet(perf.HTTP, perf.StateRedis), runner.WithPlatform(killAtMain{p, "redis"}), runner.WithReportDir(dir))
		return
	}
	if testing.Short() {
		t.Skip("starts daprd and Redis")
	}
	newPlatform(t) // skips without daprd, as the child would
	dir := t.TempDir()
	start := time.Now()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestKilledStoreDuringStateGet$", "-test.v")
	cmd.Env = append(os.Environ(), "DAPRPERF_KILL_STORE_CHILD_DIR="+dir,
		"DAPR_TEST_DURATION=3s", "DAPR_PERF_QPS=100", "DAPR_PERF_WARMUP_DURATION=1s", "DAPR_PERF_REPEATS=1",
		"DAPR_PERF_OVERHEAD_GATE=warn", "DAPR_PERF_PREFLIGHT=off", "DAPR_PERF_IDLE_WINDOW=0s")
	out, err := cmd.CombinedOutput()
	assert.Less(t, time.Since(start), 2*time.Minute, "no hang")
	rep := killedRedisReport(t, dir, "state_get_redis", out, err)
	assert.Contains(t, string(out), "baseline: direct to the store (redis, its own protocol over TCP, not http)")
	assert.False(t, rep.Pass)
	var base, main *perf.Result
	if len(rep.Rounds) > 0 {
		base, main = &rep.Rounds[0].Baseline, &rep.Rounds[0].Main
	} else if rep.PartialRound != nil {
		base = &rep.PartialRound.Baseline
	}
	require.NotNil(t, base, "the baseline measured before the kill is kept:\n%s", out)
	assert.Zero(t, base.Errors(), "the direct baseline ran before the kill: codes %v", base.RetCodes)
	assert.Equal(t, perf.BackendRedis, base.Params.Operation.Direct)
	if main != nil {
		assert.NotZero(t, main.Errors(), "GETs through daprd after Redis died fail: codes %v", main.RetCodes)
	}
	assert.Empty(t, mentioning(t, dir), "processes of the child's run still running")
}

// TestStateStoreSettingsErrors: a state store the framework does not serve (state.etcd is in
// daprd's allcomponents build only), a version state.postgresql does not have, and a
// PostgreSQL port in use each fail the start before a load, naming what is wrong.
func TestStateStoreSettingsErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		comp perf.Component
		want string
	}{
		{"unknown store", perf.Component{Name: "statestore", Type: "state.etcd"}, `app tester: component statestore: unknown Type "state.etcd" (want one of `},
		{"unknown version", perf.Component{Name: "statestore", Type: perf.StatePostgreSQL, Version: "v3"}, `component statestore: Version "v3" of state.postgresql (want v2 or v1, or "" for v2)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolated(t, func(t *testing.T, p *local.Platform) {
				app := perf.App{Name: "tester", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{Components: []perf.Component{tc.comp}}}
				_, err := p.StartE(startCtx(t), t, app)
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
			})
		})
	}
	t.Run("postgresql port in use", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer func() { _ = ln.Close() }()
		taken := ln.Addr().(*net.TCPAddr).Port
		n := 0
		alloc := func() (int, error) { // the app, its daprd's five ports, then PostgreSQL's
			if n++; n == 7 {
				return taken, nil
			}
			return local.FreePort()
		}
		isolated(t, func(t *testing.T, p *local.Platform) {
			app := perf.App{Name: "app", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{Components: []perf.Component{{Name: "s", Type: perf.StatePostgreSQL}}}}
			_, err := p.StartE(startCtx(t), t, app)
			if err != nil && os.Getenv("CI") == "" && strings.Contains(err.Error(), local.ErrBackendMissing.Error()) {
				t.Skipf("skipping: %v", err)
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), fmt.Sprintf("postgresql: port 127.0.0.1:%d is in use", taken))
		}, local.WithPortAllocator(alloc))
	})
}
