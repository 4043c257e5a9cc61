package actorapp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/actorapp"
)

func call(t *testing.T, h http.Handler, method, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

func TestConfigListsTheEntities(t *testing.T) {
	h := actorapp.NewHandler(actorapp.Options{Types: []string{"A", "B"}, IdleTimeout: time.Minute})
	rec := call(t, h, http.MethodGet, "/dapr/config")
	require.Equal(t, http.StatusOK, rec.Code)
	var cfg struct {
		Entities    []string `json:"entities"`
		IdleTimeout string   `json:"actorIdleTimeout"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &cfg))
	assert.Equal(t, []string{"A", "B"}, cfg.Entities)
	assert.Equal(t, "1m0s", cfg.IdleTimeout)
	assert.Equal(t, http.StatusOK, call(t, h, http.MethodGet, "/healthz").Code)
}

func TestActivationsPerIDAndDeactivation(t *testing.T) {
	h := actorapp.NewHandler(actorapp.Options{Host: "h1"})
	for _, id := range []string{"a", "a", "b"} {
		require.Equal(t, http.StatusOK, call(t, h, http.MethodPut, "/actors/PerfTestActor/"+id+"/method/noOp").Code)
	}
	require.Equal(t, http.StatusOK, call(t, h, http.MethodDelete, "/actors/PerfTestActor/a").Code)
	require.Equal(t, http.StatusOK, call(t, h, http.MethodPut, "/actors/PerfTestActor/a/method/noOp").Code)
	require.Equal(t, http.StatusOK, call(t, h, http.MethodPost, "/v1.0/actors/PerfTestActor/z/method/noOp").Code)
	assert.Equal(t, http.StatusNotFound, call(t, h, http.MethodPut, "/actors/Other/a/method/noOp").Code)

	st := h.Stats()
	assert.EqualValues(t, 3, st.Activations, "a, b, then a again after its deactivation")
	assert.Equal(t, 2, st.IDs)
	assert.EqualValues(t, 2, st.MaxActivationsPerID)
	assert.Equal(t, 2, st.Active)
	assert.EqualValues(t, 1, st.Deactivations)
	assert.EqualValues(t, 4, st.Calls)
	assert.EqualValues(t, 1, st.DirectCalls, "the baseline's straight call activates nothing")
	assert.Zero(t, st.DoubleActivations)
	assert.Equal(t, "in-process", st.Lock)
}

// sharedLock is one lock for two handlers in one process, standing in for Redis.
type sharedLock struct{ held map[string]string }

func (l *sharedLock) Acquire(_ context.Context, key, host string) (bool, string, error) {
	if h, ok := l.held[key]; ok && h != host {
		return false, h, nil
	}
	l.held[key] = host
	return true, host, nil
}

func (l *sharedLock) Release(_ context.Context, key, host string) error {
	if l.held[key] == host {
		delete(l.held, key)
	}
	return nil
}

func TestDoubleActivationThroughASharedLock(t *testing.T) {
	lock := &sharedLock{held: map[string]string{}}
	a := actorapp.NewHandler(actorapp.Options{Host: "a", Lock: lock})
	b := actorapp.NewHandler(actorapp.Options{Host: "b", Lock: lock})
	call(t, a, http.MethodPut, "/actors/PerfTestActor/x/method/noOp")
	call(t, b, http.MethodPut, "/actors/PerfTestActor/x/method/noOp") // x active on a and b
	call(t, a, http.MethodDelete, "/actors/PerfTestActor/y")
	call(t, a, http.MethodPut, "/actors/PerfTestActor/y/method/noOp")
	call(t, a, http.MethodDelete, "/actors/PerfTestActor/y")
	call(t, b, http.MethodPut, "/actors/PerfTestActor/y/method/noOp") // y moved after a let it go

	assert.Zero(t, a.Stats().DoubleActivations)
	st := b.Stats()
	assert.EqualValues(t, 1, st.DoubleActivations)
	assert.Equal(t, []string{"PerfTestActor/x held by a"}, st.DoubleActivated)
}

func TestTimerIsRegisteredAndItsLagMeasured(t *testing.T) {
	var registered atomic.Int32
	var body atomic.Value
	daprd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1.0/actors/PerfTestActor/t1/timers/fire" {
			var b strings.Builder
			_, _ = io.Copy(&b, r.Body)
			body.Store(b.String())
			registered.Add(1)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(daprd.Close)
	h := actorapp.NewHandler(actorapp.Options{Host: "h", TimerDue: 50 * time.Millisecond, DaprHTTP: daprd.URL})
	call(t, h, http.MethodPut, "/actors/PerfTestActor/t1/method/noOp")
	require.EqualValues(t, 1, registered.Load())
	assert.JSONEq(t, `{"dueTime":"50ms","callback":"fire"}`, body.Load().(string))
	time.Sleep(80 * time.Millisecond)
	call(t, h, http.MethodPut, "/actors/PerfTestActor/t1/method/timer/fire")
	st := h.Stats()
	assert.EqualValues(t, 1, st.TimersRegistered)
	assert.EqualValues(t, 1, st.TimerFires)
	lag := st.TimerLagSeconds["p99"]
	assert.Greater(t, lag, 0.020, "fired 80 ms after a 50 ms timer: at least 30 ms late")
	assert.Less(t, lag, 1.0)
	assert.Zero(t, st.Errors)
}

// A periodic timer is registered with its period, and every fire counts; the lag is the first's.
func TestPeriodicTimer(t *testing.T) {
	var body atomic.Value
	daprd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		_, _ = io.Copy(&b, r.Body)
		body.Store(b.String())
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(daprd.Close)
	h := actorapp.NewHandler(actorapp.Options{Host: "h", TimerDue: 10 * time.Second, TimerPeriod: 10 * time.Second, DaprHTTP: daprd.URL})
	call(t, h, http.MethodPut, "/actors/PerfTestActor/t1/method/noOp")
	assert.JSONEq(t, `{"dueTime":"10s","period":"10s","callback":"fire"}`, body.Load().(string))
	for range 3 {
		call(t, h, http.MethodPut, "/actors/PerfTestActor/t1/method/timer/fire")
	}
	st := h.Stats()
	assert.EqualValues(t, 1, st.TimersRegistered)
	assert.EqualValues(t, 3, st.TimerFires)
	require.NotNil(t, st.TimersNeverFired)
	assert.Zero(t, *st.TimersNeverFired)
}

func TestTimerRegistrationFailureIsCounted(t *testing.T) {
	daprd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no actors here", http.StatusInternalServerError)
	}))
	t.Cleanup(daprd.Close)
	h := actorapp.NewHandler(actorapp.Options{TimerDue: time.Second, DaprHTTP: daprd.URL})
	call(t, h, http.MethodPut, "/actors/PerfTestActor/t1/method/noOp")
	st := h.Stats()
	assert.EqualValues(t, 1, st.Errors)
	assert.Contains(t, st.LastError, "500")
	assert.Zero(t, st.TimersRegistered)
}
