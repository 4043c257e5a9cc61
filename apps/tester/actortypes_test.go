package tester

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
)

// TestActorTypesSpreadOverVUs: with Operation.ActorTypes, VU k calls type actor_<k mod N>, each
// request with its own actor id, and every type is called.
func TestActorTypesSpreadOverVUs(t *testing.T) {
	path := regexp.MustCompile(`^/v1\.0/actors/(actor_\d+)/([0-9a-f-]{36})/method/default$`)
	var mu sync.Mutex
	types, ids := map[string]int{}, map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := path.FindStringSubmatch(r.URL.Path)
		if m == nil || r.Method != http.MethodPost {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusBadRequest)
			return
		}
		mu.Lock()
		types[m[1]]++
		ids[m[2]] = true
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)

	p := load(t, perf.HTTP, srv.URL, 1, time.Minute)
	p.Payload = "{}"
	p.Operation = perf.Operation{Kind: perf.OpActorInvoke, ActorType: "actor", ActorTypes: 4, ActorID: perf.UUIDToken, Method: "default"}
	p.Executor = driver.Executor{Kind: driver.SharedIterations, VUs: 6, Iterations: 300, Duration: 10 * time.Second}
	require.NoError(t, p.Validate())
	res, err := Run(t.Context(), p)
	require.NoError(t, err)
	assert.Zero(t, res.Errors(), "codes: %v", res.RetCodes)
	assert.EqualValues(t, 300, res.Requests)
	mu.Lock()
	defer mu.Unlock()
	assert.Len(t, types, 4, "6 VUs over 4 types: actor_0 .. actor_3, each called: %v", types)
	assert.Len(t, ids, 300, "a new actor id per request")
}

// TestReminderLoadsSendANewActorPerRequest: an actor.reminder load, fortio's and the driver's,
// registers each reminder on its own actor id over kept-alive connections (daprd answers 204).
func TestReminderLoadsSendANewActorPerRequest(t *testing.T) {
	path := regexp.MustCompile(`^/v1\.0/actors/R/([0-9a-f-]{36})/reminders/myreminder$`)
	var mu sync.Mutex
	ids := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := path.FindStringSubmatch(r.URL.Path)
		if m == nil || r.Method != http.MethodPost {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusBadRequest)
			return
		}
		mu.Lock()
		ids[m[1]] = true
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	for _, ex := range []driver.Executor{{}, {Kind: driver.SharedIterations, VUs: 5, Iterations: 100, Duration: 10 * time.Second}} {
		mu.Lock()
		clear(ids)
		mu.Unlock()
		p := load(t, perf.HTTP, srv.URL, 50, 2*time.Second)
		p.Connections = 5
		p.Payload = `{"dueTime":"24h","period":"24h"}`
		p.Operation = perf.Operation{Kind: perf.OpActorReminder, ActorType: "R", ActorID: perf.UUIDToken, Reminder: "myreminder"}
		p.Executor = ex
		require.NoError(t, p.Validate())
		res, err := Run(t.Context(), p)
		require.NoError(t, err)
		assert.Zero(t, res.Errors(), "%s: codes %v", ex.Kind, res.RetCodes)
		mu.Lock()
		assert.Len(t, ids, int(res.Requests), "%s: one actor id per request", ex.Kind)
		mu.Unlock()
		assert.LessOrEqual(t, res.Sockets, int64(5), "%s: kept alive across 204s", ex.Kind)
	}
}
