package tester

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fortio.org/fortio/fhttp"

	"github.com/daprperf/daprperf/perf"
)

// noContentKinds are the kinds daprd answers 204 No Content, without a Content-Length (as
// RFC 9110 has it), for which the tester uses fortio's standard client (Go's net/http). Its
// fast client cannot tell where such an answer ends, drops keep-alive and opens a new TCP
// connection for every request (fortio v1.75.3 fhttp, "Content-length missing"), every request
// then paying a connect (reports/measurements.md, "State" and "Jobs"). Publish and bulk publish
// are answered 204 too, and so is a job schedule (daprd 1.17.5, POST /v1.0-alpha1/jobs/{name};
// the job app's baseline answers it 204 as well).
// Both phases of a scenario with such a kind use the same client. The standard client replaces
// {uuid} afresh in the path, the query and the body of every request (fhttp.Client.StreamFetch),
// as the fast client does, so a new job name or key per request costs no connection.
var noContentKinds = []perf.OperationKind{perf.OpStateSave, perf.OpStateDelete, perf.OpPublish, perf.OpPublishBulk, perf.OpActorReminder, perf.OpJobSchedule}

// answersNoContent reports whether daprd answers op 204 without a Content-Length: a kind of
// noContentKinds, or a state.get whose key carries perf.UUIDToken, which reads a key no one
// wrote, and daprd answers a missing key 204 (Dapr's state API reference, "Get state": "204
// Key is not found"; TestOperationsAgainstRealDaprd checks both against daprd).
func answersNoContent(op perf.Operation) bool {
	return slices.Contains(noContentKinds, op.Kind) || (op.Kind == perf.OpStateGet && strings.Contains(op.Key, perf.UUIDToken))
}

// stdHTTPCaller sends one request, {uuid} replaced afresh each time, through fortio's standard
// client, which keeps its connection alive across 204 answers.
type stdHTTPCaller struct {
	client *fhttp.Client
}

func newStdHTTPCaller(req httpRequest) (caller, error) {
	o := fhttp.HTTPOptions{Payload: req.Body, ContentType: req.ContentType, MethodOverride: req.Method}
	o.Init(req.URL)
	c, err := fhttp.NewStdClient(&o)
	if err != nil {
		return nil, fmt.Errorf("http client for %s: %w", req.URL, err)
	}
	return &stdHTTPCaller{client: c}, nil
}

func (s *stdHTTPCaller) call(ctx context.Context) (string, bool) {
	code, _, _ := s.client.Fetch(ctx)
	return strconv.Itoa(code), code >= 200 && code < 300
}

// sockets counts the dials of the client (its connection-time histogram).
func (s *stdHTTPCaller) sockets() int64 {
	_, dials := s.client.GetIPAddress()
	return dials.Count
}

func (s *stdHTTPCaller) close() error { s.client.Close(); return nil }
