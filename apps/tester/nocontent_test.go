package tester

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
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
	"github.com/daprperf/daprperf/perf/driver"
)

// noContentServer is an in-process server on loopback that answers every request 204 with no
// Content-Length (what daprd does for a job schedule, a state save or a reminder), counting the
// TCP connections it accepts and the paths it is sent.
type noContentServer struct {
	URL    string
	mu     sync.Mutex
	conns  int
	paths  []string
	bodies []string
}

func newNoContentServer(t *testing.T) *noContentServer {
	t.Helper()
	s := &noContentServer{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path)
		s.bodies = append(s.bodies, string(b))
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *noContentServer) seen() (conns int, paths []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns, append([]string(nil), s.paths...)
}

// TestNoContentServerSendsNoContentLength checks the premise of the tests below: the server's
// 204 has no Content-Length header, the answer fortio's fast client cannot frame.
func TestNoContentServerSendsNoContentLength(t *testing.T) {
	s := newNoContentServer(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = conn.Write([]byte("POST /v1.0-alpha1/jobs/j HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"))
	require.NoError(t, err)
	r := bufio.NewReader(conn)
	var head []string
	for {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		if line == "\r\n" {
			break
		}
		head = append(head, strings.TrimSpace(line))
	}
	require.NotEmpty(t, head)
	assert.Equal(t, "HTTP/1.1 204 No Content", head[0])
	for _, h := range head[1:] {
		assert.NotContains(t, strings.ToLower(h), "content-length", "a 204 without Content-Length")
	}
}

// TestTokenPathsKeepTheirConnectionsOn204 sends loads whose path carries {uuid} (a new job name,
// actor id or key per request) to a server that answers 204 without Content-Length, at a fixed
// rate (fortio's pacing) and through the driver (shared iterations). Each must open exactly one
// TCP connection per connection it was given (server-side count and the result's sockets), send
// every request with its own token, and record every request. Through fortio's fast client
// the fixed-rate job load would open one connection per request.
func TestTokenPathsKeepTheirConnectionsOn204(t *testing.T) {
	const connections = 4
	for _, tc := range []struct {
		op   perf.Operation
		path string // {uuid} where each request has its own
	}{
		{perf.Operation{Kind: perf.OpJobSchedule, JobName: "job-{uuid}", JobDueTime: 24 * time.Hour}, "/v1.0-alpha1/jobs/job-{uuid}"},
		{perf.Operation{Kind: perf.OpActorReminder, ActorType: "R", ActorID: "{uuid}", Reminder: "r"}, "/v1.0/actors/R/{uuid}/reminders/r"},
		{perf.Operation{Kind: perf.OpStateGet, Store: "s", Key: "k-{uuid}"}, "/v1.0/state/s/k-{uuid}"},
		{perf.Operation{Kind: perf.OpStateDelete, Store: "s", Key: "k-{uuid}"}, "/v1.0/state/s/k-{uuid}"},
	} {
		pathRE := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(tc.path), regexp.QuoteMeta(perf.UUIDToken), uuidRE.String()) + "$")
		for _, mode := range []string{"fixed rate", "driver"} {
			t.Run(string(tc.op.Kind)+"/"+mode, func(t *testing.T) {
				s := newNoContentServer(t)
				p := load(t, perf.HTTP, s.URL, 200, time.Second)
				p.Connections, p.PayloadBytes, p.Operation = connections, 8, tc.op
				want := int64(200) // 200 QPS x 1 s
				if mode == "driver" {
					p.Executor = driver.Executor{Kind: driver.SharedIterations, VUs: connections, Iterations: 300, Duration: 10 * time.Second}
					want = 300
				}
				res, err := Run(t.Context(), p)
				require.NoError(t, err)
				assert.Zero(t, res.Errors(), "codes: %v", res.RetCodes)
				assert.Equal(t, res.Requests, res.RetCodes["204"], "every answer a 204")
				if mode == "driver" {
					assert.Equal(t, want, res.Requests, "exactly the shared iterations")
				} else {
					assert.InDelta(t, want, res.Requests, 4, "200 QPS for 1 s")
					require.NotNil(t, res.ResponseTime, "a fixed rate is timed from each request's slot (intended start) too")
					assert.InDelta(t, want, res.Schedule.Scheduled, 4, "the schedule the response times count from")
					assert.Zero(t, res.Schedule.Skipped, "every scheduled request sent")
				}
				conns, paths := s.seen()
				if mode == "driver" {
					// Shared iterations: a VU that starts late on a busy machine may find none
					// left and open no connection, so at most one per VU, never one per request.
					assert.LessOrEqual(t, conns, connections, "the server accepted at most one TCP connection per VU")
				} else {
					assert.Equal(t, connections, conns, "the server accepted one TCP connection per configured connection")
				}
				assert.Equal(t, int64(conns), res.Sockets, "the result counts the connections opened")
				require.Len(t, paths, int(res.Requests), "no request outside the load")
				distinct := map[string]bool{}
				for _, path := range paths {
					assert.Regexp(t, pathRE, path)
					distinct[path] = true
				}
				assert.Len(t, distinct, len(paths), "every request carries its own {uuid}")
			})
		}
	}
}

// TestStampedBodyWithUUIDKeyKeepsItsConnections: a state save whose key carries {uuid} and whose
// value carries the delivery stamps ({seq}, {sendtime}) goes through the stamp caller (Go's
// client), which must replace {uuid} per request as fortio's clients do and keep one connection
// per configured connection across the 204 answers.
func TestStampedBodyWithUUIDKeyKeepsItsConnections(t *testing.T) {
	const connections = 4
	s := newNoContentServer(t)
	p, err := perf.NewParams(perf.WithQPS(200), perf.WithConnections(connections), perf.WithDuration(time.Second), perf.WithTarget(s.URL),
		perf.WithPayload(perf.DeliveryPayload("r1", 100)))
	require.NoError(t, err)
	p.Operation = perf.Operation{Kind: perf.OpStateSave, Store: "s", Key: "order-" + perf.UUIDToken}
	res, err := Run(t.Context(), p)
	require.NoError(t, err)
	assert.Zero(t, res.Errors(), "codes: %v", res.RetCodes)
	conns, _ := s.seen()
	assert.Equal(t, connections, conns, "the server accepted one TCP connection per configured connection")
	assert.Equal(t, int64(connections), res.Sockets)
	s.mu.Lock()
	bodies := append([]string(nil), s.bodies...)
	s.mu.Unlock()
	require.Len(t, bodies, int(res.Requests))
	keyRE := regexp.MustCompile("^order-" + uuidRE.String() + "$")
	keys, seqs := map[string]bool{}, map[string]bool{}
	for _, b := range bodies {
		var items []struct {
			Key   string               `json:"key"`
			Value perf.DeliveryMessage `json:"value"`
		}
		require.NoError(t, json.Unmarshal([]byte(b), &items), b)
		require.Len(t, items, 1)
		assert.Regexp(t, keyRE, items[0].Key)
		keys[items[0].Key], seqs[items[0].Value.Seq] = true, true
	}
	assert.Len(t, keys, len(bodies), "every request its own {uuid} key")
	assert.Len(t, seqs, len(bodies), "every request its own sequence number")
}
