package local_test

import (
	"errors"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
	"github.com/daprperf/daprperf/perf/testers"
)

// An A/A deployment (the same daprd as both builds) under DAPR_PERF_AB_DELAY: both builds'
// sidecar ports are proxies; a service invocation through build B's sidecars takes at least the
// delay, from this test and from the tester, and the build-B view says what was injected. The proxies and every process are gone
// after the deployment (isolated).
func TestABDelaySlowsBuildB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daprd twice per app")
	}
	daprd, err := local.Daprd(runner.EnvFor(t))
	if err != nil && os.Getenv("CI") == "" {
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	const delay = 40 * time.Millisecond
	d := delay
	env := runner.EnvFor(t)
	env.ABDelay = &d
	isolated(t, func(t *testing.T, p *local.Platform) {
		dep := p.Start(startCtx(t), t, withSidecar("caller", perf.Tester, perf.HTTP), withSidecar("callee", perf.HTTPApp, perf.HTTP))
		b, ok := perf.SideB(dep)
		require.True(t, ok, "an A/B deployment")
		slowed, ok := b.(perf.Slowed)
		require.True(t, ok, "build B's view says what was injected")
		assert.Equal(t, delay, slowed.InjectedDelay())
		// A hold never ends early, and at 40 ms a coarse timer adds at most a few milliseconds.
		assert.GreaterOrEqual(t, slowed.HeldDelay(), delay, "the measured hold")
		assert.Less(t, slowed.HeldDelay(), delay+20*time.Millisecond, "the measured hold")

		invoke := "/v1.0/invoke/callee/method/test"
		for _, side := range []struct {
			name string
			dep  perf.Deployment
		}{{"A", dep}, {"B", b}} {
			base := endpoint(t, side.dep, "caller", perf.SidecarHTTP)
			start := time.Now()
			code, _ := get(t, base+invoke)
			took := time.Since(start)
			assert.Equal(t, http.StatusOK, code, "build %s answers through its proxy", side.name)
			if side.name == "B" {
				assert.GreaterOrEqual(t, took, delay, "build B is held for the delay")
			}
		}

		// The tester loads build B through its proxy: the proxy is on its allow-list.
		group, err := testers.NewGroup(dep, []string{"caller"})
		require.NoError(t, err)
		load := perf.DefaultParams()
		load.Target = endpoint(t, b, "caller", perf.SidecarHTTP) + invoke
		load.QPS, load.Connections, load.Duration = 10, 2, 2*time.Second
		res, err := testers.RunLoad(t.Context(), group, load)
		require.NoError(t, err, "the tester may load build B's proxy")
		assert.EqualValues(t, 20, res.Requests)
		assert.Zero(t, res.Errors())
		assert.GreaterOrEqual(t, res.Latency.MinSeconds, delay.Seconds(), "every request held for the delay")
	}, local.WithDaprdB(daprd), local.WithEnv(env))
}

func TestABDelayNeedsASecondBuild(t *testing.T) {
	d := time.Millisecond
	env := runner.EnvFor(t)
	env.ABDelay, env.DaprdB = &d, nil
	_, err := local.New(local.WithEnv(env))
	if errors.Is(err, local.ErrDaprdNotFound) && os.Getenv("CI") == "" {
		t.Skipf("skipping: %v", err)
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "DAPR_PERF_AB_DELAY=1ms: a slowdown of build B needs an A/B run: set DAPR_PERF_DAPRD_B too")

	// A plan of one build (memory growth) has no build B: the delay does not apply there.
	_, err = local.New(local.WithEnv(env), local.WithoutDaprdB())
	require.NoError(t, err)
}
