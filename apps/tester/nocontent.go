package tester

import (
	"context"
	"fmt"
	"strconv"

	"fortio.org/fortio/fhttp"

	"github.com/daprperf/daprperf/perf"
)

// noContentKinds are the kinds daprd answers 204 No Content, without a Content-Length (as
// RFC 9110 has it), for which the tester uses fortio's standard client (Go's net/http). Its
// fast client cannot tell where such an answer ends, drops keep-alive and opens a new TCP
// connection for every request (fortio v1.75.3 fhttp, "Content-length missing"): seen as
// 30,016 sockets for 16 connections in a 30 s state_save run, every request then paying a
// connect. Publish and bulk publish are answered 204 too. Both phases of a scenario with such a
// kind use the same client.
var noContentKinds = []perf.OperationKind{perf.OpStateSave, perf.OpStateDelete, perf.OpPublish, perf.OpPublishBulk, perf.OpActorReminder}

// stdHTTPCaller sends one fixed request through fortio's standard client, which keeps its
// connection alive across 204 answers.
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
