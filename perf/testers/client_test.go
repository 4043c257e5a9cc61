package testers_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/testers"
)

func TestRunLoadSendsTheToken(t *testing.T) {
	var gotAuth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = append(gotAuth, r.Header.Get("Authorization"))
		_, _ = io.Copy(io.Discard, r.Body)
		if r.Header.Get("Authorization") != "Bearer right" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"status":401,"error":"tester: POST /test needs this run's token"}`)
			return
		}
		_ = json.NewEncoder(w).Encode(perf.Result{Requests: 7})
	}))
	t.Cleanup(srv.Close)
	p := perf.DefaultParams()
	p.Target, p.Duration = "http://127.0.0.1:1/", time.Second

	res, err := testers.RunLoad(t.Context(), testers.Client{URL: srv.URL, Token: "right"}, p)
	require.NoError(t, err)
	assert.EqualValues(t, 7, res.Requests)
	_, err = testers.RunLoad(t.Context(), testers.Client{URL: srv.URL, Token: "wrong"}, p)
	assert.ErrorContains(t, err, "401 Unauthorized: tester: POST /test needs this run's token")
	_, err = testers.RunLoad(t.Context(), testers.Client{URL: srv.URL}, p)
	assert.ErrorContains(t, err, "401 Unauthorized")
	assert.Equal(t, []string{"Bearer right", "Bearer wrong", ""}, gotAuth)
}
