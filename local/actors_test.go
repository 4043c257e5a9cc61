package local_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/actorapp"
	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/plan"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"
	"github.com/daprperf/daprperf/tests/scenarios"
)

// actorHost is an actor app with its daprd, the in-memory actor state store, the Redis lock,
// and the placement group placement ("" for the deployment's default one).
func actorHost(name, placement string, scheduler bool) perf.App {
	return perf.App{Name: name, Kind: perf.ActorApp, Backends: []perf.Backend{perf.BackendRedis},
		Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Placement: placement, Scheduler: scheduler, Components: []perf.Component{
			{Name: "statestore", Type: perf.StateInMemory, Metadata: map[string]string{"actorStateStore": "true"}},
		}}}
}

// callActor calls method of actor id through the daprd at sidecar (base URL), retrying for a
// few seconds while the placement tables are disseminated (daprd answers 500 until then).
func callActor(t testing.TB, sidecar, id, method string) {
	t.Helper()
	url := sidecar + "/v1.0/actors/" + actorapp.DefaultType + "/" + id + "/method/" + method
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, body := send(t, http.MethodPost, url, "")
		if code == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("POST %s: %d %s", url, code, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stats reads the actor app's counters.
func stats(t testing.TB, d perf.Deployment, app string) actorapp.Stats {
	t.Helper()
	code, body := get(t, endpoint(t, d, app, perf.AppHTTP)+"/stats")
	require.Equal(t, http.StatusOK, code, body)
	var st actorapp.Stats
	require.NoError(t, json.Unmarshal([]byte(body), &st), body)
	return st
}

// TestActorControlPlane starts an actor host with its own placement and scheduler, calls
// actors through its daprd (each new id is one activation, on the real placement), fires a
// reminder through the real scheduler, reads the control plane's usage, and checks that
// placement and scheduler are gone after the cleanup (and, through isolated, no child process
// or run directory is left).
func TestActorControlPlane(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daprd, placement, scheduler and redis")
	}
	var pids []int
	isolated(t, func(t *testing.T, p *local.Platform) {
		host := actorHost("actorapp", "", true)
		host.Args = []string{"-timer-due", "1s"} // every activation registers a timer through daprd
		d, err := p.StartE(startCtx(t), t, host)
		require.NoError(t, err)
		assert.Equal(t, []string{"actorapp", "actorapp-daprd", "sentry", "placement", "scheduler"}, d.Processes())
		for _, name := range []string{"placement", "scheduler"} {
			pid := d.PID(name)
			require.NotZero(t, pid, name)
			pids = append(pids, pid)
		}
		var cp []string
		for _, b := range d.Backends() {
			cp = append(cp, string(b.Backend))
			if b.Backend == perf.ControlScheduler && strings.HasPrefix(d.DaprVersion(), "1.17.") {
				assert.Contains(t, b.Package, "go-etcd-cron v0.12.6 instead of v0.12.4", "scripts/dapr-pins.sh's pin")
			} else if b.Backend == perf.ControlScheduler {
				assert.NotContains(t, b.Package, "instead of", "%s's scheduler builds with its own go-etcd-cron", d.DaprVersion())
			}
		}
		assert.Equal(t, []string{"redis", "sentry", "placement", "scheduler"}, cp, "sentry first: placement and scheduler take their certificates from it")
		assert.DirExists(t, filepath.Join(d.RunDir(), "backends", "scheduler", "etcd"), "the scheduler's etcd data is in the run directory")

		sidecar := endpoint(t, d, "actorapp", perf.SidecarHTTP)
		for _, id := range []string{"a", "a", "a", "b", "c"} {
			callActor(t, sidecar, id, "noOp")
		}
		st := stats(t, d, "actorapp")
		assert.EqualValues(t, 3, st.Activations, "three ids, three activations")
		assert.Equal(t, 3, st.IDs)
		assert.EqualValues(t, 1, st.MaxActivationsPerID)
		assert.EqualValues(t, 5, st.Calls)
		assert.Zero(t, st.DoubleActivations)
		assert.True(t, strings.HasPrefix(st.Lock, "redis 127.0.0.1:"), st.Lock)
		assert.EqualValues(t, 3, st.TimersRegistered, "last error: %s", st.LastError)
		require.Eventually(t, func() bool { return stats(t, d, "actorapp").TimerFires == 3 }, 15*time.Second, 100*time.Millisecond,
			"the three timers fire")
		st = stats(t, d, "actorapp")
		assert.Less(t, st.TimerLagSeconds["max"], 1.0, "timer fire lag: %v", st.TimerLagSeconds)
		assert.Zero(t, st.Errors, st.LastError)

		// A reminder due in 1 s goes through the scheduler and fires on the host.
		code, body := send(t, http.MethodPost, sidecar+"/v1.0/actors/"+actorapp.DefaultType+"/a/reminders/r1", `{"dueTime":"1s"}`)
		require.Equal(t, http.StatusNoContent, code, body)
		require.Eventually(t, func() bool { return stats(t, d, "actorapp").ReminderFires >= 1 }, 15*time.Second, 100*time.Millisecond,
			"the reminder fires through the scheduler")

		u, err := d.Usage(t.Context())
		require.NoError(t, err)
		for _, name := range []string{"placement", "scheduler"} {
			assert.Positive(t, u[name].RSSBytes, name)
		}
		sc := perf.Scenario{Plan: plan.OverheadPlan{}, Tester: "tester", Main: perf.Route{To: "actorapp"}, Apps: []perf.App{actorHost("actorapp", "", true)}}
		assert.Equal(t, perf.RoleControlPlane, sc.Roles()["placement"])
		assert.Equal(t, perf.RoleControlPlane, sc.Roles()["scheduler"])
	})
	for _, pid := range pids {
		assert.False(t, alive(pid), "control-plane pid %d still runs after the cleanup", pid)
	}
}

// TestDoubleActivationIsCounted gives two actor hosts separate placements, so each believes it
// owns every actor id, and calls the same ids through both: the shared Redis lock must count a
// double activation per id, on the host that activated second.
func TestDoubleActivationIsCounted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daprd, placement and redis")
	}
	isolated(t, func(t *testing.T, p *local.Platform) {
		d, err := p.StartE(startCtx(t), t, actorHost("host-a", "a", false), actorHost("host-b", "b", false))
		require.NoError(t, err)
		assert.Contains(t, d.Processes(), "placement-a")
		assert.Contains(t, d.Processes(), "placement-b")
		for _, id := range []string{"x", "y", "z"} {
			callActor(t, endpoint(t, d, "host-a", perf.SidecarHTTP), id, "noOp")
			callActor(t, endpoint(t, d, "host-b", perf.SidecarHTTP), id, "noOp")
		}
		a, b := stats(t, d, "host-a"), stats(t, d, "host-b")
		assert.EqualValues(t, 3, a.Activations)
		assert.EqualValues(t, 3, b.Activations)
		assert.Zero(t, a.DoubleActivations, "host-a activated first")
		assert.EqualValues(t, 3, b.DoubleActivations, "each id found active on host-a: %v", b.DoubleActivated)
	})
}

// TestOneControlPlaneHostSeesNoDoubleActivation is the check's other side: two hosts on one
// placement split the ids between them, and calling every id through both sidecars activates
// each once, on its one host.
func TestOneControlPlaneHostSeesNoDoubleActivation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daprd, placement and redis")
	}
	isolated(t, func(t *testing.T, p *local.Platform) {
		d, err := p.StartE(startCtx(t), t, actorHost("host-a", "", false), actorHost("host-b", "", false))
		require.NoError(t, err)
		ids := []string{"1", "2", "3", "4", "5", "6", "7", "8"}
		// Both hosts must be in the placement table before the ids are placed.
		time.Sleep(2 * time.Second)
		for _, id := range ids {
			callActor(t, endpoint(t, d, "host-a", perf.SidecarHTTP), id, "noOp")
			callActor(t, endpoint(t, d, "host-b", perf.SidecarHTTP), id, "noOp")
		}
		a, b := stats(t, d, "host-a"), stats(t, d, "host-b")
		assert.Zero(t, a.DoubleActivations+b.DoubleActivations)
		assert.EqualValues(t, len(ids), a.Activations+b.Activations-a.Deactivations-b.Deactivations,
			"each id active on one host (a: %+v, b: %+v)", a, b)
	})
}

// killPlacementAtMain kills the placement as the main phase starts (the first resource reading).
type killPlacementAtMain struct{ *local.Platform }

func (k killPlacementAtMain) Start(ctx context.Context, t perf.TB, apps ...perf.App) perf.Deployment {
	t.Helper()
	dep := k.Platform.Start(ctx, t, apps...)
	return &placementKiller{Deployment: dep.(*local.Deployment), t: t}
}

type placementKiller struct {
	*local.Deployment
	t    perf.TB
	once sync.Once
}

func (d *placementKiller) Usage(ctx context.Context) (map[string]perf.Usage, error) {
	d.once.Do(func() {
		if err := d.Kill("placement"); err != nil {
			d.t.Errorf("kill: %v", err)
		}
	})
	return d.Deployment.Usage(ctx)
}

// TestKilledPlacementFailsTheRunAndTheResultIsWritten runs a short actor_activation in a child
// test process whose placement is killed as the main phase starts: the child fails with the
// unexpected exit of "placement" and the restarts verdict, and writes its result file.
func TestKilledPlacementFailsTheRunAndTheResultIsWritten(t *testing.T) {
	if dir := os.Getenv("DAPRPERF_KILL_PLACEMENT_DIR"); dir != "" {
		p, err := local.New(local.WithEnv(runner.EnvFor(t)), local.WithRunDirParent(dir))
		require.NoError(t, err)
		runner.Run(t, scenarios.ActorActivation(), runner.WithPlatform(killPlacementAtMain{p}), runner.WithReportDir(dir))
		return
	}
	if testing.Short() {
		t.Skip("starts daprd and placement")
	}
	if _, err := local.New(local.WithEnv(runner.EnvFor(t))); err != nil && os.Getenv("CI") == "" {
		t.Skipf("no daprd: %v (run make daprd)", err)
	}
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestKilledPlacementFailsTheRunAndTheResultIsWritten$", "-test.v")
	cmd.Env = append(os.Environ(), "DAPRPERF_KILL_PLACEMENT_DIR="+dir,
		"DAPR_TEST_DURATION=3s", "DAPR_PERF_QPS=50", "DAPR_PERF_WARMUP_DURATION=1s", "DAPR_PERF_REPEATS=1")
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	require.True(t, errors.As(err, &exitErr), "the child run must fail:\n%s", out)
	assert.Contains(t, string(out), "UNEXPECTED EXIT: placement")
	assert.Contains(t, string(out), "restarts = 1, at most 0")

	files, _ := filepath.Glob(filepath.Join(dir, perf.RunsDir, "*", "actor_activation", "http", "result.json"))
	require.Len(t, files, 1, "the result file is written:\n%s", out)
	rep, err := report.ReadReport(files[0])
	require.NoError(t, err)
	require.NotEmpty(t, rep.Exits)
	assert.Equal(t, "placement", rep.Exits[0].Process)
	assert.False(t, rep.Pass)
}
