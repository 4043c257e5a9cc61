// Package subscriber is the pub/sub subscriber of the delivery scenarios: an HTTP app that
// declares one subscription to daprd (programmatic: GET /dapr/subscribe), normal or bulk, and
// counts and times every message daprd delivers to it. Each message is a
// perf.DeliveryMessage stamped by the tester with its load's nonce, a sequence number and its
// send time; the app records, per load (POST /reset?run=<nonce>), which sequence numbers
// arrived and how often, and receipt minus send time in an HDR histogram (perf/hdr). GET
// /stats?expected=N answers perf.SubscriberStats: received, missing (lost), duplicated, the
// delivery-latency percentiles and the app's own handler time.
//
//	h, _ := subscriber.NewHandler(subscriber.Options{PubSub: "pubsub", Topic: "orders"})
//	srv := httptest.NewServer(h)
//
// With -configuration-store it is instead the subscriber of the configuration scenarios
// (configuration.go): it subscribes through daprd to a configuration store, over HTTP or gRPC,
// and counts and times each store update it is told of in the same way.
//
// It is a separate app rather than a mode of httpapp: httpapp is the service-invocation callee
// (any path answers 200, with injected faults), while this one owns Dapr's subscription routes
// and per-load state; keeping them apart leaves httpapp's stated cost unchanged. The command
// is cmd/subscriber.
package subscriber

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/hdr"
)

// Routes daprd delivers to (declared in GET /dapr/subscribe) and the app's own endpoints.
const (
	RouteDeliver     = "/deliver"      // one CloudEvent per request
	RouteDeliverBulk = "/deliver-bulk" // Dapr's bulk subscribe: {"entries": [...]}
	RouteReset       = "/reset"        // POST ?run=<nonce>: count that load from now on
	RouteStats       = "/stats"        // GET ?expected=N[&timeline=1]: perf.SubscriberStats (with its timeline)
	RouteAwait       = perf.AwaitPath  // GET: the long poll of an awaiting tester (perf.Await)
	RouteHealth      = "/healthz"
)

// MaxBulkMessages bounds Options.BulkMaxMessages (Dapr's bulk subscribe takes any positive
// count; 10,000 x a 100-byte event is a 1 MB request).
const MaxBulkMessages = 10000

// Options are the app's subscription.
type Options struct {
	// PubSub and Topic name the component and topic; both required.
	PubSub, Topic string
	// Bulk subscribes with Dapr's bulk subscribe; BulkMaxMessages (default 100) and
	// BulkMaxAwait (default 1 s, Dapr's) are its maxMessagesCount and maxAwaitDurationMs.
	Bulk            bool
	BulkMaxMessages int
	BulkMaxAwait    time.Duration
	// Delay is waited in every delivery call before it is answered (0: none): a slow consumer,
	// so that a backlog builds up in the broker (the broker-restart test). Never in a
	// latency measurement.
	Delay time.Duration
	// ConfigurationStore, when set, is the configuration mode (configuration.go): the app
	// subscribes to every key of this configuration store instead of a topic; PubSub, Topic
	// and the bulk and delay options must then stay empty.
	ConfigurationStore string
	// ConfigGet configures the configuration mode's get routes (configget.go).
	ConfigGet ConfigGetOptions
}

// Validate names the first bad field.
func (o Options) Validate() error {
	switch {
	case o.ConfigurationStore == "" && (len(o.ConfigGet.Keys) > 0 || o.ConfigGet.Redis != ""):
		return errors.New("subscriber: ConfigGet (-configuration-get-keys) needs the configuration mode (-configuration-store)")
	case o.ConfigurationStore != "" && (o.PubSub != "" || o.Topic != "" || o.Bulk || o.BulkMaxMessages != 0 || o.BulkMaxAwait != 0 || o.Delay != 0):
		return errors.New("subscriber: ConfigurationStore (-configuration-store) is the configuration mode: leave -pubsub, -topic, -bulk*, -delay unset")
	case o.ConfigurationStore != "":
		return nil
	case o.PubSub == "":
		return errors.New("subscriber: PubSub (-pubsub) must name the pub/sub component")
	case o.Topic == "":
		return errors.New("subscriber: Topic (-topic) must name the topic")
	case o.BulkMaxMessages < 0 || o.BulkMaxMessages > MaxBulkMessages:
		return fmt.Errorf("subscriber: BulkMaxMessages (-bulk-max-messages) = %d: from 1 to %d, or 0 for 100", o.BulkMaxMessages, MaxBulkMessages)
	case o.Delay < 0:
		return fmt.Errorf("subscriber: Delay (-delay) = %v: must be >= 0", o.Delay)
	case o.BulkMaxAwait < 0 || (o.BulkMaxAwait > 0 && o.BulkMaxAwait < time.Millisecond):
		return fmt.Errorf("subscriber: BulkMaxAwait (-bulk-max-await) = %v: at least 1ms, or 0 for 1s", o.BulkMaxAwait)
	}
	return nil
}

// subscription is one entry of daprd's GET /dapr/subscribe answer (Dapr docs, "Pub/sub API:
// programmatic subscriptions"; bulkSubscribe from "Bulk Publish & Subscribe").
type subscription struct {
	PubSubName    string         `json:"pubsubname"`
	Topic         string         `json:"topic"`
	Route         string         `json:"route"`
	BulkSubscribe *bulkSubscribe `json:"bulkSubscribe,omitempty"`
}

type bulkSubscribe struct {
	Enabled            bool  `json:"enabled"`
	MaxMessagesCount   int   `json:"maxMessagesCount"`
	MaxAwaitDurationMs int64 `json:"maxAwaitDurationMs"`
}

// Handler is the app: its subscription and its counts.
type Handler struct {
	sub   subscription
	delay time.Duration
	mux   *http.ServeMux
	c     counter
	cfg   *configState // the configuration mode; nil for pub/sub
	get   *configGet   // the configuration mode's get routes; nil for pub/sub
}

// NewHandler returns the app for o, or o's validation error.
func NewHandler(o Options) (*Handler, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	h := &Handler{sub: subscription{PubSubName: o.PubSub, Topic: o.Topic, Route: RouteDeliver}, delay: o.Delay}
	if o.Bulk {
		n, wait := o.BulkMaxMessages, o.BulkMaxAwait
		if n == 0 {
			n = 100
		}
		if wait == 0 {
			wait = time.Second
		}
		h.sub.Route = RouteDeliverBulk
		h.sub.BulkSubscribe = &bulkSubscribe{Enabled: true, MaxMessagesCount: n, MaxAwaitDurationMs: wait.Milliseconds()}
	}
	h.c.reset("")
	m := http.NewServeMux()
	m.HandleFunc("GET /dapr/subscribe", h.subscribe)
	m.HandleFunc("POST "+RouteDeliver, h.deliver)
	m.HandleFunc("POST "+RouteDeliverBulk, h.deliverBulk)
	m.HandleFunc("POST "+RouteReset, h.reset)
	m.HandleFunc("GET "+RouteStats, h.stats)
	m.HandleFunc("GET "+RouteAwait, h.await)
	m.HandleFunc("GET "+RouteHealth, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	m.HandleFunc("GET /dapr/config", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, map[string]any{}) })
	if o.ConfigurationStore != "" {
		h.get = &configGet{store: o.ConfigurationStore, o: o.ConfigGet, http: &http.Client{Timeout: configGetTimeout}}
		h.cfg = &configState{store: o.ConfigurationStore, redis: h.get.redisClient}
		h.routeConfiguration(m)
		h.get.route(m)
	}
	h.mux = m
	return h, nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

func (h *Handler) subscribe(w http.ResponseWriter, _ *http.Request) {
	if h.cfg != nil { // the configuration mode has no topic subscription
		writeJSON(w, []subscription{})
		return
	}
	writeJSON(w, []subscription{h.sub})
}

// cloudEvent is the part of a CloudEvent the app reads: its data, which is the published
// JSON event (daprd wraps a JSON payload as the "data" object).
type cloudEvent struct {
	Data json.RawMessage `json:"data"`
}

// deliver takes one CloudEvent. Every answer is 200 SUCCESS, a malformed message included
// (counted, not retried: a retry would read as a duplicate).
func (h *Handler) deliver(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var ev cloudEvent
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &ev)
	}
	msg, derr := decodeData(ev.Data)
	h.c.take(start, []delivered{{msg: msg, err: errors.Join(err, derr)}}, false)
	h.wait(r.Context())
	writeJSON(w, map[string]string{"status": "SUCCESS"})
	h.c.handled(time.Since(start))
}

// wait holds the answer for the slow-consumer Delay, or until the request (ctx) is abandoned.
func (h *Handler) wait(ctx context.Context) {
	if h.delay <= 0 {
		return
	}
	select {
	case <-ctx.Done():
	case <-time.After(h.delay):
	}
}

// bulkRequest is daprd's bulk delivery: entries with their ids and events (CloudEvents).
type bulkRequest struct {
	Entries []struct {
		EntryID string          `json:"entryId"`
		Event   json.RawMessage `json:"event"`
	} `json:"entries"`
}

type bulkStatus struct {
	EntryID string `json:"entryId"`
	Status  string `json:"status"`
}

// deliverBulk takes a bulk of events and answers SUCCESS for each entry.
func (h *Handler) deliverBulk(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req bulkRequest
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		h.c.take(start, []delivered{{err: err}}, true)
		http.Error(w, "bulk delivery: "+err.Error(), http.StatusBadRequest)
		h.c.handled(time.Since(start))
		return
	}
	ds := make([]delivered, len(req.Entries))
	statuses := make([]bulkStatus, len(req.Entries))
	for i, e := range req.Entries {
		var ev cloudEvent
		err := json.Unmarshal(e.Event, &ev)
		msg, derr := decodeData(ev.Data)
		ds[i] = delivered{msg: msg, err: errors.Join(err, derr)}
		statuses[i] = bulkStatus{EntryID: e.EntryID, Status: "SUCCESS"}
	}
	h.c.take(start, ds, true)
	h.wait(r.Context())
	writeJSON(w, map[string]any{"statuses": statuses})
	h.c.handled(time.Since(start))
}

// decodeData reads a DeliveryMessage from a CloudEvent's data: a JSON object, or a JSON
// string holding one (a payload published as text).
func decodeData(data json.RawMessage) (perf.DeliveryMessage, error) {
	var m perf.DeliveryMessage
	if len(data) == 0 {
		return m, errors.New("event without data")
	}
	if data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return m, err
		}
		data = json.RawMessage(s)
	}
	err := json.Unmarshal(data, &m)
	return m, err
}

func (h *Handler) reset(w http.ResponseWriter, r *http.Request) {
	run := r.URL.Query().Get("run")
	if run == "" {
		http.Error(w, "reset: query parameter run must name the load (its nonce)", http.StatusBadRequest)
		return
	}
	h.c.reset(run)
	w.WriteHeader(http.StatusNoContent)
}

func (h *Handler) stats(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.ParseInt(r.URL.Query().Get("expected"), 10, 64)
	if err != nil || n < 0 {
		http.Error(w, fmt.Sprintf("stats: query parameter expected = %q: want the number of messages sent, >= 0", r.URL.Query().Get("expected")), http.StatusBadRequest)
		return
	}
	st, err := h.c.stats(n, r.URL.Query().Get("timeline") == "1")
	if err != nil {
		http.Error(w, "stats: "+err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, st)
}

// Stats is the app's counts as GET /stats answers them, with the timeline (for tests in
// process).
func (h *Handler) Stats(expected int64) (perf.SubscriberStats, error) {
	return h.c.stats(expected, true)
}

// Reset starts counting the load run (as POST /reset does).
func (h *Handler) Reset(run string) { h.c.reset(run) }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// delivered is one message as decoded, or why it could not be.
type delivered struct {
	msg perf.DeliveryMessage
	err error
}

// counter holds one load's counts; every method is safe for concurrent use (daprd delivers
// on several connections at once).
type counter struct {
	mu                    sync.Mutex
	run                   string
	seen                  map[int64]int32 // sequence number -> deliveries
	deliveries, dups      int64
	stale, malformed      int64
	calls, bulkCalls      int64
	answered              int64 // delivery calls answered (handled); calls - answered are in flight
	first, last           time.Time
	latency, handlerTimes *hdr.Histogram
	waitOn                map[int64]*waiter // sequence number not yet seen -> the await that needs it
	// start is when the load was reset; answers its messages for the timeline (at most
	// perf.MaxDeliveryPoints), cut the receipt of the first left out (zero: none).
	start   time.Time
	answers []perf.Answer
	cut     time.Time
}

// waiter is one await: how many of its sequence numbers are still missing; done is closed when
// none is, or when the load it waits in is reset (then reset is true).
type waiter struct {
	left  int64
	reset bool
	done  chan struct{}
}

func (c *counter) reset(run string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.waitOn {
		if !w.reset {
			w.reset = true
			close(w.done)
		}
	}
	c.run, c.seen, c.waitOn = run, map[int64]int32{}, map[int64]*waiter{}
	c.deliveries, c.dups, c.stale, c.malformed, c.calls, c.bulkCalls, c.answered = 0, 0, 0, 0, 0, 0, 0
	c.first, c.last = time.Time{}, time.Time{}
	c.latency, c.handlerTimes = hdr.New(), hdr.New()
	c.start, c.answers, c.cut = time.Now(), nil, time.Time{}
}

// keep adds one message, received at now after latency, to the timeline; dup marks a
// duplicate. Called under c.mu.
func (c *counter) keep(now time.Time, latency time.Duration, dup bool) {
	if len(c.answers) >= perf.MaxDeliveryPoints {
		if c.cut.IsZero() {
			c.cut = now
		}
		return
	}
	c.answers = append(c.answers, perf.Answer{End: now.UnixNano(), Latency: latency, Failed: dup})
}

// take counts the messages of one delivery call received at now.
func (c *counter) take(now time.Time, ds []delivered, bulk bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if bulk {
		c.bulkCalls++
	}
	for _, d := range ds {
		if d.err != nil {
			c.malformed++
			continue
		}
		seq, sent, err := perf.ParseDeliveryMessage(d.msg)
		switch {
		case err != nil:
			c.malformed++
			continue
		case d.msg.Run != c.run:
			c.stale++
			continue
		}
		c.deliveries++
		if c.first.IsZero() {
			c.first = now
		}
		c.last = now
		if c.seen[seq] > 0 {
			c.dups++
			c.keep(now, now.Sub(sent), true)
		} else {
			c.latency.Record(now.Sub(sent))
			c.keep(now, now.Sub(sent), false)
			if w := c.waitOn[seq]; w != nil {
				delete(c.waitOn, seq)
				if w.left--; w.left == 0 {
					close(w.done)
				}
			}
		}
		c.seen[seq]++
	}
}

// handled records the handler's own time of one delivery call, once it is answered.
func (c *counter) handled(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answered++
	c.handlerTimes.Record(d)
}

// stats are the counts against expected messages 0 .. expected-1, with the timeline when
// timeline is set (sorting each second's latencies: asked once, when the load is drained, not
// on every poll).
func (c *counter) stats(expected int64, timeline bool) (perf.SubscriberStats, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := perf.SubscriberStats{
		Run: c.run, Expected: expected, Deliveries: c.deliveries, Duplicates: c.dups,
		Stale: c.stale, Malformed: c.malformed, HandlerCalls: c.calls, BulkCalls: c.bulkCalls, Answered: c.answered,
		FirstReceipt: c.first, LastReceipt: c.last,
	}
	if timeline {
		st.TimelineStart, st.Timeline = c.start, perf.Timeline(c.start, c.cut, c.answers)
	}
	for seq := range c.seen {
		if seq < expected {
			st.Received++
		} else {
			st.Unexpected++
		}
	}
	st.Missing = expected - st.Received
	var err error
	if c.latency.Count() > 0 {
		if st.Latency, err = perf.NewLatency(c.latency, perf.DeliveryPercentiles); err != nil {
			return st, fmt.Errorf("delivery latency: %w", err)
		}
	}
	if c.handlerTimes.Count() > 0 {
		if st.Handler, err = perf.NewLatency(c.handlerTimes, perf.DeliveryPercentiles); err != nil {
			return st, fmt.Errorf("handler time: %w", err)
		}
	}
	return st, nil
}

// MaxAwaitCount bounds one await's count: 100 is Dapr's bulk of a subscribe iteration.
const MaxAwaitCount = 100000

// Errors of counter.await.
var (
	errAwaitRun     = errors.New("the app counts another load")
	errAwaitTimeout = errors.New("not every message arrived in time")
)

// await blocks until every sequence number from .. from+count-1 of load run has arrived, the
// timeout passes (errAwaitTimeout), the app is reset or counts another load (errAwaitRun), or
// ctx ends. A sequence number another await already waits for is an error: each belongs to one
// request.
func (c *counter) await(ctx context.Context, run string, from, count int64, timeout time.Duration) error {
	w := &waiter{done: make(chan struct{})}
	c.mu.Lock()
	if run != c.run {
		c.mu.Unlock()
		return errAwaitRun
	}
	for seq := from; seq < from+count; seq++ {
		if c.seen[seq] > 0 {
			continue
		}
		if c.waitOn[seq] != nil {
			c.forget(w, from, seq)
			c.mu.Unlock()
			return fmt.Errorf("sequence number %d: another await waits for it", seq)
		}
		c.waitOn[seq] = w
		w.left++
	}
	c.mu.Unlock()
	if w.left == 0 {
		return nil
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	var err error
	select {
	case <-w.done:
	case <-t.C:
		err = errAwaitTimeout
	case <-ctx.Done():
		err = ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-w.done: // it completed (or was reset) while the timer fired
		if w.reset {
			return errAwaitRun
		}
		return nil
	default:
	}
	c.forget(w, from, from+count)
	return err
}

// forget removes w's entries among sequence numbers from .. to-1; c.mu is held.
func (c *counter) forget(w *waiter, from, to int64) {
	for seq := from; seq < to; seq++ {
		if c.waitOn[seq] == w {
			delete(c.waitOn, seq)
		}
	}
}

// await answers RouteAwait.
func (h *Handler) await(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	from, err1 := strconv.ParseInt(q.Get("from"), 10, 64)
	count, err2 := strconv.ParseInt(q.Get("count"), 10, 64)
	timeout, err3 := time.ParseDuration(q.Get("timeout"))
	switch {
	case q.Get("run") == "":
		http.Error(w, "await: query parameter run must name the load (its nonce)", http.StatusBadRequest)
		return
	case err1 != nil || from < 0:
		http.Error(w, fmt.Sprintf("await: query parameter from = %q: want the first sequence number, >= 0", q.Get("from")), http.StatusBadRequest)
		return
	case err2 != nil || count < 1 || count > MaxAwaitCount:
		http.Error(w, fmt.Sprintf("await: query parameter count = %q: want 1 to %d", q.Get("count"), MaxAwaitCount), http.StatusBadRequest)
		return
	case err3 != nil || timeout < time.Millisecond || timeout > perf.MaxAwaitTimeout:
		http.Error(w, fmt.Sprintf("await: query parameter timeout = %q: want a Go duration from 1ms to %v", q.Get("timeout"), perf.MaxAwaitTimeout), http.StatusBadRequest)
		return
	}
	switch err := h.c.await(r.Context(), q.Get("run"), from, count, timeout); {
	case err == nil:
		w.WriteHeader(http.StatusOK)
	case errors.Is(err, errAwaitTimeout):
		http.Error(w, "await: "+err.Error(), http.StatusGatewayTimeout)
	case errors.Is(err, errAwaitRun):
		http.Error(w, "await: "+err.Error(), http.StatusConflict)
	case r.Context().Err() != nil: // the tester hung up: no one reads an answer
	default:
		http.Error(w, "await: "+err.Error(), http.StatusConflict)
	}
}
