package subscriber

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// event is a CloudEvent as daprd delivers it, with msg as its JSON data.
func event(run string, seq int64, sent time.Time) map[string]any {
	return map[string]any{"specversion": "1.0", "id": fmt.Sprint(seq), "datacontenttype": "application/json",
		"data": perf.DeliveryMessage{Run: run, Seq: strconv.FormatInt(seq, 10), Sent: strconv.FormatInt(sent.UnixNano(), 10)}}
}

func post(t *testing.T, h http.Handler, path string, body any) *httptest.ResponseRecorder {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, bytes.NewReader(b)))
	return w
}

func stats(t *testing.T, h http.Handler, expected int64) perf.SubscriberStats {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, fmt.Sprintf("%s?expected=%d", RouteStats, expected), nil))
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var st perf.SubscriberStats
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &st))
	return st
}

// Against a known sequence: 0..9 expected; 3 and 7 never arrive, 5 arrives three times, 2
// twice, 12 is beyond the load, and one message is a warmup's (another run).
func TestCountsLostDuplicatedAgainstAKnownSequence(t *testing.T) {
	h, err := NewHandler(Options{PubSub: "pubsub", Topic: "t"})
	require.NoError(t, err)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, RouteReset+"?run=main", nil))
	require.Equal(t, http.StatusNoContent, w.Code)

	sent := time.Now().Add(-20 * time.Millisecond)
	for _, seq := range []int64{0, 1, 2, 2, 4, 5, 5, 5, 6, 8, 9, 12} {
		w := post(t, h, RouteDeliver, event("main", seq, sent))
		require.Equal(t, http.StatusOK, w.Code)
		assert.JSONEq(t, `{"status":"SUCCESS"}`, w.Body.String())
	}
	post(t, h, RouteDeliver, event("warmup", 3, sent))
	post(t, h, RouteDeliver, map[string]any{"data": "not a message"})

	st := stats(t, h, 10)
	assert.Equal(t, "main", st.Run)
	assert.Equal(t, int64(10), st.Expected)
	assert.Equal(t, int64(8), st.Received, "0 1 2 4 5 6 8 9")
	assert.Equal(t, int64(2), st.Missing, "3 and 7")
	assert.Equal(t, int64(3), st.Duplicates, "2 once more, 5 twice more")
	assert.Equal(t, int64(1), st.Unexpected, "12")
	assert.Equal(t, int64(12), st.Deliveries)
	assert.Equal(t, int64(1), st.Stale)
	assert.Equal(t, int64(1), st.Malformed)
	assert.Equal(t, int64(14), st.HandlerCalls)
	assert.Equal(t, int64(14), st.Answered, "every call answered")
	// 9 first deliveries timed (12 included), each about 20 ms after its send time
	p50 := pct(t, st.Latency, 50)
	assert.GreaterOrEqual(t, p50, 0.020)
	assert.Less(t, p50, 2.0)
	assert.Less(t, pct(t, st.Handler, 99), p50, "the handler costs less than the latency it measures")

	// a reset starts the next load from zero
	h.Reset("next")
	st = stats(t, h, 10)
	assert.Equal(t, int64(0), st.Received)
	assert.Equal(t, int64(10), st.Missing)
	assert.Nil(t, st.Latency.Percentiles)
}

func pct(t *testing.T, l perf.Latency, p float64) float64 {
	t.Helper()
	for _, q := range l.Percentiles {
		if q.P == p {
			return q.Seconds
		}
	}
	t.Fatalf("no p%v in %+v", p, l.Percentiles)
	return 0
}

func TestBulkDeliveryAnswersEveryEntry(t *testing.T) {
	h, err := NewHandler(Options{PubSub: "pubsub", Topic: "t", Bulk: true, BulkMaxMessages: 50, BulkMaxAwait: 40 * time.Millisecond})
	require.NoError(t, err)
	h.Reset("main")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/dapr/subscribe", nil))
	assert.JSONEq(t, `[{"pubsubname":"pubsub","topic":"t","route":"/deliver-bulk","bulkSubscribe":{"enabled":true,"maxMessagesCount":50,"maxAwaitDurationMs":40}}]`, w.Body.String())

	now := time.Now()
	var entries []map[string]any
	for _, seq := range []int64{0, 1, 1, 2} {
		entries = append(entries, map[string]any{"entryId": fmt.Sprint("e", seq), "event": event("main", seq, now), "contentType": "application/cloudevents+json"})
	}
	w = post(t, h, RouteDeliverBulk, map[string]any{"entries": entries, "topic": "t", "pubsubname": "pubsub"})
	require.Equal(t, http.StatusOK, w.Code)
	var ans struct {
		Statuses []struct{ EntryID, Status string }
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &ans))
	require.Len(t, ans.Statuses, 4)
	for _, s := range ans.Statuses {
		assert.Equal(t, "SUCCESS", s.Status)
		assert.True(t, strings.HasPrefix(s.EntryID, "e"))
	}
	st := stats(t, h, 4)
	assert.Equal(t, int64(3), st.Received)
	assert.Equal(t, int64(1), st.Missing)
	assert.Equal(t, int64(1), st.Duplicates)
	assert.Equal(t, int64(1), st.HandlerCalls)
	assert.Equal(t, int64(1), st.BulkCalls)
}

func TestNormalSubscriptionAndBadInput(t *testing.T) {
	h, err := NewHandler(Options{PubSub: "ps", Topic: "orders"})
	require.NoError(t, err)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/dapr/subscribe", nil))
	assert.JSONEq(t, `[{"pubsubname":"ps","topic":"orders","route":"/deliver"}]`, w.Body.String())

	for _, tc := range []struct{ method, path, want string }{
		{http.MethodGet, RouteStats + "?expected=-1", "expected"},
		{http.MethodGet, RouteStats, "expected"},
		{http.MethodPost, RouteReset, "run"},
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
		assert.Equal(t, http.StatusBadRequest, w.Code, tc.path)
		assert.Contains(t, w.Body.String(), tc.want, tc.path)
	}
	for _, o := range []struct {
		o    Options
		want string
	}{
		{Options{Topic: "t"}, "PubSub"},
		{Options{PubSub: "p"}, "Topic"},
		{Options{PubSub: "p", Topic: "t", BulkMaxMessages: -1}, "BulkMaxMessages"},
		{Options{PubSub: "p", Topic: "t", BulkMaxAwait: time.Microsecond}, "BulkMaxAwait"},
	} {
		_, err := NewHandler(o.o)
		require.Error(t, err)
		assert.Contains(t, err.Error(), o.want)
	}
}

// The handler's own cost: the time of one delivery, decode and count, in process.
func BenchmarkDeliver(b *testing.B) {
	h, _ := NewHandler(Options{PubSub: "p", Topic: "t"})
	h.Reset("main")
	now := time.Now()
	bodies := make([][]byte, 1000)
	for i := range bodies {
		bodies[i], _ = json.Marshal(event("main", int64(i), now))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, RouteDeliver, bytes.NewReader(bodies[i%len(bodies)])))
	}
}

// await GETs RouteAwait and returns the status.
func await(h http.Handler, run string, from, count int64, timeout time.Duration) int {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, fmt.Sprintf("%s?run=%s&from=%d&count=%d&timeout=%s", RouteAwait, run, from, count, timeout), nil))
	return w.Code
}

// An await answers 200 once every sequence number of its block has arrived (those before it
// included), 504 when its timeout passes first, 409 for another load's block or when the
// counts are reset meanwhile, 400 for a malformed query; it releases no other block.
func TestAwaitReleasesExactlyItsBlock(t *testing.T) {
	h, err := NewHandler(Options{PubSub: "pubsub", Topic: "t"})
	require.NoError(t, err)
	h.Reset("main")
	sent := time.Now()
	post(t, h, RouteDeliver, event("main", 10, sent)) // before its await

	codes := make(chan int, 2)
	go func() { codes <- await(h, "main", 10, 3, 5*time.Second) }() // 10, 11, 12
	go func() { codes <- await(h, "main", 20, 2, 5*time.Second) }() // 20, 21: never complete
	time.Sleep(50 * time.Millisecond)
	post(t, h, RouteDeliver, event("main", 11, sent))
	post(t, h, RouteDeliver, event("main", 20, sent))
	post(t, h, RouteDeliver, event("warmup", 12, sent)) // another load's 12 does not count
	select {
	case c := <-codes:
		t.Fatalf("an await answered %d before its block arrived", c)
	case <-time.After(100 * time.Millisecond):
	}
	post(t, h, RouteDeliver, event("main", 12, sent))
	assert.Equal(t, http.StatusOK, <-codes, "10..12 all arrived")

	assert.Equal(t, http.StatusGatewayTimeout, await(h, "main", 30, 1, 20*time.Millisecond))
	assert.Equal(t, http.StatusOK, await(h, "main", 10, 2, 20*time.Millisecond), "already arrived")
	assert.Equal(t, http.StatusConflict, await(h, "warmup", 0, 1, time.Second), "another load")
	assert.Equal(t, http.StatusBadRequest, await(h, "main", 0, 0, time.Second), "count 0")
	assert.Equal(t, http.StatusBadRequest, await(h, "", 0, 1, time.Second), "no run")

	h.Reset("next")
	assert.Equal(t, http.StatusConflict, <-codes, "20..21: the counts were reset under it")
}

// A slow consumer counts a call's messages on arrival and answers after its delay: until then
// the call is in flight (Answered < HandlerCalls), which the delivery plan's drain waits out.
func TestACallIsAnsweredOnlyAfterTheDelay(t *testing.T) {
	const delay = 300 * time.Millisecond
	h, err := NewHandler(Options{PubSub: "pubsub", Topic: "t", Delay: delay})
	require.NoError(t, err)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, RouteReset+"?run=main", nil))
	require.Equal(t, http.StatusNoContent, w.Code)

	body, err := json.Marshal(event("main", 0, time.Now()))
	require.NoError(t, err)
	answered := make(chan int, 1)
	go func() { // no t here: a goroutine must not fail the test
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, RouteDeliver, bytes.NewReader(body)))
		answered <- w.Code
	}()
	require.Eventually(t, func() bool { return stats(t, h, 1).Received == 1 }, delay, 5*time.Millisecond, "the message counts on arrival")
	st := stats(t, h, 1)
	assert.Equal(t, int64(1), st.HandlerCalls)
	assert.Equal(t, int64(0), st.Answered, "the call waits for its delay")
	assert.Equal(t, http.StatusOK, <-answered)
	assert.Equal(t, int64(1), stats(t, h, 1).Answered)
}

// GET /stats?timeline=1 adds the load second by second: each second's messages received
// (duplicates counted as its errors) with their delivery latency; without it, none is built.
func TestStatsTimeline(t *testing.T) {
	h, err := NewHandler(Options{PubSub: "pubsub", Topic: "t"})
	require.NoError(t, err)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, RouteReset+"?run=main", nil))
	require.Equal(t, http.StatusNoContent, w.Code)
	sent := time.Now().Add(-20 * time.Millisecond)
	for _, seq := range []int64{0, 1, 1, 2} {
		require.Equal(t, http.StatusOK, post(t, h, RouteDeliver, event("main", seq, sent)).Code)
	}
	assert.Empty(t, stats(t, h, 3).Timeline, "not asked for")
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, RouteStats+"?expected=3&timeline=1", nil))
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var st perf.SubscriberStats
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &st))
	require.Len(t, st.Timeline, 1, "every message came within the first second")
	assert.EqualValues(t, 4, st.Timeline[0].Requests)
	assert.EqualValues(t, 1, st.Timeline[0].Errors, "the duplicate")
	assert.Greater(t, st.Timeline[0].P50Seconds, 0.019, "sent 20 ms before")
	assert.False(t, st.TimelineStart.IsZero())
}
