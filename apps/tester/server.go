package tester

import (
	"net/http"
	"time"
)

// Timeouts bound how long one client may hold the tester's HTTP server. A load run lifts the
// read and write deadlines of its own connection (see NewHandler); every other request keeps
// them.
type Timeouts struct {
	// ReadHeader bounds reading a request's headers.
	ReadHeader time.Duration
	// Read bounds reading a whole request, body included, from the connection's first byte.
	Read time.Duration
	// Write bounds writing an answer, from the end of the request's headers.
	Write time.Duration
	// Idle bounds a kept-alive connection between two requests.
	Idle time.Duration
}

// DefaultTimeouts are the tester's: 10 s for headers (as the other apps); 30 s for a whole
// request, which is a MaxRequestBytes body at 350 KB/s, far below any path the tester is
// driven over (loopback, a port-forward, a cluster network); 30 s to write any answer but a
// run's; 2 minutes idle, longer than the pauses between a scenario's loads (resource
// reading, an idle window of 10 to 30 s), so that the client's kept-alive connection stays.
func DefaultTimeouts() Timeouts {
	return Timeouts{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 30 * time.Second, Idle: 2 * time.Minute}
}

// maxHeaderBytes bounds a request's headers; the tester reads one of its own (Authorization).
const maxHeaderBytes = 16 << 10

// NewServer is the tester's HTTP server for h, with timeouts to and headers of at most 16 KiB.
func NewServer(h http.Handler, to Timeouts) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: to.ReadHeader,
		ReadTimeout:       to.Read,
		WriteTimeout:      to.Write,
		IdleTimeout:       to.Idle,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}
