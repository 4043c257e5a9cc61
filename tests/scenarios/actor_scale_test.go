package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
	"github.com/daprperf/daprperf/perf/runner"
)

func threshold(t *testing.T, sc perf.Scenario, figure string) perf.Threshold {
	t.Helper()
	for _, th := range sc.Thresholds {
		if th.Figure == figure {
			return th
		}
	}
	t.Fatalf("%s: no threshold on %s", sc.Test, figure)
	return perf.Threshold{}
}

func TestActorScaleScenarios(t *testing.T) {
	ts := ActorTypeScale()
	require.Len(t, ts.Apps, 2)
	types := ts.Apps[1].Args[1]
	assert.Len(t, strings.Split(types, ","), ActorScaleTypes)
	assert.True(t, strings.HasPrefix(types, "actor_0,actor_1,") && strings.HasSuffix(types, ",actor_99"), "Dapr's names")
	main, err := runner.EnvFor(t).MainParams(ts.MainOptions...)
	require.NoError(t, err)
	assert.Equal(t, 500, main.Executor.PeakVUs())
	assert.Equal(t, 0.095, threshold(t, ts, "latency.p95").Limit)
	for _, a := range ts.Apps {
		assert.Empty(t, a.Sidecar.ExtraArgs, "%s: Dapr's graceful shutdown (5 s); the local platform's stop grace covers an actor host's", a.Name)
	}

	ids := ActorIDScale()
	var hosts []string
	for _, a := range ids.Apps {
		if a.Kind == perf.ActorApp {
			hosts = append(hosts, a.Name)
			assert.Equal(t, []perf.Backend{perf.BackendRedis}, a.Backends, "one Redis lock for every host")
		}
	}
	want := []string{"actorapp"}
	for i := 2; i <= ActorIDScaleReplicas; i++ {
		want = append(want, fmt.Sprintf("actorapp-%d", i))
	}
	assert.Equal(t, want, hosts, "Dapr's 10 replicas")
	roles := ids.Roles()
	for _, h := range hosts {
		assert.Equal(t, perf.RoleApp, roles[h], h)
		assert.Equal(t, perf.RoleCalleeSidecar, roles[perf.SidecarName(h)], h)
	}
	assert.Equal(t, perf.RoleCallerSidecar, roles[perf.SidecarName(TesterApp)])
	assert.Equal(t, 0.090, threshold(t, ids, "latency.p95").Limit)
}

func TestActorScaleVUsScaleWithTheQPSOverride(t *testing.T) {
	t.Setenv(perf.EnvQPS, "100")
	main, err := runner.EnvFor(t).MainParams(ActorIDScale().MainOptions...)
	require.NoError(t, err)
	assert.Equal(t, 50, main.Executor.PeakVUs(), "500 x 100/1000")
	assert.Contains(t, threshold(t, shaped(t, ActorIDScale()), "latency.p95").Source, "scaled by 0.1")
}

func TestActorReminderScenario(t *testing.T) {
	sc := ActorReminder()
	assert.Nil(t, sc.Apps[0].Sidecar, "the tester sends to the host's daprd")
	assert.True(t, sc.Apps[1].Sidecar.Scheduler)
	assert.Equal(t, 480.0, threshold(t, sc, "qps").Limit)
	assert.False(t, threshold(t, sc, "reminders.triggerRate").WarnOnly)

	t.Setenv(perf.EnvQPS, "100")
	t.Setenv("DAPR_TEST_DURATION", "10s")
	sc = shaped(t, ActorReminder())
	assert.InDelta(t, 16.0, threshold(t, sc, "qps").Limit, 1e-9, "480 x 100/3000")
	assert.True(t, threshold(t, sc, "reminders.triggerRate").WarnOnly)
	assert.False(t, threshold(t, sc, "reminders.missing").WarnOnly)
}

// Dapr's two reminder tests, each alone: the registration keeps the rate bound and none of the
// trigger's; the trigger the reverse; both keep errors and restarts; the test names differ, so
// their result files do not share a folder.
func TestActorReminderParts(t *testing.T) {
	figures := func(sc perf.Scenario) []string {
		var out []string
		for _, th := range sc.Thresholds {
			out = append(out, th.Figure)
		}
		return out
	}
	reg, trig := ActorReminderRegistration(), ActorReminderTrigger()
	assert.Equal(t, "actor_reminder_registration", reg.Test)
	assert.Equal(t, "actor_reminder_trigger", trig.Test)
	assert.Equal(t, plan.ReminderRegistration, reg.Plan.(*plan.ReminderPlan).Part)
	assert.Equal(t, plan.ReminderTrigger, trig.Plan.(*plan.ReminderPlan).Part)
	assert.Empty(t, ActorReminder().Plan.(*plan.ReminderPlan).Part, "ActorReminder itself runs both parts")
	for _, f := range []string{"errors", "restarts", "qps"} {
		assert.Contains(t, figures(reg), f)
	}
	for _, f := range []string{"errors", "restarts", "reminders.triggerRate", "reminders.missing"} {
		assert.Contains(t, figures(trig), f)
	}
	assert.NotContains(t, figures(reg), "reminders.missing")
	assert.NotContains(t, figures(trig), "qps")
}

func TestActorActivationOnStores(t *testing.T) {
	for _, store := range ActorStateStores {
		sc := ActorActivationOn(store)
		assert.Equal(t, "actor_activation_"+strings.TrimPrefix(string(store), "state."), sc.Test)
		for _, a := range sc.Apps {
			require.Len(t, a.Sidecar.Components, 1)
			c := a.Sidecar.Components[0]
			assert.Equal(t, store, c.Type)
			assert.Equal(t, "true", c.Metadata["actorStateStore"])
		}
		assert.True(t, threshold(t, sc, "latency.p99").WarnOnly)
		assert.False(t, threshold(t, sc, "errors").WarnOnly)
	}
	c := ActorActivation().Apps[1].Sidecar.Components[0]
	assert.Equal(t, perf.StatePostgreSQL, c.Type, "the default scenario keeps Dapr's CI's store")
	assert.Equal(t, "v2", c.Version)
	assert.False(t, threshold(t, ActorActivation(), "latency.p99").WarnOnly)
}

// One actor host checks double activation with an in-process lock (no round trip inside a
// request, as Dapr's hosts make none); several share one in Redis, also when
// DAPR_PERF_HOST_REPLICAS brings a scenario of several down to one.
func TestActorHostsLockInRedisOnlyWhenThereAreSeveral(t *testing.T) {
	redisHosts := func(sc perf.Scenario) (hosts, redis int) {
		for _, a := range sc.Apps {
			if a.Kind == perf.ActorApp {
				hosts++
				if len(a.Backends) > 0 {
					redis++
				}
			}
		}
		return hosts, redis
	}
	for _, sc := range []perf.Scenario{ActorActivation(), ActorTypeScale(), ActorReminderRegistration()} {
		h, r := redisHosts(sc)
		assert.Equal(t, 1, h, sc.Test)
		assert.Zero(t, r, "%s: one host locks in process", sc.Test)
	}
	h, r := redisHosts(ActorTimer())
	assert.Equal(t, ActorTimerReplicas, h)
	assert.Equal(t, h, r, "actor_timer: every host locks in Redis")
	t.Setenv(perf.EnvHostReplicas, "1")
	h, r = redisHosts(shaped(t, ActorTimer()))
	assert.Equal(t, 1, h)
	assert.Zero(t, r, "one host left: the in-process lock")
}
