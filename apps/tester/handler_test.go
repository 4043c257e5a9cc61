package tester

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/httpapp"
	"github.com/daprperf/daprperf/perf"
)

func post(t *testing.T, h http.Handler, body string) (int, ErrorReply) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/test", strings.NewReader(body)))
	var reply ErrorReply
	if rec.Code != http.StatusOK {
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &reply), rec.Body.String())
		assert.Equal(t, rec.Code, reply.Status)
	}
	return rec.Code, reply
}

func TestHealth(t *testing.T) {
	rec := httptest.NewRecorder()
	openHandler(t).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Equal(t, http.StatusOK, rec.Code)
}

func TestBadRequestsNameTheField(t *testing.T) {
	const target = `"target":"http://127.0.0.1:1/test"`
	for _, tc := range []struct {
		name, body, want string
	}{
		{"malformed", `{"qps": `, "malformed JSON"},
		{"not an object", `[1,2]`, "params"},
		{"unknown field", `{"qpss": 5, ` + target + `}`, `unknown field "qpss"`},
		{"wrong type", `{"qps": "fast", ` + target + `}`, `field "qps"`},
		{"qps zero", `{"qps": 0, ` + target + `}`, "qps = 0"},
		{"qps negative", `{"qps": -5, ` + target + `}`, "qps = -5"},
		{"connections", `{"connections": 0, ` + target + `}`, "connections = 0"},
		{"duration short", `{"duration": 1000, ` + target + `}`, "duration = 1µs"},
		{"payload", `{"payloadBytes": -1, ` + target + `}`, "payloadBytes = -1"},
		{"payload huge", `{"payloadBytes": 99999999, ` + target + `}`, "payloadBytes = 99999999"},
		{"resolution (removed: HDR recording)", `{"resolution": 0, ` + target + `}`, `unknown field "resolution"`},
		{"percentile", `{"percentiles": [50, 101], ` + target + `}`, "percentiles = 101"},
		{"protocol", `{"protocol": "udp", ` + target + `}`, "protocol"},
		{"no target", `{"qps": 5}`, `field "target"`},
		{"bad url", `{"target": "127.0.0.1:80"}`, "target = 127.0.0.1:80"},
		{"grpc target", `{"protocol": "grpc", "target": "http://x:1"}`, "target = http://x:1"},
		{"two values", `{` + target + `}{}`, "more than one value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, reply := post(t, openHandler(t, "127.0.0.1:1"), tc.body)
			assert.Equal(t, http.StatusBadRequest, code)
			assert.Contains(t, reply.Error, tc.want)
		})
	}
}

func TestSecondRunGets409(t *testing.T) {
	target := httpApp(t, httpapp.Options{})
	h := openHandler(t, target)
	body, err := json.Marshal(load(t, perf.HTTP, target, 50, 2*time.Second))
	require.NoError(t, err)

	first := make(chan int, 1)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/test", strings.NewReader(string(body))))
		first <- rec.Code
	}()
	// Poll (bounded) until the first run holds the tester, then try a second one.
	require.Eventually(t, h.busy.Load, 2*time.Second, time.Millisecond)
	code, reply := post(t, h, string(body))
	assert.Equal(t, http.StatusConflict, code)
	assert.Contains(t, reply.Error, "already in progress")
	assert.Equal(t, http.StatusOK, <-first, "the first run is not clobbered")
}

// busyProbe records whether the handler still held the tester when it wrote its answer.
type busyProbe struct {
	*httptest.ResponseRecorder
	h           *Handler
	busyAtWrite bool
}

func (b *busyProbe) WriteHeader(code int) {
	b.busyAtWrite = b.h.busy.Load()
	b.ResponseRecorder.WriteHeader(code)
}

// TestTheTesterIsFreeWhenItAnswers: a client that posts its next phase the moment an answer
// arrives (runner.Run does) must never get 409.
func TestTheTesterIsFreeWhenItAnswers(t *testing.T) {
	target := httpApp(t, httpapp.Options{})
	h := openHandler(t, target)
	body, err := json.Marshal(load(t, perf.HTTP, target, 50, time.Second))
	require.NoError(t, err)
	probe := &busyProbe{ResponseRecorder: httptest.NewRecorder(), h: h}
	h.ServeHTTP(probe, httptest.NewRequest(http.MethodPost, "/test", strings.NewReader(string(body))))
	require.Equal(t, http.StatusOK, probe.Code, probe.Body.String())
	assert.False(t, probe.busyAtWrite, "the tester was still busy when it answered")
}

func TestClientDisconnectCancelsTheRun(t *testing.T) {
	target := httpApp(t, httpapp.Options{})
	h := openHandler(t, target)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	body, err := json.Marshal(load(t, perf.HTTP, target, 50, time.Minute))
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/test", strings.NewReader(string(body)))
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	require.Eventually(t, h.busy.Load, 2*time.Second, time.Millisecond, "the one-minute run started")
	cancel() // the client hangs up
	require.Error(t, <-done)
	// The run must end soon after the client left: the tester is free again.
	assert.Eventually(t, func() bool { return !h.busy.Load() }, 5*time.Second, 10*time.Millisecond)
}
