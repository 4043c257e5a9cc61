// Package httpapp is the HTTP test app: the callee of a service-invocation
// perf test. It answers any method on any path with 200 and the body "ok",
// optionally after a fixed delay and with a deterministic share of 500s.
//
//	h := httpapp.NewHandler(httpapp.Options{FailFraction: 0.1}) // every 10th request is a 500
//	srv := httptest.NewServer(h)
//
// The command is cmd/httpapp.
package httpapp

import (
	"io"
	"net/http"

	"github.com/daprperf/daprperf/apps/internal/faults"
)

// Options configure the faults the app injects; the zero value injects none.
// FailFraction (in [0, 1]) is the fraction of requests answered 500, exactly
// floor(n*FailFraction) of the first n; Delay (>= 0) is waited before every
// answer. Validate names the field out of range.
type Options = faults.Options

// Body is the answer to every successful request, sent as text/plain.
const Body = "ok"

// FailureBody is the answer to a request failed on purpose, with status 500.
const FailureBody = "injected failure"

// NewHandler returns the app's handler. Every request except Dapr's own
// probes (see isDaprProbe) is counted, has its body read and discarded,
// waits o.Delay (abandoned if the client goes away), and is answered 200
// Body or, as o.FailFraction decides, 500 FailureBody. It panics if o is
// invalid: call o.Validate first.
func NewHandler(o Options) http.Handler {
	return &handler{faults: faults.New(o)}
}

type handler struct {
	faults *faults.Injector
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	if isDaprProbe(r) {
		writeProbe(w, r)
		return
	}
	req := h.faults.Next()
	if err := req.Wait(r.Context()); err != nil {
		return // the client is gone; nobody reads an answer
	}
	if req.Fail {
		http.Error(w, FailureBody, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, Body)
}
