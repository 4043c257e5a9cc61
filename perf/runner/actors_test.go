package runner

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
	"github.com/daprperf/daprperf/perf/report"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlacementGroups(t *testing.T) {
	store := perf.Component{Name: "s", Type: perf.StateInMemory, Metadata: map[string]string{"actorStateStore": "true"}}
	apps := []perf.App{
		{Name: "t", Sidecar: &perf.Sidecar{}},                                    // no actors: no placement
		{Name: "a", Sidecar: &perf.Sidecar{Components: []perf.Component{store}}}, // the default one
		{Name: "b", Sidecar: &perf.Sidecar{Placement: "other", Scheduler: true}},
		{Name: "c"},
	}
	assert.Equal(t, []string{perf.DefaultPlacement, "other"}, perf.PlacementGroups(apps))
	assert.True(t, perf.NeedsScheduler(apps))
	assert.False(t, perf.NeedsScheduler(apps[:2]))
	assert.Equal(t, "placement", perf.PlacementProcess(perf.DefaultPlacement))
	assert.Equal(t, "placement-other", perf.PlacementProcess("other"))
	assert.Equal(t, "DAPR_PERF_REDIS_ADDR", perf.EnvBackendAddr(perf.BackendRedis))

	sc := perf.Scenario{Plan: plan.OverheadPlan{}, Tester: "t", Main: perf.Route{To: "a"}, Apps: apps}
	assert.Equal(t, perf.RoleControlPlane, sc.Roles()["placement-other"])
	assert.Equal(t, perf.RoleControlPlane, sc.Roles()["scheduler"])
}

func TestMainPercentileGate(t *testing.T) {
	r := &perf.Report{Rounds: []perf.Round{{Main: perf.Result{RequestedQPS: 10, ActualQPS: 10, Latency: perf.Latency{Percentiles: []perf.PercentileValue{{P: 90, Seconds: 0.012}, {P: 99, Seconds: 0.040}}}}}}}
	f := report.DeriveFigures(r)
	vs := report.Evaluate([]perf.Threshold{
		{Figure: "latency.p90", Op: perf.AtMost, Limit: 0.015, Source: "s"},
		{Figure: "latency.p99", Op: perf.AtMost, Limit: 0.035, Source: "s"},
	}, f.Gates)
	require.Len(t, vs, 2)
	assert.True(t, vs[0].Pass, vs[0].String())
	assert.False(t, vs[1].Pass, vs[1].String())
	assert.Equal(t, "latency.p99 = 40.000 ms, at most 35.000 ms (s): FAIL", vs[1].String())
}

func TestFetchActorStats(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/stats" {
			http.Error(w, "no", http.StatusTeapot)
			return
		}
		_ = json.NewEncoder(w).Encode(perf.ActorStats{Host: "h", Activations: 7})
	}))
	t.Cleanup(srv.Close)
	st, err := fetchActorStats(fakeEndpoint{srv.URL}, "actorapp")
	require.NoError(t, err)
	assert.EqualValues(t, 7, st.Activations)

	_, err = fetchActorStats(fakeEndpoint{srv.URL + "/x"}, "actorapp")
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "418"), err.Error())
}

type fakeEndpoint struct{ url string }

func (f fakeEndpoint) Endpoint(string, perf.Endpoint) (string, error) { return f.url, nil }

// TestRolesLabelEveryHostReplica: actor_id_scale's shape, a tester and three actor hosts on
// one placement with Main.To the first: every host is an app and every host's daprd a callee
// sidecar, not only Main.To's; the tester and its daprd keep theirs.
func TestRolesLabelEveryHostReplica(t *testing.T) {
	store := perf.Component{Name: "s", Type: perf.StateInMemory, Metadata: map[string]string{"actorStateStore": "true"}}
	host := func(name string) perf.App {
		return perf.App{Name: name, Kind: perf.ActorApp, Sidecar: &perf.Sidecar{Components: []perf.Component{store}}}
	}
	sc := perf.Scenario{Plan: plan.OverheadPlan{}, Tester: "tester", Main: perf.Route{To: "actorapp", ThroughSidecar: true},
		Apps: []perf.App{{Name: "tester", Kind: perf.Tester, Sidecar: &perf.Sidecar{Components: []perf.Component{store}}},
			host("actorapp"), host("actorapp-2"), host("actorapp-3"), {Name: "other", Kind: perf.HTTPApp}}}
	assert.Equal(t, map[string]string{
		"tester": perf.RoleTester, "tester-daprd": perf.RoleCallerSidecar,
		"actorapp": perf.RoleApp, "actorapp-daprd": perf.RoleCalleeSidecar,
		"actorapp-2": perf.RoleApp, "actorapp-2-daprd": perf.RoleCalleeSidecar,
		"actorapp-3": perf.RoleApp, "actorapp-3-daprd": perf.RoleCalleeSidecar,
		"placement": perf.RoleControlPlane, "sentry": perf.RoleControlPlane,
	}, sc.Roles(), "an app of another kind is no replica of the host")
}
