package httpapp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/httpapp"
)

func TestHandlerAnswersAnyPath(t *testing.T) {
	h := httpapp.NewHandler(httpapp.Options{})
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
		for _, path := range []string{"/", "/test", "/checkout/123", "/checkout/abc/def?x=1"} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(`{"payload":"x"}`)))
			assert.Equal(t, http.StatusOK, rec.Code, "%s %s", method, path)
			assert.Equal(t, httpapp.Body, rec.Body.String(), "%s %s", method, path)
			assert.Equal(t, "text/plain; charset=utf-8", rec.Header().Get("Content-Type"))
		}
	}
}

func TestHandlerOverLoopback(t *testing.T) {
	srv := httptest.NewServer(httpapp.NewHandler(httpapp.Options{}))
	t.Cleanup(srv.Close)
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		for _, path := range []string{"/", "/test", "/checkout/123"} {
			req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(strings.Repeat("x", 1024)))
			require.NoError(t, err)
			resp, err := srv.Client().Do(req)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, resp.Body.Close())
			require.NoError(t, err)
			assert.Equal(t, http.StatusOK, resp.StatusCode, "%s %s", method, path)
			assert.Equal(t, httpapp.Body, string(body))
		}
	}
}

func TestHandlerFailFractionIsExact(t *testing.T) {
	h := httpapp.NewHandler(httpapp.Options{FailFraction: 0.1})
	codes := map[int]int{}
	for n := 1; n <= 1000; n++ {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/test", strings.NewReader("x")))
		codes[rec.Code]++
		if rec.Code == http.StatusInternalServerError {
			assert.Zero(t, n%10, "request %d failed; only every 10th may", n)
			assert.Equal(t, httpapp.FailureBody+"\n", rec.Body.String())
		}
	}
	assert.Equal(t, map[int]int{http.StatusOK: 900, http.StatusInternalServerError: 100}, codes)
}

func TestHandlerDaprProbesAreNotCounted(t *testing.T) {
	h := httpapp.NewHandler(httpapp.Options{FailFraction: 0.5})
	serve := func(method, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		return rec
	}
	for path, want := range map[string]string{"/dapr/config": "{}", "/dapr/subscribe": "[]", "/healthz": httpapp.Body} {
		rec := serve(http.MethodGet, path)
		assert.Equal(t, http.StatusOK, rec.Code, path)
		assert.Equal(t, want, rec.Body.String(), path)
	}
	// Had the probes been counted, the next request would be number 4, a failure.
	assert.Equal(t, http.StatusOK, serve(http.MethodPost, "/dapr/config").Code, "request 1")
	assert.Equal(t, http.StatusInternalServerError, serve(http.MethodGet, "/test").Code, "request 2")
}

func TestHandlerDelay(t *testing.T) {
	h := httpapp.NewHandler(httpapp.Options{Delay: 2 * time.Millisecond})
	start := time.Now()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.GreaterOrEqual(t, time.Since(start), 2*time.Millisecond)
	assert.Equal(t, http.StatusOK, rec.Code)
}

func TestHandlerDelayRespectsCancel(t *testing.T) {
	h := httpapp.NewHandler(httpapp.Options{Delay: time.Hour})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx))
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("handler still waiting 5s after its request was canceled")
	}
}

func TestOptionsValidate(t *testing.T) {
	require.NoError(t, httpapp.Options{FailFraction: 0.1, Delay: time.Millisecond}.Validate())
	for _, tc := range []struct {
		o     httpapp.Options
		field string
	}{
		{httpapp.Options{FailFraction: -0.1}, "FailFraction"},
		{httpapp.Options{FailFraction: 1.5}, "FailFraction"},
		{httpapp.Options{Delay: -time.Millisecond}, "Delay"},
	} {
		err := tc.o.Validate()
		require.Error(t, err, "%+v", tc.o)
		assert.Contains(t, err.Error(), tc.field)
	}
	err := httpapp.Options{FailFraction: 1.5}.Validate()
	assert.EqualError(t, err, "invalid FailFraction 1.5: must be in [0, 1]")
	err = httpapp.Options{Delay: -time.Millisecond}.Validate()
	assert.EqualError(t, err, "invalid Delay -1ms: must be >= 0")
}

func TestNewHandlerPanicsOnInvalidOptions(t *testing.T) {
	assert.Panics(t, func() { httpapp.NewHandler(httpapp.Options{FailFraction: 2}) })
}
