package tester

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"fortio.org/fortio/fhttp"
)

// repeatCaller publishes n events one after another per request over HTTP (perf.Operation
// Repeat), each its own POST through one fortio fast client (one keep-alive connection): Dapr's
// bulk-publish baseline, whose k6 script sends BULK_SIZE single publishes per iteration. The
// request succeeds only when all n answer 2xx; its code is the first failed call's.
type repeatCaller struct {
	client fhttp.Fetcher
	n      int
}

func newRepeatCaller(req httpRequest, n int) (caller, error) {
	o := fhttp.HTTPOptions{Payload: bytes.Clone(req.Body), ContentType: req.ContentType, MethodOverride: req.Method}
	o.Init(req.URL)
	// The standard client: daprd answers each publish 204 without a Content-Length, on which
	// fortio's fast client reconnects (nocontent.go).
	c, err := fhttp.NewStdClient(&o)
	if err != nil {
		return nil, fmt.Errorf("http client for %s: %w", req.URL, err)
	}
	return &repeatCaller{client: c, n: n}, nil
}

func (r *repeatCaller) call(ctx context.Context) (string, bool) {
	code := 0
	for range r.n {
		code, _, _ = r.client.StreamFetch(ctx)
		if code < 200 || code >= 300 {
			return strconv.Itoa(code), false
		}
	}
	return strconv.Itoa(code), true
}

// sockets counts the dials of the client (its connection-time histogram).
func (r *repeatCaller) sockets() int64 {
	_, dials := r.client.GetIPAddress()
	return dials.Count
}

func (r *repeatCaller) close() error { r.client.Close(); return nil }
