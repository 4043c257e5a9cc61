package actorapp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/actorapp"
	"github.com/daprperf/daprperf/perf"
)

// fire sends one reminder callback as daprd does: PUT .../method/remind/<name> with
// {"data": ..., "dueTime": ..., "period": ...}.
func fire(t *testing.T, h http.Handler, id, name, body string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPut, "/actors/PerfTestActor/"+id+"/method/remind/"+name, strings.NewReader(body)))
	require.Equal(t, http.StatusOK, rec.Code)
}

func TestReminderFiresAreCountedAndTimed(t *testing.T) {
	h := actorapp.NewHandler(actorapp.Options{Host: "h"})
	due := time.Now().Add(-300 * time.Millisecond)
	data, err := json.Marshal(actorapp.ReminderData{Due: due, Period: "100ms"})
	require.NoError(t, err)
	body := `{"data":` + string(data) + `,"dueTime":"","period":"100ms"}`
	for range 4 { // scheduled at due, +100, +200, +300 ms: lags about 300, 200, 100, 0 ms
		fire(t, h, "a", "r", body)
	}
	fire(t, h, "b", "r", `{"dueTime":"24h","period":"24h"}`) // Dapr's registration reminder: counted, not timed

	st := h.Stats()
	assert.EqualValues(t, 5, st.ReminderFires)
	assert.Equal(t, 2, st.RemindersFired)
	assert.EqualValues(t, 4, st.MaxFiresPerReminder)
	assert.EqualValues(t, 4, st.ReminderFiresTimed)
	require.NotNil(t, st.ReminderFirstFire)
	require.NotNil(t, st.ReminderLastTimedFire)
	lag := st.ReminderLagSeconds
	assert.InDelta(t, 0.200, lag["p50"], 0.05, "sorted 0, 100, 200, 300 ms: the p50 is the third")
	assert.InDelta(t, 0.300, lag["max"], 0.05)
}

func TestReminderDueTimeFromDaprWhenNoData(t *testing.T) {
	h := actorapp.NewHandler(actorapp.Options{Host: "h"})
	due := time.Now().Add(-time.Second).UTC().Format(time.RFC3339)
	fire(t, h, "a", "r", `{"dueTime":"`+due+`","period":"1ms"}`)
	st := h.Stats()
	assert.EqualValues(t, 1, st.ReminderFiresTimed)
	assert.Greater(t, st.ReminderLagSeconds["p50"], 0.0)
	assert.Less(t, st.ReminderLagSeconds["p50"], 3.0, "at most the second RFC 3339 drops, plus the test's own time")
}

func TestStatsNthReminderFire(t *testing.T) {
	h := actorapp.NewHandler(actorapp.Options{Host: "h"})
	data, _ := json.Marshal(actorapp.ReminderData{Due: time.Now(), Period: "1ms"})
	for _, id := range []string{"a", "b", "c"} {
		fire(t, h, id, "r", `{"data":`+string(data)+`}`)
	}
	get := func(q string) (int, perf.ActorStats) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/stats"+q, nil))
		var st perf.ActorStats
		if rec.Code == http.StatusOK {
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
		}
		return rec.Code, st
	}
	code, st := get("?reminderFires=3")
	require.Equal(t, http.StatusOK, code)
	require.NotNil(t, st.ReminderNthFire)
	assert.True(t, st.ReminderNthFire.Equal(*st.ReminderLastTimedFire), "the 3rd of 3 is the last")
	_, st = get("?reminderFires=4")
	assert.Nil(t, st.ReminderNthFire, "only 3 arrived")
	code, _ = get("?reminderFires=0")
	assert.Equal(t, http.StatusBadRequest, code)
}

func TestReminderRegistrationIsRelayedToDaprd(t *testing.T) {
	var got string
	daprd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := new(strings.Builder)
		_, _ = io.Copy(b, r.Body)
		got = r.Method + " " + r.URL.Path + " " + b.String()
		if strings.Contains(r.URL.Path, "/bad/") {
			http.Error(w, `{"errorCode":"ERR_ACTOR_REMINDER_NON_HOSTED"}`, http.StatusForbidden)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(daprd.Close)
	h := actorapp.NewHandler(actorapp.Options{Host: "h", DaprHTTP: daprd.URL})
	post := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"dueTime":"24h"}`)))
		return rec
	}
	rec := post("/v1.0/actors/PerfTestActor/a1/reminders/myreminder")
	assert.Equal(t, http.StatusNoContent, rec.Code)
	assert.Equal(t, `POST /v1.0/actors/PerfTestActor/a1/reminders/myreminder {"dueTime":"24h"}`, got)
	rec = post("/v1.0/actors/PerfTestActor/bad/reminders/myreminder")
	assert.Equal(t, http.StatusForbidden, rec.Code, "daprd's status relayed")
	assert.Contains(t, rec.Body.String(), "ERR_ACTOR_REMINDER_NON_HOSTED")
	assert.EqualValues(t, 1, h.Stats().Errors)
	assert.Equal(t, http.StatusNotFound, post("/v1.0/actors/Other/a1/reminders/r").Code)
	noDaprd := actorapp.NewHandler(actorapp.Options{})
	rec = httptest.NewRecorder()
	noDaprd.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1.0/actors/PerfTestActor/a/reminders/r", nil))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
}
