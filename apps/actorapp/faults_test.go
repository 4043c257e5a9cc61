package actorapp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/actorapp"
)

func arm(t *testing.T, h http.Handler, body string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/faults", strings.NewReader(body)))
	return rec
}

// The window answers exactly 1 of every 10 method calls 500, counts each, delays every call
// (failures too) and runs only the calls it did not fail; after the window nothing is faulted.
func TestFaultWindowInjectsAndCounts(t *testing.T) {
	h := actorapp.NewHandler(actorapp.Options{Host: "h1"})
	require.Equal(t, http.StatusOK, arm(t, h, `{"delay":2000000,"failFraction":0.1,"window":300000000}`).Code) // 2 ms, 300 ms
	start := time.Now()
	codes := map[int]int{}
	for range 50 {
		codes[call(t, h, http.MethodPut, "/actors/PerfTestActor/x/method/lock").Code]++
	}
	took := time.Since(start)
	assert.Equal(t, map[int]int{200: 45, 500: 5}, codes)
	assert.GreaterOrEqual(t, took, 50*2*time.Millisecond, "every call waited the 2 ms delay")
	st := h.Stats()
	require.NotNil(t, st.Faults)
	assert.EqualValues(t, 50, st.Faults.Calls)
	assert.EqualValues(t, 5, st.Faults.Failed)
	assert.EqualValues(t, 45, st.Calls, "an injected 500 does not run the method")
	assert.Equal(t, 2*time.Millisecond, st.Faults.Delay)
	assert.Equal(t, 300*time.Millisecond, st.Faults.Window)
	assert.Equal(t, st.Faults.From.Add(300*time.Millisecond), st.Faults.Until)

	// A second window while one is open is refused.
	assert.Equal(t, http.StatusConflict, arm(t, h, `{"delay":0,"failFraction":1,"window":1000000000}`).Code)

	// Timer, reminder and deactivation callbacks are never faulted.
	assert.Equal(t, http.StatusOK, call(t, h, http.MethodPut, "/actors/PerfTestActor/x/method/timer/t").Code)
	assert.Equal(t, http.StatusOK, call(t, h, http.MethodPut, "/actors/PerfTestActor/x/method/remind/r").Code)

	time.Sleep(time.Until(st.Faults.Until) + 10*time.Millisecond)
	for range 20 {
		require.Equal(t, http.StatusOK, call(t, h, http.MethodPut, "/actors/PerfTestActor/x/method/lock").Code)
	}
	after := h.Stats()
	assert.EqualValues(t, 50, after.Faults.Calls, "the window closed by itself")
	assert.EqualValues(t, 5, after.Faults.Failed)

	// Once closed, a new window may open.
	assert.Equal(t, http.StatusOK, arm(t, h, `{"delay":0,"failFraction":1,"window":1000000000}`).Code)
	assert.Equal(t, http.StatusInternalServerError, call(t, h, http.MethodPut, "/actors/PerfTestActor/x/method/lock").Code)
	assert.EqualValues(t, 1, h.Stats().Faults.Failed, "the new window counts from zero")
}

func TestFaultRequestIsValidated(t *testing.T) {
	h := actorapp.NewHandler(actorapp.Options{})
	for body, want := range map[string]string{
		`{"delay":0,"failFraction":1.5,"window":1000000000}`:  "FailFraction",
		`{"delay":-1,"failFraction":0,"window":1000000000}`:   "Delay",
		`{"delay":0,"failFraction":0,"window":0}`:             "Window",
		`{"delay":0,"failFraction":0,"window":3600000000000}`: "Window",
		`not json`: "invalid character",
	} {
		rec := arm(t, h, body)
		assert.Equal(t, http.StatusBadRequest, rec.Code, body)
		assert.Contains(t, rec.Body.String(), want, body)
	}
	assert.Nil(t, h.Stats().Faults, "no window opened")
	for range 3 {
		assert.Equal(t, http.StatusOK, call(t, h, http.MethodPut, "/actors/PerfTestActor/x/method/lock").Code)
	}
	assert.NoError(t, actorapp.FaultRequest{Delay: 50 * time.Millisecond, FailFraction: 0.1, Window: 15 * time.Second}.Validate())
}

// A host's own failures (Options.FailFraction) are not a fault window's: answered 500, never
// counted as injected.
func TestOwnFailuresAreNotInjected(t *testing.T) {
	h := actorapp.NewHandler(actorapp.Options{FailFraction: 0.5})
	codes := map[int]int{}
	for range 10 {
		codes[call(t, h, http.MethodPut, "/actors/PerfTestActor/x/method/lock").Code]++
	}
	assert.Equal(t, map[int]int{200: 5, 500: 5}, codes)
	assert.Nil(t, h.Stats().Faults)
	assert.EqualValues(t, 5, h.Stats().Calls)
}
