package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/plan"
	"github.com/daprperf/daprperf/perf/runner"
)

// gate returns sc's bound on figure, failing when it has none.
func gate(t *testing.T, sc perf.Scenario, figure string) perf.Threshold {
	t.Helper()
	for _, th := range sc.Thresholds {
		if th.Figure == figure {
			return th
		}
	}
	t.Fatalf("%s/%s: no bound on %s", sc.Test, sc.Transport, figure)
	return perf.Threshold{}
}

// Every configuration scenario has its own result path, Dapr's bounds with their source, the
// load of its kind, a direct-to-Redis baseline (get) and a seed the tester's limits admit.
func TestConfigurationScenarios(t *testing.T) {
	paths := map[string]bool{}
	for _, tr := range []perf.Protocol{perf.HTTP, perf.GRPC} {
		for _, sc := range []perf.Scenario{ConfigurationGet(tr), ConfigurationGetRamp(tr), ConfigurationSubscribe(tr)} {
			path := sc.Test + "/" + string(sc.Transport)
			assert.False(t, paths[path], "result path %s used twice", path)
			paths[path] = true
			main, err := runner.EnvFor(t).MainParams(sc.MainOptions...)
			require.NoError(t, err, path)
			warm, err := runner.EnvFor(t).WarmupParams(sc.WarmupOptions...)
			require.NoError(t, err, path)
			assert.Equal(t, 0.0, gate(t, sc, "errors").Limit, path)
			assert.Equal(t, 0.0, gate(t, sc, "restarts").Limit, path)

			switch sc.Test {
			case "configuration_get", "configuration_get_ramp":
				assert.Equal(t, 0.060, gate(t, sc, "latency.mean").Limit, "%s: Dapr's get mean < 60 ms", path)
				assert.Contains(t, gate(t, sc, "latency.mean").Source, "tests/perf/configuration")
				if sc.Test == "configuration_get" { // ours: tester -> its daprd, tester -> Redis
					assert.Equal(t, perf.BaselineStore, sc.Baseline.Operation.BaselineKind(), path)
					assert.False(t, sc.Baseline.ThroughSidecar, path)
					assert.True(t, sc.Main.ThroughSidecar, path)
					assert.Equal(t, []string{ConfigKey}, sc.Main.Operation.Keys, path)
				} else { // Dapr's: the load asks the app, over HTTP, to read the key
					api := map[perf.Protocol]string{perf.HTTP: "http", perf.GRPC: "grpc"}[tr]
					assert.Equal(t, perf.Route{To: ConfigApp, Method: "configuration-get-baseline", Protocol: perf.HTTP}, sc.Baseline, path)
					assert.Equal(t, perf.Route{To: ConfigApp, Method: "configuration-get-dapr-" + api, Protocol: perf.HTTP}, sc.Main, path)
					require.Len(t, sc.Apps, 2, path)
					app := sc.Apps[1]
					assert.Equal(t, ConfigApp, app.Name, path)
					assert.Equal(t, perf.Subscriber, app.Kind, path)
					assert.Equal(t, []perf.Backend{perf.BackendRedis}, app.Backends, "%s: the baseline reads Redis itself", path)
					assert.Equal(t, []string{"-configuration-store", ConfigStoreName, "-configuration-get-keys", ConfigKey}, app.Args, path)
					assert.Contains(t, sc.AppWork, "over "+api, path)
				}
				require.Len(t, sc.Setup, 1, path)
				seed := sc.Setup[0]
				assert.Equal(t, perf.OpConfigurationSet, seed.Route.Operation.Kind, path)
				assert.Equal(t, ConfigKey, seed.Route.Operation.Key, path)
				sp, err := runner.EnvFor(t).MainParams(seed.Options...)
				require.NoError(t, err)
				assert.Equal(t, ConfigValue, sp.Payload)
				lim := perf.TesterLimitsFor(main, warm)
				assert.LessOrEqual(t, sp.QPS, lim.MaxQPS, "%s: the seed fits the tester's limits", path)
				assert.LessOrEqual(t, sp.Connections, lim.MaxConnections, path)
				assert.LessOrEqual(t, sp.Duration, lim.MaxDuration, path)
				if sc.Test == "configuration_get" {
					assert.Equal(t, [3]any{1000, 16, time.Minute}, [3]any{main.QPS, main.Connections, main.Duration}, path)
					assert.Equal(t, 0.99, gate(t, sc, "qps.ratio").Limit, path)
				} else {
					assert.Equal(t, driver.RampingVUs, main.Executor.Kind, path)
					assert.Equal(t, []driver.Stage{{Duration: 2 * time.Second, Target: 100}, {Duration: 3 * time.Second, Target: 300}, {Duration: 4 * time.Second, Target: 500}},
						main.Executor.Stages, "%s: Dapr's test.js stages", path)
					assert.Equal(t, 500, main.Executor.PeakVUs(), path)
					assert.Equal(t, 1000, lim.MaxConnections, "%s: 2 x 500 VUs", path)
				}
			case "configuration_subscribe":
				want := 0.450
				if tr == perf.GRPC {
					want = 0.350
				}
				mean := gate(t, sc, "latency.mean")
				assert.Equal(t, want, mean.Limit, path)
				assert.Equal(t, perf.Below, mean.Op, "%s: Dapr's avg<%v is strict", path, want)
				assert.Equal(t, 0.0, gate(t, sc, "delivery.lost").Limit, path)
				assert.Equal(t, 0.0, gate(t, sc, "delivery.duplicated").Limit, path)
				assert.Equal(t, driver.RampingVUs, main.Executor.Kind, path)
				assert.Equal(t, []driver.Stage{{Duration: 2 * time.Second, Target: 100}, {Duration: 3 * time.Second, Target: 300}, {Duration: 4 * time.Second, Target: 500}},
					main.Executor.Stages, "%s: Dapr's test.js stages", path)
				assert.Equal(t, ConfigUpdateBytes, main.PayloadBytes, path)
				assert.Equal(t, perf.OpConfigurationSet, sc.Main.Operation.Kind, path)
				assert.Contains(t, sc.Main.Operation.Key, perf.UUIDToken, "%s: one new key per update", path)
				dp, ok := sc.Plan.(*plan.DeliveryPlan)
				require.True(t, ok, path)
				assert.Equal(t, perf.SubscribeConfiguration, dp.Mode, path)
				assert.Equal(t, perf.DaprAwaitTimeout, dp.Await, "%s: each iteration waits for its notification, as k6's request", path)
				assert.True(t, dp.AwaitTimed, "%s: Dapr times the update and its wait", path)
				assert.Equal(t, []string{"-configuration-store", ConfigStoreName}, sc.Apps[1].Args, path)
				assert.Nil(t, sc.Apps[0].Sidecar, "%s: the tester writes straight to Redis", path)
			}
		}
	}
	assert.Len(t, paths, 6)
}

// DAPR_PERF_WORKFLOW_BACKEND picks the workflows' store; Dapr's DAPR_PERF_WORKFLOW_BACKEND_NAME
// is, as in Dapr's suite, a suffix of the workflow app's id, whatever the store; a bad value of
// either is an error naming the variable.
func TestWorkflowBackendFromEnv(t *testing.T) {
	for _, tc := range []struct{ ours, dapr, want, app, err string }{
		{want: "postgresql", app: "workflowapp"}, // Dapr's CI's store
		{ours: "redis", want: "redis", app: "workflowapp"},
		{dapr: "-actors", want: "postgresql", app: "workflowapp-actors"}, // Dapr's CI's suffix
		{ours: "in-memory", dapr: "-actors", want: "in-memory", app: "workflowapp-actors"},
		{ours: "cosmosdb", err: "DAPR_PERF_WORKFLOW_BACKEND="},
		{dapr: "_Actors", err: "DAPR_PERF_WORKFLOW_BACKEND_NAME"},
	} {
		t.Setenv(EnvWorkflowBackend, tc.ours)
		t.Setenv(EnvWorkflowBackendName, tc.dapr)
		env, err := runner.LoadEnv() // an unknown store stops here, for every scenario
		var sc perf.Scenario
		if err == nil {
			sc, err = WorkflowWithConstantVUs("").ForEnv(env, perf.Scenario{})
		}
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q, %q: error %v, want one with %q", tc.ours, tc.dapr, err, tc.err)
		case tc.err != "":
		case err != nil:
			t.Errorf("%q, %q: %v", tc.ours, tc.dapr, err)
		default:
			assert.Equal(t, "workflow_constant_vus_"+map[string]string{"postgresql": "postgresql", "redis": "redis", "in-memory": "inmemory"}[tc.want], sc.Test)
			assert.Equal(t, tc.app, sc.Main.To, "%q: the app the load goes to", tc.dapr)
			assert.Equal(t, tc.app, sc.Apps[1].Name)
			assert.Equal(t, WorkflowBackends[tc.want], sc.Apps[1].Sidecar.Components[0].Type)
		}
	}
}
