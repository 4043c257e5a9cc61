package perf

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlacementGroups(t *testing.T) {
	store := Component{Name: "s", Type: StateInMemory, Metadata: map[string]string{"actorStateStore": "true"}}
	apps := []App{
		{Name: "t", Sidecar: &Sidecar{}},                               // no actors: no placement
		{Name: "a", Sidecar: &Sidecar{Components: []Component{store}}}, // the default one
		{Name: "b", Sidecar: &Sidecar{Placement: "other", Scheduler: true}},
		{Name: "c"},
	}
	assert.Equal(t, []string{DefaultPlacement, "other"}, PlacementGroups(apps))
	assert.True(t, NeedsScheduler(apps))
	assert.False(t, NeedsScheduler(apps[:2]))
	assert.Equal(t, "placement", PlacementProcess(DefaultPlacement))
	assert.Equal(t, "placement-other", PlacementProcess("other"))
	assert.Equal(t, "DAPR_PERF_REDIS_ADDR", EnvBackendAddr(BackendRedis))

	sc := Scenario{Tester: "t", Main: Route{To: "a"}, Apps: apps}
	assert.Equal(t, RoleControlPlane, sc.Roles()["placement-other"])
	assert.Equal(t, RoleControlPlane, sc.Roles()["scheduler"])
}

func TestActorFiguresAndGates(t *testing.T) {
	r := &Report{Actors: []ActorStats{
		{App: "a", Activations: 10, DoubleActivations: 0, TimersRegistered: 10, TimerFires: 10, TimerLagSeconds: map[string]float64{"p99": 0.004}},
		{App: "b", Activations: 5, DoubleActivations: 2, Errors: 1, TimersRegistered: 5, TimerFires: 3, TimerLagSeconds: map[string]float64{"p99": 0.009}},
	}}
	f := DeriveFigures(r)
	assert.Equal(t, 15.0, f.Gates["actors.activations"])
	assert.Equal(t, 2.0, f.Gates["actors.doubleActivations"])
	assert.Equal(t, 1.0, f.Gates["actors.errors"])
	assert.Equal(t, 2.0, f.Gates["actors.timersUnfired"])
	assert.Equal(t, 0.009, f.Gates["actors.timerLag.p99"])
	vs := Evaluate([]Threshold{{Figure: "actors.doubleActivations", Op: AtMost, Limit: 0, Source: "s"}}, f.Gates)
	require.Len(t, vs, 1)
	assert.False(t, vs[0].Pass)
	assert.Equal(t, "actors.doubleActivations = 2, at most 0 (s): FAIL", vs[0].String())
	assert.Contains(t, actorSummary(r.Actors), "2 double activations")
}

func TestMainPercentileGate(t *testing.T) {
	r := &Report{Rounds: []Round{{Main: Result{RequestedQPS: 10, ActualQPS: 10, Latency: Latency{Percentiles: []PercentileValue{{P: 90, Seconds: 0.012}, {P: 99, Seconds: 0.040}}}}}}}
	f := DeriveFigures(r)
	vs := Evaluate([]Threshold{
		{Figure: "latency.p90", Op: AtMost, Limit: 0.015, Source: "s"},
		{Figure: "latency.p99", Op: AtMost, Limit: 0.035, Source: "s"},
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
		_ = json.NewEncoder(w).Encode(ActorStats{Host: "h", Activations: 7})
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

func (f fakeEndpoint) Endpoint(string, Endpoint) (string, error) { return f.url, nil }

// TestRolesLabelEveryHostReplica: actor_id_scale's shape, a tester and three actor hosts on
// one placement with Main.To the first: every host is an app and every host's daprd a callee
// sidecar, not only Main.To's; the tester and its daprd keep theirs.
func TestRolesLabelEveryHostReplica(t *testing.T) {
	store := Component{Name: "s", Type: StateInMemory, Metadata: map[string]string{"actorStateStore": "true"}}
	host := func(name string) App {
		return App{Name: name, Kind: ActorApp, Sidecar: &Sidecar{Components: []Component{store}}}
	}
	sc := Scenario{Tester: "tester", Main: Route{To: "actorapp", ThroughSidecar: true},
		Apps: []App{{Name: "tester", Kind: Tester, Sidecar: &Sidecar{Components: []Component{store}}},
			host("actorapp"), host("actorapp-2"), host("actorapp-3"), {Name: "other", Kind: HTTPApp}}}
	assert.Equal(t, map[string]string{
		"tester": RoleTester, "tester-daprd": RoleCallerSidecar,
		"actorapp": RoleApp, "actorapp-daprd": RoleCalleeSidecar,
		"actorapp-2": RoleApp, "actorapp-2-daprd": RoleCalleeSidecar,
		"actorapp-3": RoleApp, "actorapp-3-daprd": RoleCalleeSidecar,
		"placement": RoleControlPlane,
	}, sc.Roles(), "an app of another kind is no replica of the host")
}
