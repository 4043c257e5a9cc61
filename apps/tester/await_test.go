package tester

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/subscriber"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
)

// fakeBroker is daprd's bulk publish endpoint and a broker in one: it answers each bulk at
// once and, after lag, delivers its events to sub as CloudEvents (nothing when drop is set).
func fakeBroker(t *testing.T, sub http.Handler, lag time.Duration, drop bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var entries []struct {
			Event json.RawMessage `json:"event"`
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &entries); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		if drop {
			return
		}
		go func() {
			time.Sleep(lag)
			for _, e := range entries {
				body, _ := json.Marshal(map[string]json.RawMessage{"data": e.Event})
				sub.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, subscriber.RouteDeliver, bytes.NewReader(body)))
			}
		}()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A closed loop of bulk publishes whose iterations wait for their messages: the driver records
// the publish request alone, or the request and the wait (Await.Timed); an iteration whose
// messages never arrive fails with perf.CodeDeliveryTimeout. Every message the subscriber
// counts was stamped with a sequence number of its own request's block.
func TestAwaitingIterations(t *testing.T) {
	const lag = 150 * time.Millisecond
	for _, tc := range []struct {
		name  string
		timed bool
		drop  bool
	}{{"request timed", false, false}, {"request and wait timed", true, false}, {"messages never arrive", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			sub, err := subscriber.NewHandler(subscriber.Options{PubSub: "ps", Topic: "t"})
			require.NoError(t, err)
			sub.Reset("t1")
			subSrv := httptest.NewServer(sub)
			defer subSrv.Close()
			broker := fakeBroker(t, sub, lag, tc.drop)
			p, err := perf.NewParams(perf.WithTarget(broker.URL), perf.WithPayload(perf.DeliveryPayload("t1", 100)),
				perf.WithExecutor(driver.Executor{Kind: driver.ConstantVUs, VUs: 3, Duration: 600 * time.Millisecond, GracefulStop: 5 * time.Second}))
			require.NoError(t, err)
			p.Operation = perf.Operation{Kind: perf.OpPublishBulk, PubSub: "ps", Topic: "t", BulkEntries: 10}
			p.Await = &perf.Await{URL: subSrv.URL, Run: "t1", Timeout: time.Second, Timed: tc.timed}
			require.NoError(t, p.Validate())
			res, err := Run(t.Context(), p)
			require.NoError(t, err)
			require.Positive(t, res.Requests)
			if tc.drop {
				assert.Equal(t, res.Requests, res.AwaitTimeouts(), "%v", res.RetCodes)
				return
			}
			assert.Zero(t, res.Errors(), "%v", res.RetCodes)
			st, err := sub.Stats(res.Requests * 10)
			require.NoError(t, err)
			assert.Equal(t, res.Requests*10, st.Received, "every message of every request arrived")
			assert.Zero(t, st.Unexpected+st.Duplicates)
			p50, err := res.Latency.Percentile(50)
			require.NoError(t, err)
			if tc.timed {
				assert.Greater(t, p50, lag, "the wait is timed")
			} else {
				assert.Less(t, p50, lag, "the publish request alone is timed")
			}
		})
	}
}

// Await needs a closed loop, an operation that stamps messages and a subscriber URL, each
// error naming the field.
func TestAwaitValidation(t *testing.T) {
	p, err := perf.NewParams(perf.WithTarget("http://127.0.0.1:3500"), perf.WithQPS(10))
	require.NoError(t, err)
	p.Operation = perf.Operation{Kind: perf.OpStateGet, Store: "s", Key: "k"}
	p.Await = &perf.Await{URL: "127.0.0.1:3000", Timeout: 0}
	err = p.Validate()
	require.Error(t, err)
	for _, want := range []string{"await.url", "await.run", "await.timeout", "needs an executor", "operation.kind"} {
		assert.Contains(t, err.Error(), want)
	}
}
