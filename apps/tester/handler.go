package tester

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/daprperf/daprperf/perf"
)

// MaxRequestBytes bounds a POST /test body: params plus a literal payload.
const MaxRequestBytes = perf.MaxPayloadBytes + 64<<10

// ErrorReply is the JSON body of every non-200 answer of the tester.
type ErrorReply struct {
	Status int    `json:"status"`
	Error  string `json:"error"`
}

// NewHandler serves the tester's API:
//   - GET /: health, 200 "ok".
//   - POST /test: a perf.Params JSON object (fields left out keep perf.DefaultParams) in, the
//     perf.Result JSON out (200). Malformed JSON, unknown fields and invalid values get 400 with
//     an ErrorReply naming the field; a POST while another run is in progress gets 409; a
//     failed run gets 500. A client that disconnects cancels its run.
func NewHandler() *Handler {
	h := &Handler{mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	h.mux.HandleFunc("POST /test", h.test)
	return h
}

// Handler is the tester's HTTP API; see NewHandler.
type Handler struct {
	mux  *http.ServeMux
	busy atomic.Bool // one run at a time: the machine's cores are the measurement's
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

func (h *Handler) test(w http.ResponseWriter, r *http.Request) {
	p, err := decodeParams(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	if !h.busy.CompareAndSwap(false, true) {
		writeError(w, http.StatusConflict, errors.New("tester: a run is already in progress; one run at a time"))
		return
	}
	res, err := Run(r.Context(), p)
	// Free before answering: a client that sends its next run as soon as this answer arrives
	// must not find the tester still busy (it did, on one core, between two phases).
	h.busy.Store(false)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// decodeParams reads one Params object over DefaultParams, rejecting unknown fields and
// invalid values with an error that names the field.
func decodeParams(body io.Reader) (perf.Params, error) {
	p := perf.DefaultParams()
	dec := json.NewDecoder(body)
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
