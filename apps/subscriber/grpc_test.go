package subscriber

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"

	runtimev1 "github.com/dapr/dapr/pkg/proto/runtime/v1"

	"github.com/daprperf/daprperf/apps/internal/serve"
	"github.com/daprperf/daprperf/perf"
)

// serveBoth serves h's gRPC callback and HTTP routes on one loopback port, as cmd/subscriber
// -grpc does, until the test ends; it returns the address.
func serveBoth(t *testing.T, h *Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	gln, hln := serve.Split(ln)
	errs := make(chan error, 2)
	go func() { errs <- serve.GRPC(ctx, gln, h.GRPCServer()) }()
	go func() { errs <- serve.HTTP(ctx, hln, h) }()
	t.Cleanup(func() {
		cancel()
		for range 2 {
			assert.NoError(t, <-errs)
		}
		_ = ln.Close()
	})
	return ln.Addr().String()
}

func message(run string, seq int64, sent time.Time) []byte {
	b, _ := json.Marshal(perf.DeliveryMessage{Run: run, Seq: strconv.FormatInt(seq, 10), Sent: strconv.FormatInt(sent.UnixNano(), 10)})
	return b
}

// Over gRPC, on the port that also serves the HTTP stats: the subscription as daprd lists it,
// normal and bulk deliveries counted against a known sequence exactly as over HTTP (lost,
// duplicated, stale, malformed), each entry of a bulk answered SUCCESS by its id.
func TestGRPCDeliveriesCountedOnTheSharedPort(t *testing.T) {
	h, err := NewHandler(Options{PubSub: "pubsub", Topic: "deliveries", Bulk: true, BulkMaxMessages: 10, BulkMaxAwait: 40 * time.Millisecond})
	require.NoError(t, err)
	addr := serveBoth(t, h)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	app := runtimev1.NewAppCallbackClient(conn)
	ctx := t.Context()

	subs, err := app.ListTopicSubscriptions(ctx, &emptypb.Empty{})
	require.NoError(t, err)
	require.Len(t, subs.GetSubscriptions(), 1)
	s := subs.GetSubscriptions()[0]
	assert.Equal(t, "pubsub", s.GetPubsubName())
	assert.Equal(t, "deliveries", s.GetTopic())
	assert.True(t, s.GetBulkSubscribe().GetEnabled())
	assert.EqualValues(t, 10, s.GetBulkSubscribe().GetMaxMessagesCount())
	assert.EqualValues(t, 40, s.GetBulkSubscribe().GetMaxAwaitDurationMs())

	resp, err := http.Post(fmt.Sprintf("http://%s%s?run=main", addr, RouteReset), "", nil)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusNoContent, resp.StatusCode)

	sent := time.Now().Add(-20 * time.Millisecond)
	for _, seq := range []int64{0, 1, 1} {
		r, err := app.OnTopicEvent(ctx, &runtimev1.TopicEventRequest{Id: fmt.Sprint(seq), DataContentType: "application/json", Data: message("main", seq, sent)})
		require.NoError(t, err)
		assert.Equal(t, runtimev1.TopicEventResponse_SUCCESS, r.GetStatus())
	}
	_, err = app.OnTopicEvent(ctx, &runtimev1.TopicEventRequest{Data: []byte("not json")})
	require.NoError(t, err, "a malformed message is answered SUCCESS (counted, not retried)")
	_, err = app.OnTopicEvent(ctx, &runtimev1.TopicEventRequest{Data: message("warmup", 2, sent)})
	require.NoError(t, err)

	ce, err := json.Marshal(map[string]any{"specversion": "1.0", "id": "e4", "data": json.RawMessage(message("main", 4, sent))})
	require.NoError(t, err)
	bulk, err := app.OnBulkTopicEvent(ctx, &runtimev1.TopicEventBulkRequest{Entries: []*runtimev1.TopicEventBulkRequestEntry{
		{EntryId: "a", Event: &runtimev1.TopicEventBulkRequestEntry_CloudEvent{CloudEvent: &runtimev1.TopicEventCERequest{Data: message("main", 2, sent)}}},
		{EntryId: "b", Event: &runtimev1.TopicEventBulkRequestEntry_CloudEvent{CloudEvent: &runtimev1.TopicEventCERequest{Data: message("main", 0, sent)}}},
		{EntryId: "c", Event: &runtimev1.TopicEventBulkRequestEntry_Bytes{Bytes: ce}},
		{EntryId: "d", Event: &runtimev1.TopicEventBulkRequestEntry_Bytes{Bytes: message("main", 5, sent)}},
	}})
	require.NoError(t, err)
	var ids []string
	for _, st := range bulk.GetStatuses() {
		assert.Equal(t, runtimev1.TopicEventResponse_SUCCESS, st.GetStatus())
		ids = append(ids, st.GetEntryId())
	}
	assert.Equal(t, []string{"a", "b", "c", "d"}, ids)

	resp, err = http.Get(fmt.Sprintf("http://%s%s?expected=7", addr, RouteStats))
	require.NoError(t, err)
	var st perf.SubscriberStats
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, int64(5), st.Received, "0 1 2 4 5")
	assert.Equal(t, int64(2), st.Missing, "3 and 6")
	assert.Equal(t, int64(2), st.Duplicates, "1 once more, 0 once more")
	assert.Equal(t, int64(1), st.Stale)
	assert.Equal(t, int64(1), st.Malformed)
	assert.Equal(t, int64(6), st.HandlerCalls, "5 single calls and one bulk")
	assert.Equal(t, int64(1), st.BulkCalls)
	p50 := pct(t, st.Latency, 50)
	assert.GreaterOrEqual(t, p50, 0.020)
	assert.Less(t, p50, 2.0)
}

// The split hands HTTP/1 to the HTTP side and HTTP/2 prior knowledge to gRPC; the health
// route answers on the shared port.
func TestGRPCPortAnswersHealth(t *testing.T) {
	h, err := NewHandler(Options{PubSub: "p", Topic: "t"})
	require.NoError(t, err)
	addr := serveBoth(t, h)
	resp, err := http.Get("http://" + addr + RouteHealth)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	_, err = runtimev1.NewAppCallbackHealthCheckClient(conn).HealthCheck(t.Context(), &emptypb.Empty{})
	assert.NoError(t, err)
	subs, err := runtimev1.NewAppCallbackClient(conn).ListTopicSubscriptions(t.Context(), &emptypb.Empty{})
	require.NoError(t, err)
	assert.Nil(t, subs.GetSubscriptions()[0].GetBulkSubscribe(), "a normal subscription has no bulk config")
}
