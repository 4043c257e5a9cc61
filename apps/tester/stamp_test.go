package tester

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

func TestStampReplacesEveryTokenInOrder(t *testing.T) {
	var s sequence
	now := time.Unix(0, 1764600000123456789)
	got := s.stamp([]byte(`a{seq}b{sendtime}c{seq}`), now)
	assert.Equal(t, "a0b1764600000123456789c1", string(got))
	got = s.stamp([]byte(perf.DeliveryPayload("r", 100)), now)
	var m perf.DeliveryMessage
	require.NoError(t, json.Unmarshal(got, &m))
	assert.Equal(t, perf.DeliveryMessage{Run: "r", Seq: "2", Sent: "1764600000123456789", Pad: m.Pad}, m)
	assert.GreaterOrEqual(t, len(got), 100)
	assert.Equal(t, "plain", string(s.stamp([]byte("plain"), now)))
}

// A stamped publish load: every request carries a distinct sequence number 0..N-1 and a send
// time close to when it arrived.
func TestStampedLoadSendsEachSequenceNumberOnce(t *testing.T) {
	var mu sync.Mutex
	seen := map[int64]int{}
	var maxAge time.Duration
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m perf.DeliveryMessage
		if err := json.Unmarshal(b, &m); err != nil || r.Header.Get("Content-Type") != "application/json" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		seq, sent, err := perf.ParseDeliveryMessage(m)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		mu.Lock()
		seen[seq]++
		maxAge = max(maxAge, time.Since(sent))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	p, err := perf.NewParams(perf.WithQPS(200), perf.WithConnections(4), perf.WithDuration(time.Second), perf.WithTarget(srv.URL),
		perf.WithPayload(perf.DeliveryPayload("t1", 100)))
	require.NoError(t, err)
	p.Operation = perf.Operation{Kind: perf.OpPublish, PubSub: "ps", Topic: "t"}
	res, err := Run(t.Context(), p)
	require.NoError(t, err)
	assert.Zero(t, res.Errors(), "%v", res.RetCodes)
	require.Equal(t, int64(len(seen)), res.Requests)
	for i := range res.Requests {
		assert.Equal(t, 1, seen[i], "sequence number "+strconv.FormatInt(i, 10))
	}
	assert.Less(t, maxAge, time.Second)
}
