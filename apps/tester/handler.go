package tester

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/secondsjson"
)

// MaxRequestBytes bounds a POST /test body: params plus a literal payload. A longer body is
// answered 413.
const MaxRequestBytes = perf.MaxPayloadBytes + 64<<10

// writeGrace is how long after a run's own deadline (Duration + perf.TesterSlack) the tester
// still writes its answer: encoding a result takes milliseconds; the rest is for the network.
const writeGrace = 30 * time.Second

// ErrorReply is the JSON body of every non-200 answer of the tester.
type ErrorReply struct {
	Status int    `json:"status"`
	Error  string `json:"error"`
}

// Config is what a tester's platform gives it at start-up (see perf.TesterArgs).
type Config struct {
	// Allow lists the targets POST /test may load; the zero value allows none.
	Allow AllowList
	// Limits bound every load; a zero field takes DefaultLimits' value.
	Limits Limits
	// Token is the per-run secret POST /test needs as "Authorization: Bearer <Token>";
	// "" needs none, which only a loopback Host may have.
	Token string
	// Host is the IP address the tester listens on; "" is loopback.
	Host string
}

// NewHandler serves the tester's API:
//   - GET /: health, 200 "ok", open to anyone and saying nothing of the configuration.
//   - GET /progress: the run in progress as a perf.LiveProgress JSON object (requests and
//     errors so far, elapsed time, the QPS of the last perf.LiveWindow), or {"running":
//     false}; it needs cfg.Token like POST /test (401 without).
//   - POST /test: a perf.Params JSON object (fields left out keep perf.DefaultParams) in, the
//     perf.Result JSON out (200). Checked in this order, each answered with an ErrorReply:
//     401 without cfg.Token (when set); 413 for a body over MaxRequestBytes; 400 for
//     malformed JSON, unknown fields and invalid values, naming the field; 403 for a target
//     outside cfg.Allow, naming the target and the allow-list's source; 400 for a load
//     beyond cfg.Limits, naming the bound; 409 while another run is in progress. A failed
//     run gets 500. A client that disconnects cancels its run, and a run ends at the latest
//     RunDuration() + perf.TesterSlack after it was accepted.
//
// It is an error when cfg.Host is not loopback and cfg.Token is empty: POST /test would be
// open to the network.
func NewHandler(cfg Config) (*Handler, error) {
	if cfg.Token == "" && !IsLoopback(cfg.Host) {
		return nil, fmt.Errorf("tester: listening on %s, which is not loopback, needs a token (env %s): the platform generates one per run",
			cfg.Host, perf.EnvTesterToken)
	}
	h := &Handler{mux: http.NewServeMux(), allow: cfg.Allow, limits: withDefaults(cfg.Limits), token: cfg.Token}
	h.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	h.mux.HandleFunc("POST /test", h.test)
	h.mux.HandleFunc("GET /progress", h.progress)
	return h, nil
}

// withDefaults fills each zero bound of l with DefaultLimits'.
func withDefaults(l Limits) Limits {
	d := DefaultLimits()
	if l.MaxQPS == 0 {
		l.MaxQPS, l.QPSSource = d.MaxQPS, d.QPSSource
	}
	if l.MaxConnections == 0 {
		l.MaxConnections, l.ConnectionsSource = d.MaxConnections, d.ConnectionsSource
	}
	if l.MaxDuration == 0 {
		l.MaxDuration, l.DurationSource = d.MaxDuration, d.DurationSource
	}
	if l.MaxIterations == 0 {
		l.MaxIterations, l.IterationsSource = d.MaxIterations, d.IterationsSource
	}
	return l
}

// Handler is the tester's HTTP API; see NewHandler.
type Handler struct {
	mux    *http.ServeMux
	allow  AllowList
	limits Limits
	token  string
	busy   atomic.Bool             // one run at a time: the machine's cores are the measurement's
	live   atomic.Pointer[liveRun] // the run in progress, for GET /progress (live.go)
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

func (h *Handler) test(w http.ResponseWriter, r *http.Request) {
	if !h.authorize(w, r) {
		return
	}
	body, err := readBody(w, r)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Errorf("tester: request body over %d bytes (params plus a payload of at most %d bytes)", MaxRequestBytes, perf.MaxPayloadBytes))
			return
		}
		writeError(w, http.StatusBadRequest, fmt.Errorf("tester: read request body: %w", err))
		return
	}
	p, err := decodeParams(body)
	if err == nil {
		err = checkDirect(p)
	}
	var wait time.Duration
	if err == nil {
		wait, err = startWait(p)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	if err := h.allow.Check(p); err != nil {
		writeError(w, http.StatusForbidden, err)
		return
	}
	if err := h.limits.Check(p); err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	if !h.busy.CompareAndSwap(false, true) {
		writeError(w, http.StatusConflict, errors.New("tester: a run is already in progress; one run at a time"))
		return
	}
	// The server's write timeout is for answers that come at once, not for a run: lift it for
	// this one, up to the run's own deadline plus the time to write its answer. (The read
	// timeout needs nothing: once the body is read, net/http clears the read deadline and
	// reads on only to notice a client that hangs up.)
	deadline := time.Now().Add(wait + p.RunDuration() + perf.TesterSlack)
	if err := extendWriteDeadline(w, deadline.Add(writeGrace)); err != nil {
		h.busy.Store(false)
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	ctx, cancel := context.WithDeadline(r.Context(), deadline)
	defer cancel()
	res, err := run(ctx, p, func(l *liveRun) { h.live.Store(l) })
	if l := h.live.Swap(nil); l != nil {
		l.stop()
	}
	// Free before answering: a client that sends its next run as soon as this answer arrives
	// must not find the tester still busy (on one core it can arrive before a deferred release).
	h.busy.Store(false)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// authorize answers 401 and returns false when h needs a token and r lacks it.
func (h *Handler) authorize(w http.ResponseWriter, r *http.Request) bool {
	if h.token == "" || authorized(r, h.token) {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="daprperf-tester"`)
	writeError(w, http.StatusUnauthorized, fmt.Errorf(
		"tester: %s %s needs this run's token as \"Authorization: Bearer <token>\" (the platform gives it to the tester in env %s)", r.Method, r.URL.Path, perf.EnvTesterToken))
	return false
}

// progress answers GET /progress: the run in progress as a perf.LiveProgress (Running false
// when there is none). It reads atomic counters and a small ring of samples the load never
// locks, so polling it does not slow the load.
func (h *Handler) progress(w http.ResponseWriter, r *http.Request) {
	if !h.authorize(w, r) {
		return
	}
	var lp perf.LiveProgress
	if l := h.live.Load(); l != nil {
		lp = l.progress(time.Now())
	}
	writeJSON(w, http.StatusOK, lp)
}

// readBody reads r's whole body, at most MaxRequestBytes (a longer one is an
// *http.MaxBytesError). Reading to the end is also what makes net/http watch the connection
// for a client that hangs up, which cancels the run.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > MaxRequestBytes {
		return nil, &http.MaxBytesError{Limit: MaxRequestBytes}
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
}

// extendWriteDeadline sets the write deadline of w's connection to t. A ResponseWriter
// without a connection (httptest.ResponseRecorder) has none to set.
func extendWriteDeadline(w http.ResponseWriter, t time.Time) error {
	err := http.NewResponseController(w).SetWriteDeadline(t)
	if err != nil && !errors.Is(err, http.ErrNotSupported) {
		return fmt.Errorf("tester: extend the connection's write deadline for the run: %w", err)
	}
	return nil
}

// decodeParams reads one Params object over DefaultParams, rejecting unknown fields and
// invalid values with an error that names the field.
func decodeParams(body []byte) (perf.Params, error) {
	p := perf.DefaultParams()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return perf.Params{}, fmt.Errorf("params: field %q: got JSON %s, want %s", typeErr.Field, typeErr.Value, typeErr.Type)
		}
		return perf.Params{}, fmt.Errorf("params: malformed JSON: %w", err)
	}
	if dec.More() {
		return perf.Params{}, errors.New("params: malformed JSON: more than one value in the body")
	}
	// Params reads its durations itself (in seconds), which hides its members from
	// DisallowUnknownFields.
	if f := secondsjson.UnknownField(body, reflect.TypeFor[perf.Params]()); f != "" {
		return perf.Params{}, fmt.Errorf("params: malformed JSON: json: unknown field %q", f)
	}
	if p.Target == "" {
		return perf.Params{}, errors.New("params: field \"target\": must be set: a URL (http) or host:port (grpc)")
	}
	return p, p.Validate()
}

func writeError(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, ErrorReply{Status: status, Error: err.Error()})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		status, buf = http.StatusInternalServerError, *bytes.NewBufferString(`{"status":500,"error":"encode result"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
