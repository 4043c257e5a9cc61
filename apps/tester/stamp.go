package tester

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// sequence hands out a load's sequence numbers, 0, 1, 2, ..., to all its connections.
type sequence struct{ next atomic.Int64 }

// stamp returns template with each perf.SeqToken replaced by the next sequence number and
// each perf.SendTimeToken by now in Unix nanoseconds (perf.SeqToken's doc).
func (s *sequence) stamp(template []byte, now time.Time) []byte {
	b, _, _ := s.stampBlock(template, now)
	return b
}

// stampBlock is stamp, which also returns the sequence numbers it used: n of them from base,
// a block of consecutive numbers reserved at once, so that a request's messages (the events
// of one bulk publish) have consecutive numbers whatever other connections stamp meanwhile.
func (s *sequence) stampBlock(template []byte, now time.Time) (out []byte, base, n int64) {
	seq, sent := []byte(perf.SeqToken), []byte(perf.SendTimeToken)
	n = int64(bytes.Count(template, seq))
	base = s.next.Add(n) - n
	next := base
	out = make([]byte, 0, len(template)+32)
	for {
		i, j := bytes.Index(template, seq), bytes.Index(template, sent)
		switch {
		case i < 0 && j < 0:
			return append(out, template...), base, n
		case j < 0 || (i >= 0 && i < j):
			out = append(out, template[:i]...)
			out = strconv.AppendInt(out, next, 10)
			next++
			template = template[i+len(seq):]
		default:
			out = append(out, template[:j]...)
			out = strconv.AppendInt(out, now.UnixNano(), 10)
			template = template[j+len(sent):]
		}
	}
}

// stampCaller sends req with its body stamped afresh for every request (sequence number, send
// time), over one keep-alive connection of Go's HTTP client: fortio's clients send one fixed
// body. Each perf.UUIDToken in the URL and the body is replaced by a new UUID per request too,
// as fortio's clients do. The send time is taken just before the request is written.
type stampCaller struct {
	req    httpRequest
	seq    *sequence
	url    func() string // req.URL with its {uuid}s replaced afresh (perRequest)
	body   func() string // req.Body likewise
	client *http.Client
	dials  atomic.Int64
	// last is the block of sequence numbers the last request stamped (awaitCaller reads it).
	last stampedBlock
}

// stampedBlock is n sequence numbers from base.
type stampedBlock struct{ base, n int64 }

func newStampCaller(req httpRequest, seq *sequence) *stampCaller {
	s := &stampCaller{req: req, seq: seq, url: perRequest(req.URL), body: perRequest(string(req.Body))}
	var d net.Dialer
	s.client = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			s.dials.Add(1)
			return d.DialContext(ctx, network, addr)
		},
		MaxIdleConnsPerHost: 1,
		DisableCompression:  true,
	}}
	return s
}

func (s *stampCaller) call(ctx context.Context) (string, bool) {
	method := s.req.Method
	if method == "" {
		method = http.MethodPost
	}
	r, err := http.NewRequestWithContext(ctx, method, s.url(), nil)
	if err != nil {
		return "-1", false
	}
	if s.req.ContentType != "" {
		r.Header.Set("Content-Type", s.req.ContentType)
	}
	template := s.req.Body
	if bytes.Contains(template, []byte(perf.UUIDToken)) {
		template = []byte(s.body())
	}
	body, base, n := s.seq.stampBlock(template, time.Now())
	s.last = stampedBlock{base, n}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	resp, err := s.client.Do(r)
	if err != nil {
		return "-1", false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return strconv.Itoa(resp.StatusCode), resp.StatusCode >= 200 && resp.StatusCode < 300
}

func (s *stampCaller) lastStamped() stampedBlock { return s.last }

func (s *stampCaller) sockets() int64 { return s.dials.Load() }

func (s *stampCaller) close() error { s.client.CloseIdleConnections(); return nil }
