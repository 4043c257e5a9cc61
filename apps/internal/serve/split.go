package serve

import (
	"bytes"
	"io"
	"net"
	"sync"
	"time"
)

// h2Preface is the start of HTTP/2's client connection preface ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
// RFC 9113 section 3.4). A gRPC client without TLS (daprd's app channel with --app-protocol
// grpc) sends it first. No HTTP/1 method starts with these three bytes (POST, PUT and PATCH
// differ at the second).
var h2Preface = []byte("PRI")

// sniffTimeout bounds the wait for a new connection's first bytes.
const sniffTimeout = 10 * time.Second

// Split serves two protocols on one listener: it accepts on ln and hands each connection, by
// its first three bytes, to grpcLn (HTTP/2 prior knowledge: a gRPC client) or to httpLn
// (anything else: HTTP/1). Each side is a native server of its own (grpc.Server.Serve,
// http.Server.Serve), so neither protocol goes through the other's stack. Closing one side
// ends only its Accept (a server's stop closes its listener); the caller closes ln once both
// servers have returned, which ends the split. A connection that sends fewer than three bytes
// within 10 s is closed.
func Split(ln net.Listener) (grpcLn, httpLn net.Listener) {
	s := &split{ln: ln, done: make(chan struct{})}
	g := &subListener{s: s, conns: make(chan net.Conn), closed: make(chan struct{})}
	h := &subListener{s: s, conns: make(chan net.Conn), closed: make(chan struct{})}
	go s.accept(g, h)
	return g, h
}

type split struct {
	ln   net.Listener
	done chan struct{}
	err  error // the accept error that ended the loop, once done is closed
}

func (s *split) accept(g, h *subListener) {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			s.err = err
			close(s.done)
			return
		}
		go s.route(c, g, h)
	}
}

// route reads c's first bytes and hands c, with those bytes put back, to g or h.
func (s *split) route(c net.Conn, g, h *subListener) {
	_ = c.SetReadDeadline(time.Now().Add(sniffTimeout))
	head := make([]byte, len(h2Preface))
	if _, err := io.ReadFull(c, head); err != nil {
		_ = c.Close()
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	to := h
	if bytes.Equal(head, h2Preface) {
		to = g
	}
	select {
	case to.conns <- &peekedConn{Conn: c, head: head}:
	case <-to.closed:
		_ = c.Close()
	case <-s.done:
		_ = c.Close()
	}
}

// subListener is one side of a Split.
type subListener struct {
	s      *split
	conns  chan net.Conn
	once   sync.Once
	closed chan struct{}
}

func (l *subListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	case <-l.s.done:
		return nil, l.s.err
	}
}

func (l *subListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}
func (l *subListener) Addr() net.Addr { return l.s.ln.Addr() }

// peekedConn is a connection whose first bytes were read already: Read gives them back first.
type peekedConn struct {
	net.Conn
	head []byte
}

func (c *peekedConn) Read(p []byte) (int, error) {
	if len(c.head) > 0 {
		n := copy(p, c.head)
		c.head = c.head[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}
