package subscriber

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"

	commonv1 "github.com/dapr/dapr/pkg/proto/common/v1"
	runtimev1 "github.com/dapr/dapr/pkg/proto/runtime/v1"

	"github.com/daprperf/daprperf/perf"
)

// configValue is an update's value as the tester writes it: a stamped DeliveryMessage.
func configValue(t *testing.T, run string, seq int64, sent time.Time) string {
	t.Helper()
	b, err := json.Marshal(perf.DeliveryMessage{Run: run, Seq: strconv.FormatInt(seq, 10), Sent: strconv.FormatInt(sent.UnixNano(), 10)})
	require.NoError(t, err)
	return string(b)
}

func configHandler(t *testing.T) *Handler {
	t.Helper()
	h, err := NewHandler(Options{ConfigurationStore: "configstore"})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	h.Reset("main")
	return h
}

func TestConfigurationOptions(t *testing.T) {
	_, err := NewHandler(Options{ConfigurationStore: "configstore", Topic: "t"})
	require.EqualError(t, err, "subscriber: ConfigurationStore (-configuration-store) is the configuration mode: leave -pubsub, -topic, -bulk*, -delay unset")
	_, err = NewHandler(Options{ConfigurationStore: "configstore", Delay: time.Millisecond})
	require.Error(t, err)
	h := configHandler(t)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/dapr/subscribe", nil))
	assert.JSONEq(t, `[]`, w.Body.String(), "no topic subscription in the configuration mode")
}

// daprd's HTTP updates, as it POSTs them to /configuration/<store>/<key>: 0..9 expected, 4 and
// 7 never told, 2 told twice, one of the warmup's, one whose value is no message, one for
// another store, one whose path key is not in its items (daprd posts the event once per key).
func TestConfigurationHTTPUpdatesAreCounted(t *testing.T) {
	h := configHandler(t)
	sent := time.Now().Add(-30 * time.Millisecond)
	update := func(store, key, run string, seq int64) {
		t.Helper()
		ev := map[string]any{"id": "sub-1", "items": map[string]any{key: map[string]any{"value": configValue(t, run, seq, sent), "version": ""}}}
		w := post(t, h, RouteConfigurationPrefix+store+"/"+key, ev)
		require.Equal(t, http.StatusOK, w.Code, "daprd wants a 200 for every update")
	}
	for _, seq := range []int64{0, 1, 2, 2, 3, 5, 6, 8, 9} {
		update("configstore", fmt.Sprintf("update-%d", seq), "main", seq)
	}
	update("configstore", "update-w", "warmup", 4)
	update("otherstore", "update-7", "main", 7)
	post(t, h, RouteConfigurationPrefix+"configstore/update-x", map[string]any{"id": "sub-1", "items": map[string]any{"update-x": map[string]any{"value": "not json"}}})
	post(t, h, RouteConfigurationPrefix+"configstore/update-y", map[string]any{"id": "sub-1", "items": map[string]any{"update-z": map[string]any{"value": configValue(t, "main", 7, sent)}}})

	st := stats(t, h, 10)
	assert.Equal(t, int64(8), st.Received, "0 1 2 3 5 6 8 9")
	assert.Equal(t, int64(2), st.Missing, "4 (only the warmup's) and 7 (only for another store or key)")
	assert.Equal(t, int64(1), st.Duplicates, "2 twice")
	assert.Equal(t, int64(1), st.Stale)
	assert.Equal(t, int64(3), st.Malformed, "another store, a value that is no message, a key not in the items")
	assert.Equal(t, int64(13), st.HandlerCalls)
	p50 := pct(t, st.Latency, 50)
	assert.GreaterOrEqual(t, p50, 0.030)
	assert.Less(t, p50, 2.0)
}

// fakeDapr is daprd's gRPC SubscribeConfiguration: it answers the subscription id, then sends
// each of updates as one answer (one item each), then holds the stream open.
type fakeDapr struct {
	runtimev1.UnimplementedDaprServer
	store   chan string
	updates []map[string]string
}

func (f *fakeDapr) SubscribeConfiguration(req *runtimev1.SubscribeConfigurationRequest, s runtimev1.Dapr_SubscribeConfigurationServer) error {
	f.store <- req.GetStoreName()
	if err := s.Send(&runtimev1.SubscribeConfigurationResponse{Id: "grpc-sub-1"}); err != nil {
		return err
	}
	for _, u := range f.updates {
		items := map[string]*commonv1.ConfigurationItem{}
		for k, v := range u {
			items[k] = &commonv1.ConfigurationItem{Value: v}
		}
		if err := s.Send(&runtimev1.SubscribeConfigurationResponse{Id: "grpc-sub-1", Items: items}); err != nil {
			return err
		}
	}
	<-s.Context().Done()
	return nil
}

func TestConfigurationGRPCSubscription(t *testing.T) {
	sent := time.Now().Add(-10 * time.Millisecond)
	f := &fakeDapr{store: make(chan string, 1)}
	for _, seq := range []int64{0, 1, 1, 3} {
		f.updates = append(f.updates, map[string]string{fmt.Sprintf("update-%d", seq): configValue(t, "main", seq, sent)})
	}
	f.updates = append(f.updates, map[string]string{"a": configValue(t, "main", 4, sent), "b": configValue(t, "main", 5, sent)})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer()
	runtimev1.RegisterDaprServer(srv, f)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)

	h := configHandler(t)
	sub := func(proto, addr string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		q := url.Values{"protocol": {proto}, "dapr": {addr}}
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, RouteConfigurationSubscribe+"?"+q.Encode(), nil))
		return w
	}
	w := sub("grpc", ln.Addr().String())
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.JSONEq(t, `{"id":"grpc-sub-1","protocol":"grpc","store":"configstore"}`, w.Body.String())
	assert.Equal(t, "configstore", <-f.store)
	w = sub("grpc", ln.Addr().String())
	assert.Equal(t, http.StatusOK, w.Code, "a second call answers the subscription already made")
	assert.Equal(t, http.StatusConflict, sub("http", "http://"+ln.Addr().String()).Code)

	require.Eventually(t, func() bool { return stats(t, h, 6).Deliveries == 6 }, 5*time.Second, 10*time.Millisecond)
	st := stats(t, h, 6)
	assert.Equal(t, int64(5), st.Received, "0 1 3 4 5")
	assert.Equal(t, int64(1), st.Missing, "2")
	assert.Equal(t, int64(1), st.Duplicates)
	assert.Equal(t, int64(5), st.HandlerCalls, "one per stream answer")
	assert.Equal(t, int64(1), st.BulkCalls, "the answer with two items")
	assert.GreaterOrEqual(t, pct(t, st.Latency, 50), 0.010)
}

func TestConfigurationHTTPSubscription(t *testing.T) {
	var asked string
	dapr := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = r.Method + " " + r.URL.String()
		if r.URL.Path != "/v1.0/configuration/configstore/subscribe" {
			http.Error(w, "no such store", http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte(`{"id":"http-sub-1"}`))
	}))
	t.Cleanup(dapr.Close)
	h := configHandler(t)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, RouteConfigurationSubscribe+"?protocol=http&dapr="+url.QueryEscape(dapr.URL), nil))
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.JSONEq(t, `{"id":"http-sub-1","protocol":"http","store":"configstore"}`, w.Body.String())
	assert.Equal(t, "GET /v1.0/configuration/configstore/subscribe", asked, "every key: no key in the query")

	_, err := subscribeHTTP(context.Background(), dapr.URL, "other")
	require.ErrorContains(t, err, "400 Bad Request: no such store")
}

func TestConfigurationSubscribeRefusesBadQueries(t *testing.T) {
	h := configHandler(t)
	for _, q := range []string{"protocol=tcp&dapr=127.0.0.1:1", "protocol=grpc&dapr=10.0.0.1:50001", "protocol=http&dapr=127.0.0.1:3500",
		"protocol=http&dapr=" + url.QueryEscape("http://example.com:3500"), "protocol=grpc"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, RouteConfigurationSubscribe+"?"+q, nil))
		assert.Equal(t, http.StatusBadRequest, w.Code, q)
	}
	assert.NoError(t, loopbackAddr("http", "http://127.0.0.1:3500"))
	assert.NoError(t, loopbackAddr("grpc", "127.0.0.2:50001"))
}
