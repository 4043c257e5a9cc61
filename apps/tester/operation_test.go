package tester

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// seenRequest is one request as the fake daprd received it.
type seenRequest struct {
	Method, Path, RawQuery, ContentType, Body string
}

// fakeDaprd is an httptest server standing in for daprd's HTTP API: it records every request
// and answers status.
func fakeDaprd(t *testing.T, status int) (url string, seen func() []seenRequest) {
	t.Helper()
	var mu sync.Mutex
	var reqs []seenRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		reqs = append(reqs, seenRequest{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), string(b)})
		mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []seenRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]seenRequest(nil), reqs...)
	}
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestHTTPOperationShapes runs a 1 s load of each operation against a fake of daprd's HTTP
// API and checks every request it received: method, path, query, content type and body, as
// Dapr's API reference gives them. The payload is 8 bytes of generated text, so values and
// events are JSON strings of it; {uuid} becomes a new UUID per request.
func TestHTTPOperationShapes(t *testing.T) {
	const value = `"abcdefgh"` // perf.Params.RequestBody of 8 bytes, as a JSON string
	for _, tc := range []struct {
		op       perf.Operation
		method   string
		path     string // with {uuid} where each request has its own
		query    string
		ctype    string
		body     string // "" for no body; {uuid} likewise
		baseline perf.BaselineKind
	}{
		{perf.Operation{Kind: perf.OpInvoke, AppID: "callee", Method: "test"}, "POST", "/v1.0/invoke/callee/method/test", "", "application/octet-stream", "abcdefgh", perf.BaselineApp},
		{perf.Operation{Kind: perf.OpInvoke, Method: "test"}, "POST", "/test", "", "application/octet-stream", "abcdefgh", perf.BaselineApp},
		{perf.Operation{Kind: perf.OpActorReminder, ActorType: "PerfTestActorReminder", ActorID: "{uuid}", Reminder: "myreminder"}, "POST", "/v1.0/actors/PerfTestActorReminder/{uuid}/reminders/myreminder", "", "application/json", "abcdefgh", perf.BaselineNoOp},
		{perf.Operation{Kind: perf.OpStateGet, Store: "statestore", Key: "k1"}, "GET", "/v1.0/state/statestore/k1", "", "", "", perf.BaselineNoOp},
		{perf.Operation{Kind: perf.OpStateGet, Store: "statestore", Key: "k-{uuid}"}, "GET", "/v1.0/state/statestore/k-{uuid}", "", "", "", perf.BaselineNoOp},
		{perf.Operation{Kind: perf.OpStateSave, Store: "statestore", Key: "order-{uuid}", Baseline: perf.BaselineStore}, "POST", "/v1.0/state/statestore", "", "application/json",
			`[{"key":"order-{uuid}","value":` + value + `}]`, perf.BaselineStore},
		{perf.Operation{Kind: perf.OpStateDelete, Store: "statestore", Key: "k1"}, "DELETE", "/v1.0/state/statestore/k1", "", "", "", perf.BaselineNoOp},
		{perf.Operation{Kind: perf.OpPublish, PubSub: "pubsub", Topic: "orders"}, "POST", "/v1.0/publish/pubsub/orders", "", "text/plain", "abcdefgh", perf.BaselineNoOp},
		{perf.Operation{Kind: perf.OpPublishBulk, PubSub: "pubsub", Topic: "orders", BulkEntries: 3}, "POST", "/v1.0-alpha1/publish/bulk/pubsub/orders", "", "application/json",
			`[{"entryId":"0","event":` + value + `,"contentType":"text/plain"},{"entryId":"1","event":` + value + `,"contentType":"text/plain"},{"entryId":"2","event":` + value + `,"contentType":"text/plain"}]`, perf.BaselineNoOp},
		{perf.Operation{Kind: perf.OpPublish, PubSub: "pubsub", Topic: "orders", RawPayload: true}, "POST", "/v1.0/publish/pubsub/orders", "metadata.rawPayload=true", "text/plain", "abcdefgh", perf.BaselineNoOp},
		{perf.Operation{Kind: perf.OpPublishBulk, PubSub: "pubsub", Topic: "orders", BulkEntries: 1, RawPayload: true}, "POST", "/v1.0-alpha1/publish/bulk/pubsub/orders", "metadata.rawPayload=true", "application/json",
			`[{"entryId":"0","event":` + value + `,"contentType":"text/plain"}]`, perf.BaselineNoOp},
		{perf.Operation{Kind: perf.OpActorInvoke, ActorType: "Counter", ActorID: "{uuid}", Method: "add"}, "POST", "/v1.0/actors/Counter/{uuid}/method/add", "", "application/json", "abcdefgh", perf.BaselineNoOp},
		{perf.Operation{Kind: perf.OpJobSchedule, JobName: "job-{uuid}", JobDueTime: time.Hour}, "POST", "/v1.0-alpha1/jobs/job-{uuid}", "", "application/json",
			`{"dueTime":"1h0m0s","data":` + value + `}`, perf.BaselineNoOp},
		{perf.Operation{Kind: perf.OpConfigurationGet, Store: "configstore", Keys: []string{"a", "b"}}, "GET", "/v1.0/configuration/configstore", "key=a&key=b", "", "", perf.BaselineNoOp},
	} {
		t.Run(string(tc.op.Kind)+tc.path, func(t *testing.T) {
			base, seen := fakeDaprd(t, http.StatusNoContent)
			p := load(t, perf.HTTP, base, 20, time.Second)
			p.Connections, p.PayloadBytes, p.Operation = 2, 8, tc.op
			res, err := Run(t.Context(), p)
			require.NoError(t, err)
			assert.Zero(t, res.Errors(), "codes: %v", res.RetCodes)
			assert.Equal(t, tc.baseline, res.Baseline, "the result states the operation's baseline")
			assert.Equal(t, tc.op, res.Params.Operation, "the result echoes the operation")

			reqs := seen()
			// fortio's HTTP runner sends one request per connection before the load (not
			// recorded); a body with {uuid}, and a kind daprd answers 204 (noContentKinds), go
			// through the tester's own callers, which do not.
			warmups := p.Connections
			if strings.Contains(tc.body, perf.UUIDToken) || answersNoContent(tc.op) {
				warmups = 0
			}
			if answersNoContent(tc.op) {
				assert.Equal(t, int64(p.Connections), res.Sockets, "204 answers keep their connections alive")
			}
			require.Len(t, reqs, int(res.Requests)+warmups)
			pathRE := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(tc.path), regexp.QuoteMeta(perf.UUIDToken), uuidRE.String()) + "$")
			paths := map[string]bool{}
			for _, r := range reqs {
				assert.Equal(t, tc.method, r.Method)
				assert.Regexp(t, pathRE, r.Path)
				assert.Equal(t, tc.query, r.RawQuery)
				assert.Equal(t, tc.ctype, r.ContentType)
				body := uuidRE.ReplaceAllString(r.Body, perf.UUIDToken)
				assert.Equal(t, tc.body, body)
				if tc.body != "" && strings.HasPrefix(tc.body, "[") || strings.HasPrefix(tc.body, "{") {
					assert.True(t, json.Valid([]byte(r.Body)), "valid JSON: %s", r.Body)
				}
				paths[r.Path+" "+r.Body] = true
			}
			if strings.Contains(tc.path+tc.body, perf.UUIDToken) {
				assert.Len(t, paths, len(reqs), "{uuid} makes every request distinct")
			} else {
				assert.Len(t, paths, 1, "every request the same")
			}
			wantValue := 8
			if tc.body == "" {
				wantValue = 0
			}
			assert.Equal(t, wantValue, res.Params.PayloadBytes, "the stored payload size is the value the requests carried")
		})
	}
}

// TestLegacyInvokeRequestIsUnchanged: params without an operation load Target as given, as
// before operations: a POST of the payload as application/octet-stream (GET without one),
// and the result says its baseline is the app itself.
func TestLegacyInvokeRequestIsUnchanged(t *testing.T) {
	for _, payload := range []int{0, 16} {
		base, seen := fakeDaprd(t, http.StatusOK)
		p := load(t, perf.HTTP, base+"/v1.0/invoke/callee/method/test", 20, time.Second)
		p.Connections, p.PayloadBytes = 2, payload
		res, err := Run(t.Context(), p)
		require.NoError(t, err)
		assert.Zero(t, res.Errors())
		assert.Equal(t, perf.BaselineApp, res.Baseline)
		assert.True(t, res.Params.Operation.IsZero())
		for _, r := range seen() {
			assert.Equal(t, "/v1.0/invoke/callee/method/test", r.Path)
			if payload == 0 {
				assert.Equal(t, "GET", r.Method)
				assert.Empty(t, r.Body)
			} else {
				assert.Equal(t, "POST", r.Method)
				assert.Equal(t, "application/octet-stream", r.ContentType)
				assert.Len(t, r.Body, payload)
			}
		}
	}
}

// TestFailedOperationsAreCounted: a daprd that answers 500 (a missing store) fails every
// request, and the result counts each.
func TestFailedOperationsAreCounted(t *testing.T) {
	base, _ := fakeDaprd(t, http.StatusInternalServerError)
	p := load(t, perf.HTTP, base, 20, time.Second)
	p.Connections, p.Operation = 2, perf.Operation{Kind: perf.OpStateGet, Store: "nostore", Key: "k"}
	res, err := Run(t.Context(), p)
	require.NoError(t, err)
	assert.Equal(t, res.Requests, res.Errors())
	assert.Equal(t, res.Requests, res.RetCodes["500"])
}

// TestUnimplementedGRPCKindIs400 posts gRPC loads of the kinds not implemented over gRPC: the
// tester refuses each with 400 naming the kind, before any connection.
func TestUnimplementedGRPCKindIs400(t *testing.T) {
	for _, kind := range []perf.OperationKind{perf.OpActorInvoke, perf.OpJobSchedule} { // configuration.get: configuration_test.go
		body := `{"protocol":"grpc","target":"127.0.0.1:1","qps":5,"operation":` + map[perf.OperationKind]string{
			perf.OpActorInvoke: `{"kind":"actor.invoke","actorType":"A","actorID":"{uuid}","method":"m"}`,
			perf.OpJobSchedule: `{"kind":"job.schedule","jobName":"j","jobDueTime":3600000000000}`,
		}[kind] + `}`
		code, reply := post(t, openHandler(t, "127.0.0.1:1"), body)
		assert.Equal(t, http.StatusBadRequest, code, kind)
		assert.Contains(t, reply.Error, "operation.kind = "+string(kind)+": not implemented over protocol grpc yet", kind)
	}
	code, reply := post(t, openHandler(t, "127.0.0.1:1"), `{"target":"http://127.0.0.1:1","qps":5,"operation":{"kind":"state.get","store":"s"}}`)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, reply.Error, `operation.key = "": must be set for kind state.get`)
}
