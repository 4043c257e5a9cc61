package tester

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// httpRequest is one HTTP operation as fortio sends it, the same for every request of a load
// but for fortio's {uuid} token, which fortio replaces in the URL path and the body of each
// request (fhttp).
type httpRequest struct {
	// URL is the whole URL.
	URL string
	// Method is the HTTP method; "" leaves it to fortio: POST when there is a body or a
	// ContentType, GET otherwise (what service invocation has always sent).
	Method string
	// Body is the request body; nil sends none.
	Body []byte
	// ContentType is the body's media type; "" leaves it to fortio (application/octet-stream
	// with a body).
	ContentType string
	// ValueBytes is the size of the payload the request carries (the state value, the event),
	// which the result stores as Params.PayloadBytes: 0 for an operation without one.
	ValueBytes int
	// Timeout bounds one request of the driver's fetch caller (fortio's HTTPReqTimeOut); 0 is
	// fortio's default, 3 s (iterationTimeout sets it).
	Timeout time.Duration
}

// Daprd's HTTP API paths (Dapr v1.17 docs, "API reference"). Bulk publish stays under
// v1.0-alpha1, which daprd v1.16 and v1.17 both serve (v1.16 has no v1.0 route for it); jobs
// are v1.0-alpha1 only.
const (
	apiInvoke        = "/v1.0/invoke/%s/method/%s"
	apiState         = "/v1.0/state/%s"
	apiStateKey      = "/v1.0/state/%s/%s"
	apiPublish       = "/v1.0/publish/%s/%s"
	apiPublishBulk   = "/v1.0-alpha1/publish/bulk/%s/%s"
	apiActorMethod   = "/v1.0/actors/%s/%s/method/%s"
	apiActorReminder = "/v1.0/actors/%s/%s/reminders/%s"
	apiJob           = "/v1.0-alpha1/jobs/%s"
	apiConfiguration = "/v1.0/configuration/%s"
)

// httpRequestFor is the request every connection of p's load sends. The zero operation is
// service invocation of p.Target as given, with p's payload: the request the tester has
// always sent. With a kind, p.Target is a base URL and the operation's path is appended to
// its path. Values are JSON: a payload that is valid JSON is embedded as it is (content type
// application/json), any other payload as a JSON string (text/plain for an event).
func httpRequestFor(p perf.Params) (httpRequest, error) {
	payload := p.RequestBody()
	op := p.Operation
	if op.IsZero() {
		return httpRequest{URL: p.Target, Body: payload, ValueBytes: len(payload)}, nil
	}
	base := strings.TrimSuffix(p.Target, "/")
	withValue := func(r httpRequest) httpRequest { r.ValueBytes = len(payload); return r }
	switch op.Kind {
	case perf.OpInvoke:
		u := base + "/" + op.Method
		if op.AppID != "" {
			u = base + fmt.Sprintf(apiInvoke, op.AppID, op.Method)
		}
		return withValue(httpRequest{URL: u, Body: payload}), nil
	case perf.OpStateGet:
		return httpRequest{URL: base + fmt.Sprintf(apiStateKey, op.Store, op.Key), Method: http.MethodGet}, nil
	case perf.OpStateDelete:
		return httpRequest{URL: base + fmt.Sprintf(apiStateKey, op.Store, op.Key), Method: http.MethodDelete}, nil
	case perf.OpStateSave:
		body, err := json.Marshal([]stateItem{{Key: op.Key, Value: jsonValue(payload)}})
		if err != nil {
			return httpRequest{}, fmt.Errorf("tester: state.save body: %w", err)
		}
		return withValue(httpRequest{URL: base + fmt.Sprintf(apiState, op.Store), Method: http.MethodPost, Body: body, ContentType: "application/json"}), nil
	case perf.OpPublish:
		ct := "text/plain"
		if len(payload) > 0 && json.Valid(payload) {
			ct = "application/json"
		}
		return withValue(httpRequest{URL: base + fmt.Sprintf(apiPublish, op.PubSub, op.Topic) + rawQuery(op), Method: http.MethodPost, Body: payload, ContentType: ct}), nil
	case perf.OpPublishBulk:
		entries := make([]bulkEntry, op.BulkEntries)
		ct := "text/plain"
		if len(payload) > 0 && json.Valid(payload) {
			ct = "application/json"
		}
		for i := range entries {
			entries[i] = bulkEntry{EntryID: strconv.Itoa(i), Event: jsonValue(payload), ContentType: ct}
		}
		body, err := json.Marshal(entries)
		if err != nil {
			return httpRequest{}, fmt.Errorf("tester: publish.bulk body: %w", err)
		}
		return withValue(httpRequest{URL: base + fmt.Sprintf(apiPublishBulk, op.PubSub, op.Topic) + rawQuery(op), Method: http.MethodPost, Body: body, ContentType: "application/json"}), nil
	case perf.OpActorInvoke:
		// POST with an empty body too: daprd answers an actor method on any verb, and the
		// actor host sees the one Dapr's SDKs send.
		return withValue(httpRequest{URL: base + fmt.Sprintf(apiActorMethod, op.ActorType, op.ActorID, op.Method), Method: http.MethodPost, Body: payload, ContentType: "application/json"}), nil
	case perf.OpActorReminder:
		// The payload is the reminder's JSON body as it is ({"dueTime", "period", "ttl", "data"}).
		return withValue(httpRequest{URL: base + fmt.Sprintf(apiActorReminder, op.ActorType, op.ActorID, op.Reminder), Method: http.MethodPost, Body: payload, ContentType: "application/json"}), nil
	case perf.OpJobSchedule:
		body, err := json.Marshal(jobBody{DueTime: op.JobDueTime.String(), Data: jsonValue(payload)})
		if err != nil {
			return httpRequest{}, fmt.Errorf("tester: job.schedule body: %w", err)
		}
		return withValue(httpRequest{URL: base + fmt.Sprintf(apiJob, op.JobName), Method: http.MethodPost, Body: body, ContentType: "application/json"}), nil
	case perf.OpConfigurationGet:
		q := url.Values{"key": op.Keys}
		return httpRequest{URL: base + fmt.Sprintf(apiConfiguration, op.Store) + "?" + q.Encode(), Method: http.MethodGet}, nil
	}
	return httpRequest{}, fmt.Errorf("tester: operation.kind %q: not implemented over http", op.Kind)
}

// rawQuery is the query that makes daprd publish without its CloudEvents envelope
// ("?metadata.rawPayload=true", as Dapr's k6 publish tests send it), or "" for CloudEvents.
func rawQuery(op perf.Operation) string {
	if op.RawPayload {
		return "?metadata.rawPayload=true"
	}
	return ""
}

// stateItem is one entry of daprd's state save body.
type stateItem struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// bulkEntry is one event of daprd's bulk publish body.
type bulkEntry struct {
	EntryID     string          `json:"entryId"`
	Event       json.RawMessage `json:"event"`
	ContentType string          `json:"contentType"`
}

// jobBody is daprd's schedule-job body.
type jobBody struct {
	DueTime string          `json:"dueTime"`
	Data    json.RawMessage `json:"data"`
}

// jsonValue is payload as a JSON value: itself when it is valid JSON, else a JSON string of
// it ("" for no payload).
func jsonValue(payload []byte) json.RawMessage {
	if len(payload) > 0 && json.Valid(payload) {
		return payload
	}
	b, _ := json.Marshal(string(payload)) // a string always encodes
	return b
}
